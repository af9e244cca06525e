#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The paired wall-clock comparison: ours against ibv_*_pingpong in many short
# alternated runs, the median of the paired ratios with a bootstrap 95 %
# interval and a verdict per row, with an A/A row (the stock tool against
# itself) that shows what the bed resolves; the section "Wall clock, paired"
# of benchmarks.md.
#
# Usage: tests/bench/walltime.sh [--out FILE] [--from RAW]
#
# One part of tests/bench/all.sh, which makes benchmarks.md from one run.
# Runs tests/bench/walltime-inside.sh in the Soft-RoCE guest (through
# tests/softroce/guest.sh), and writes the section between the markers
# "<!-- walltime:begin -->" and "<!-- walltime:end -->" of FILE (the Send
# rows), and the one between "<!-- walltime-ops:begin -->" and "<!--
# walltime-ops:end -->" (RDMA Write and Read against perftest); default
# docs/dev/benchmarks.md; a section is appended when its markers are missing,
# and left as it is when the run has none of its rows (PP_WALL_ROWS). --from RAW
# reports an earlier run's output (each run leaves it in
# ${TMPDIR:-/tmp}/pp-walltime-last.raw). About 8 minutes with the defaults
# (6 Send rows of 30 pairs).
#
# Environment: PP_BIN (default build/ of the tree), PP_WALL_* (see
# walltime-inside.sh), PP_WALL_TIMEOUT (guest.sh --timeout, default 1200).
set -euo pipefail

# shellcheck source=tests/bench/host-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/host-lib.sh"
# shellcheck disable=SC2154 # root, out, from, work: set by bench_host_init
bench_host_init walltime "$@"
t0=$SECONDS
if [[ -n $from ]]; then
	cp -- "$from" "$work/raw"
else
	echo "walltime: running tests/bench/walltime-inside.sh in the guest"
	st=0
	tests/softroce/guest.sh --timeout "${PP_WALL_TIMEOUT:-1200}" \
		tests/bench/walltime-inside.sh >"$work/raw" 2>&1 || st=$?
	{
		echo "PPWALL-INFO,host_status,$st"
		echo "PPWALL-INFO,host_seconds,$((SECONDS - t0))"
		echo "PPWALL-INFO,host_guests,$(pgrep -c -f '^qemu-system' || true)"
	} >>"$work/raw"
	bench_raw_keep walltime PPWALL
fi
bench_raw_lf walltime PPWALL

python3 - "$work/raw.lf" "$work" <<'EOF'
import random
import sys

runs, info, fails = {}, {}, {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split(",")
    if f[0] == "PPWALL" and len(f) == 6:
        row, p, who, st, u = f[1], int(f[2]), f[3], int(f[4]), f[5]
        if st == 0 and u:
            runs.setdefault(row, {}).setdefault(p, {})[who] = float(u)
        else:
            runs.setdefault(row, {}).setdefault(p, {})
            fails.setdefault(row, {}).setdefault(who, 0)
            fails[row][who] += 1
    elif f[0] == "PPWALL-INFO" and len(f) >= 3:
        info.setdefault(f[1], ",".join(f[2:]))


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


B = 10000
ONE_SIDED = ("write", "read", "aaw")


def made():
    """pinning, guests, pairs of the run and the resamples, for the first
    sentence of a section."""
    return (info.get("pin", "?"), info.get("host_guests", "?"),
            info.get("pairs", "?"), B)


def iters(rows):
    """The -n of the runs of ROWS, by size ("8000 at 1 byte, 1500 at 4096":
    the rows' PPWALL-INFO,iters:ROW records, else walltime-inside.sh's
    defaults)."""
    by = {}
    for row in rows:
        size = int(row.split(":")[1])
        n = info.get("iters:" + row, "8000" if size < 4096 else "1500")
        by.setdefault(size, set()).add(n)
    return ", ".join("%s at %s" % ("/".join(sorted(by[s], key=int)),
                                   "1 byte" if s == 1 else s)
                     for s in sorted(by))


def resolve(r):
    """The median of the paired ratios R and its bootstrap 95 % interval."""
    rng = random.Random(16)
    meds = sorted(median([rng.choice(r) for _ in r]) for _ in range(B))
    return median(r), meds[int(0.025 * B)], meds[int(0.975 * B) - 1]


def counted(n, what):
    """N WHAT, WHAT in the plural unless N is 1."""
    return "%d %s%s" % (n, what, "" if n == 1 else "s")


def table(rows, names, figure):
    """The table's lines for ROWS; NAMES: row transport -> (A, B)."""
    t = ["| row | A | B | pairs | A median %s | B median %s | "
         "median A/B | 95 %% interval | verdict |" % (figure, figure),
         "|---|---|---|---:|---:|---:|---:|---|---|"]
    for row in rows:
        tr, size = row.split(":")
        ok = [(v["a"], v["b"]) for v in runs[row].values()
              if "a" in v and "b" in v]
        a, b = names.get(tr, (tr, tr))
        aa = tr in ("aa", "aaw")
        f = fails.get(row, {})
        label = "%s %s B%s" % ("A/A" if aa else tr, size,
                               "" if len(ok) == len(runs[row]) else
                               " (%s left out: %s)" % (
                                   counted(len(runs[row]) - len(ok), "pair"),
                                   ", ".join("%s of %s failed" % (
                                       counted(f[w], "run"), w.upper())
                                       for w in sorted(f))))
        if len(ok) < 5:
            t.append("| %s | %s | %s | %d | - | - | - | - | too few pairs |" %
                     (label, a, b, len(ok)))
            continue
        med, lo, hi = resolve([x / y for x, y in ok])
        verdict = "faster" if hi < 1 else "slower" if lo > 1 else \
            "not resolved"
        if aa:
            verdict = "(A/A: the bed's resolution, +-%.1f %%)" % (
                50 * (hi - lo))
        t.append("| %s | %s | %s | %d | %.2f | %.2f | %.3f | %.3f-%.3f | %s |"
                 % (label, a, b, len(ok), median([x for x, _ in ok]),
                    median([y for _, y in ok]), med, lo, hi, verdict))
    return t


send_rows = [r for r in runs if r.split(":")[0] not in ONE_SIDED]
ops_rows = [r for r in runs if r.split(":")[0] in ONE_SIDED]
out = []
w = out.append
w("<!-- walltime:begin -->")
w("## Wall clock, paired: ours against the stock tools")
w("")
w("Made by `tests/bench/walltime.sh`; pinning %s; emulated guests running "
  "on the machine at the end: %s. Each row is %s pairs of short runs (`-n` %s: a fraction of a second "
  "of loop each, `-r 500`), the two runs of a "
  "pair back to back, A first in odd pairs and B first in even ones. The "
  "figure of a run is the client's `usec/iter`; the ratio of a pair is "
  "A / B. The table gives the median of the paired ratios and its 95 %% "
  "interval from %d bootstrap resamples of the pairs (percentile method, "
  "fixed seed). A run that fails, or prints no figure, leaves its pair out; the row "
  "says how many runs of A and of B did. Verdict: *faster* when the whole interval is below 1, "
  "*slower* when above, else *not resolved*. The A/A row runs "
  "`ibv_rc_pingpong` against itself in the same session: its interval is "
  "what this bed can resolve; a row whose interval is no narrower says "
  "nothing finer." % (made()[:3] + (iters(send_rows), B)))
w("")
names = {"rc": ("rc_pingpong", "ibv_rc_pingpong"),
         "uc": ("rc_pingpong --uc", "ibv_uc_pingpong"),
         "ud": ("ud_pingpong", "ibv_ud_pingpong"),
         "srq1": ("srq_pingpong -q 1", "ibv_srq_pingpong -q 1"),
         "aa": ("ibv_rc_pingpong", "ibv_rc_pingpong")}
out.extend(table(send_rows, names, "usec/iter"))
w("")
w("<!-- walltime:end -->")
if send_rows:
    open(sys.argv[2] + "/section.walltime", "w").write("\n".join(out) + "\n")

if ops_rows:
    out = []
    w = out.append
    w("<!-- walltime-ops:begin -->")
    w("## Wall clock, paired: RDMA Write and Read against perftest")
    w("")
    w("Made by `tests/bench/walltime.sh`; pinning %s; emulated guests "
      "running on the machine at the end: %s. `rc_pingpong --op write` and `--op read` against perftest's "
      "`ib_write_lat` and `ib_read_lat`, %s pairs of short runs per row "
      "(`-n` %s), alternated and resolved as "
      "above (median of the paired ratios A / B, bootstrap 95 %% "
      "interval, %d resamples). The figure of a run compares like with "
      "like: perftest's `t_typical` (its median) is half a round trip for "
      "Write, where both sides write as ours do, and one whole Read for "
      "Read; so ours is its median round trip over 2 for Write, its median "
      "for Read (one Read is our round trip). The A/A row runs "
      "`ib_write_lat` against itself in the same session." %
      (made()[:3] + (iters(ops_rows), B)))
    w("")
    out.extend(table(ops_rows, {
        "write": ("rc_pingpong --op write", "ib_write_lat"),
        "read": ("rc_pingpong --op read", "ib_read_lat"),
        "aaw": ("ib_write_lat", "ib_write_lat")}, "usec"))
    w("")
    w("<!-- walltime-ops:end -->")
    open(sys.argv[2] + "/section.walltime-ops", "w").write(
        "\n".join(out) + "\n")
EOF

for name in walltime walltime-ops; do
	[[ ! -s $work/section.$name ]] || bench_put_section "$name" "$work/section.$name"
done
