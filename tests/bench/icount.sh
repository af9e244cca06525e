#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Instruction counts per round trip: our tools against rdma-core's
# ibv_*_pingpong and perftest's ib_send_lat, counted by callgrind on the
# client, and the section "Instructions per round trip" of benchmarks.md;
# one part of tests/bench/all.sh, which makes benchmarks.md from one run.
#
# Usage: tests/bench/icount.sh [--out FILE] [--from RAW]
#
# Runs tests/bench/icount-inside.sh where an RDMA device exists (through
# tests/softroce/guest.sh: the Soft-RoCE guest), collects its PPICOUNT,
# PPICOUNT-FN and PPRSS lines and writes the section between the markers
# "<!-- icount:begin -->" and "<!-- icount:end -->" of FILE (the Send rows)
# and the one between "<!-- icount-ops:begin -->" and "<!-- icount-ops:end
# -->" (RDMA Write and Read against ib_write_lat and ib_read_lat) and the
# one between "<!-- icount-server:begin -->" and "<!-- icount-server:end
# -->" (the servers, ours against the stock ones); default
# FILE docs/dev/benchmarks.md of the tree; a section is appended when its
# markers are missing, and left as it is when the run has none of its rows
# (PP_ICOUNT_CASES). --from RAW reports the output of an earlier run saved in RAW
# (every run leaves its output in ${TMPDIR:-/tmp}/pp-icount-last.raw).
# About 35-40 minutes, plus PP_ICOUNT_RSS_SECONDS (the guest's timeout,
# PP_ICOUNT_TIMEOUT, 3600 s: the default rows took 1,800-2,400 s on a
# 2-core machine, more with other work beside them).
#
# Environment:
#   PP_BIN     build directory of our tools (default: build/ of the tree)
#   PP_ICOUNT_*  passed to icount-inside.sh (see its header);
#              PP_ICOUNT_RSS_SECONDS adds a -D run of that many seconds
#              whose resident memory is measured on both sides
set -euo pipefail

# shellcheck source=tests/bench/host-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/host-lib.sh"
# shellcheck disable=SC2154 # root, out, from, work: set by bench_host_init
bench_host_init icount "$@"

t0=$SECONDS
if [[ -n $from ]]; then
	cp -- "$from" "$work/raw"
else
	[[ -x $PP_BIN/rc_pingpong/rc_pingpong ]] || {
		echo "icount: no tools in $PP_BIN (build first, or set PP_BIN)" >&2
		exit 1
	}
	echo "icount: running tests/bench/icount-inside.sh in the guest"
	st=0
	tests/softroce/guest.sh --timeout "${PP_ICOUNT_TIMEOUT:-3600}" \
		tests/bench/icount-inside.sh >"$work/raw" 2>&1 || st=$?
	{
		echo "PPICOUNT-INFO,host_status,$st"
		echo "PPICOUNT-INFO,host_seconds,$((SECONDS - t0))"
	} >>"$work/raw"
	bench_raw_keep icount PP
fi
bench_raw_lf icount PPICOUNT
export PYTHONPATH=$root/tests/bench${PYTHONPATH:+:$PYTHONPATH}
python3 - "$work/section.icount" "$work/raw.lf" <<'EOF'
import sys

from icount_raw import finish, fn_lines, head, load, made

rows, fns, info, rss, cal = load(sys.argv[2], "send")

# The polls a round trip needs when its completions are all there: ours and
# the stock tools poll one CQ for both (a batch of 16, of 2); ib_send_lat
# polls its receive CQ and, every send signaled, its send CQ, one
# completion per call.
need = {"ours": 1, "stock": 1, "perftest": 2}


def at_min(k):
    """loop, own at the minimum polls (None without a calibration)."""
    r, c = rows[k], cal.get(k)
    if not c or c[0] < 1000 or c[1] <= 0:
        return None  # no calibration, or one that says nothing
    extra = max(r[7] - need.get(k.split(":")[0], 1), 0)
    return r[1] - extra * c[1], r[3] - extra * c[2]


if not rows:
    sys.exit(0)  # no Send rows in this run: the section stays as it is

out = head("icount", "Instructions per round trip (callgrind)")
w = out.append
w("Made by `tests/bench/icount.sh`, %s. The client runs under callgrind (user space only) "
  "with -n %s and again with -n %s, polling, `-r 500`, both ends on rxe0; "
  "the difference over the extra round trips is one round trip in the "
  "steady state. *loop*: inside the client's loop. Ours is "
  "`pp_run_client_loop`, cut out with `--dump-before/--dump-after`. "
  "perftest's is the function of its binary that calls the provider's "
  "poll_cq most often: two shorter runs (-n %s and -n %s) find it, known "
  "by its address in the stripped binary (the raw output's "
  "PPICOUNT-LOOPFN lines), and its runs are cut out there as ours are, so "
  "its sort of the samples, its connection and its reports stay out. In a "
  "loop cut out, a call made as many times in both runs that reaches "
  "neither libibverbs nor the provider (every round trip posts and polls) "
  "is the loop's set-up or end, not a round trip's, and is left out with "
  "all it calls (the raw output's PPICOUNT-ONCE lines): perftest measures the CPU's "
  "clock rate inside its loop function, for as long as its samples take "
  "to agree, which differs from run to run. The stock tools' loop is their "
  "`main`, with everything it calls, inclusive: each callee's instructions "
  "split as its whole inclusive cost is (the provider's locks in libc "
  "count as libc, as in ours). *after*: what grows with -n outside the "
  "loop (sorting the samples, statistics). The loop is split into the "
  "tool's own code, libibverbs + the provider (librxe), and libc. "
  "*polls*: calls of the "
  "provider's poll_cq per round trip; the rest of a round trip's polls "
  "found the CQ empty, or found only a send's completion that a later one "
  "would have found with the reply: how many depends on timing even under "
  "valgrind (the client runs some fifty times slower, the server and the "
  "kernel do not). So each row is run a third time, with N2 round trips "
  "and the server's process stopped (`kill -STOP`, for a sleep of %s ms, once the "
  "loop runs; below the 1 s a UD or UC client waits for a reply) while "
  "the client polls: *empty poll* is what one more poll cost then (its loop's "
  "instructions over the extra polls: the provider's, libc's and the "
  "tool's own spin code, all of them, over *extra* polls: the only other "
  "difference between the two runs, how the completions fell into polls, "
  "is spread over that many), and *at min polls* is "
  "the loop (and *own at min*, the tool's own part) with the polls beyond "
  "the minimum a round trip needs taken out at that cost: 1 for ours and "
  "the stock tools (one CQ; a batch takes the send's completion with the "
  "reply), 2 for ib_send_lat (a receive CQ and a send CQ, one completion "
  "per call). A poll taken out that did find a send's completion cost a "
  "few instructions more or less than an empty one (the tool's handling "
  "of a non-empty poll, less the provider's empty check when a batch is "
  "full), but the completion's own instructions stay in: that is the only "
  "approximation, at most one such poll per round trip." %
  (made(info) + tuple(info.get("find", "?,?").split(",")[:2]) +
   (info.get("pause", "?"),)))
w("")
w("| tool | transport | size | total | loop | after | own | verbs | libc | "
  "other | polls | instr/poll | empty poll | extra | at min polls | "
  "own at min |")
w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  "---:|---:|")
order = {"ours": 0, "ours-N": 1, "ours-mono": 2, "stock": 3, "perftest": 4}
trorder = {"rc": 0, "uc": 1, "ud": 2, "srq": 3}


def key(k):
    who, t, s = k.split(":")
    return (trorder.get(t, 9), int(s), order.get(who, 9))


for k in sorted(rows, key=key):
    who, t, s = k.split(":")
    tot, loop, after, own, verbs, libc, other, polls, pcost = rows[k]
    c, m = cal.get(k), at_min(k)
    w("| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f "
      "| %.0f | %s | %s | %s | %s |" % (
          who, t, s, tot, loop, after, own, verbs, libc, other, polls, pcost,
          "%.2f" % c[1] if c else "-", "%.0f" % c[0] if c else "-",
          "%.0f" % m[0] if m else "-", "%.0f" % m[1] if m else "-"))
w("")
w("The loops side by side at the minimum polls (the columns *at min "
  "polls* and *own at min* above; the raw figure in brackets); *lowest*: "
  "is our loop below both the stock tool's and ib_send_lat's:")
w("")
w("| transport | size | ours loop | stock loop | ib_send_lat loop | "
  "ours own | lowest |")
w("|---|---:|---:|---:|---:|---:|---|")
seen = sorted({(k.split(":")[1], k.split(":")[2]) for k in rows},
              key=lambda x: (trorder.get(x[0], 9), int(x[1])))


def fair(k):
    """(loop, own) at the minimum polls, else the raw ones; the text."""
    r, m = rows.get(k), at_min(k) if k in rows else None
    if not r:
        return None, "-"
    if not m:
        return (r[1], r[3]), "%.0f (raw)" % r[1]
    return m, "%.0f (%.0f)" % (m[0], r[1])


for t, s in seen:
    o, otext = fair("ours:%s:%s" % (t, s))
    st, sttext = fair("stock:%s:%s" % (t, s))
    pf, pftext = fair("perftest:%s:%s" % (t, s))
    if not o:
        continue
    ro = rows["ours:%s:%s" % (t, s)]
    why = []
    if st and o[0] >= st[0]:
        why.append("loop not below stock")
    if pf and o[0] >= pf[0]:
        why.append("loop not below ib_send_lat")
    raw = [n for n, x in (("ours", otext), ("stock", sttext),
                          ("ib_send_lat", pftext)) if x.endswith("(raw)")]
    if raw:
        why.append("%s raw, not at min polls" % " and ".join(raw))
    w("| %s | %s | %s | %s | %s | %.0f (%.0f) | %s |" % (
        t, s, otext, sttext, pftext, o[1], ro[3],
        "- (no other tool's row)" if not st and not pf else
        ("yes" if not [x for x in why if "raw" not in x] else "no: " +
         "; ".join(x for x in why if "raw" not in x)) +
        "".join(" (%s)" % x for x in why if "raw" in x)))
w("")
w("A calibration is used only when it made at least 1000 extra polls and "
  "gave a positive cost; else the row is left raw (\"-\" above).")
w("")
newrows = sorted({k for k in rows if k.startswith("ours-N:")}, key=key)
if newrows:
    w("The same loop with `-N` (tool *ours-N* above): the QP made by "
      "`ibv_create_qp_ex()` and each send posted by `ibv_wr_start()`, "
      "`ibv_wr_send()`, `ibv_wr_set_sge()` (or `ibv_wr_set_inline_data()`) "
      "and `ibv_wr_complete()` instead of one `ibv_post_send()`; the rest "
      "of the loop is the same code. At the minimum polls (raw in "
      "brackets):")
    w("")
    w("| transport | size | ours loop | ours -N loop | -N / without | "
      "ours own | ours -N own |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for k in newrows:
        _, t, s = k.split(":")
        o, otext = fair("ours:%s:%s" % (t, s))
        n, ntext = fair(k)
        if not o:
            continue
        w("| %s | %s | %s | %s | %.2f | %.0f | %.0f |" % (
            t, s, otext, ntext, n[0] / o[0] if o[0] else 0, o[1], n[1]))
    w("")
monorows = sorted({k for k in rows if k.startswith("ours-mono:")}, key=key)
if monorows:
    w("The same loop under `CLOCK_MONOTONIC` (tool *ours-mono* above: "
      "`PP_CLOCK=monotonic` on both sides, as on a host whose TSC is not "
      "trusted, docs/measurement.md \"The clock\"): one clock read per "
      "round trip, the arrival, which also starts the next round trip, and "
      "no timing of `ibv_post_send()`, against three cycle-counter reads. "
      "Under valgrind `clock_gettime()` is a system call (valgrind hides "
      "the vDSO), so its user-space part is glibc's wrapper: the "
      "difference is the clock's own cost in instructions, not the time "
      "of a read. At the minimum polls (raw in brackets):")
    w("")
    w("| transport | size | ours loop | ours-mono loop | mono - cycles | "
      "ours own | ours-mono own |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for k in monorows:
        _, t, s = k.split(":")
        o, otext = fair("ours:%s:%s" % (t, s))
        n, ntext = fair(k)
        if not o:
            continue
        w("| %s | %s | %s | %s | %+.0f | %.0f | %.0f |" % (
            t, s, otext, ntext, n[0] - o[0], o[1], n[1]))
    w("")
w("What is left, and why: our own code in the loop, at the minimum polls, "
  "is the work the tools measure with, per round trip: three reads of the "
  "cycle counter (the send, the return from `ibv_post_send()`, the reply), "
  "the sample's store (in ticks: its conversion to ns comes after the "
  "loop, with the sort, some 13 instructions a sample in *after*), the "
  "sum and maximum of the time inside `ibv_post_send()`, the checks of the "
  "reply's number and length, the signal and the `-D` deadline, the "
  "send's flags (one in 16 signaled), the receives reposted 16 per call "
  "(docs/dev/loop.md); the stock tools read no clock "
  "in their loop and keep no sample. Per row, our own code by function "
  "(raw, with the polls; `client_fast()` is inlined into "
  "`pp_run_send_fast`, which `pp_run_client_loop` calls):")
w("")
out.extend(fn_lines(rows, fns, key))
w("")
for s, iters, ckb, skb in rss:
    w("Resident memory of a long run: `rc_pingpong -s 1 -D %d` made %d round "
      "trips; peak resident memory (VmHWM) %.1f MB on the client, %.1f MB on "
      "the server." % (s, iters, ckb / 1024, skb / 1024))
    w("")
finish(sys.argv[1], out, "icount")
EOF

python3 - "$work/section.icount-ops" "$work/raw.lf" <<'EOF'
import sys

from icount_raw import (below_floor, disagree, finish, fn_lines, looks,
                        made, section)

rows, fns, info, out = section(
    sys.argv[2], "ops", "icount-ops",
    "Instructions per round trip: RDMA Write, Read and atomics (callgrind)")
look = looks(sys.argv[2])
w = out.append
w("Made by `tests/bench/icount.sh`, %s; counted as the Send rows above (client only, user space, -n "
  "%s and -n %s, the difference per extra round trip). `rc_pingpong --op "
  "write` against perftest's `ib_write_lat`, `--op read` against "
  "`ib_read_lat`, `--op fetch-add` (8 bytes) against `ib_atomic_lat` (its "
  "default, FETCH_AND_ADD). Ours: *loop* is the one-sided client loop of "
  "common/verbs/pp_run_rdma.c (`write_client`, `request_client`: without -c, "
  "the Send rows' lean loop with the write, the read or the atomic as its "
  "round trip, `pp_run_write_fast()`, `pp_run_request_fast()`; an atomic's "
  "value is checked each time, -c or not), cut out with "
  "`--dump-before/--dump-after`; perftest's as for `ib_send_lat` "
  "(its loop function found first, then cut out as ours). A round trip is one "
  "iteration of each tool: for Write, our write and the server's write "
  "back (ib_write_lat: the same); for Read, one read; for an atomic, "
  "one atomic. *polls*: calls of "
  "the provider function the client calls most." % made(info))
w("")
w("A Write client waits for the peer's write by looking at the last byte "
  "of its buffer, in its own code, as often as the wait lasts: those looks "
  "depend on timing as the Send rows' empty polls do. So a Write row's "
  "runs count each conditional jump (callgrind's `--dump-instr=yes "
  "--collect-jumps=yes`), and it is run a third time, with N2 round trips "
  "and the server's process stopped for 400 ms once the loop runs: the "
  "jump of the loop that the pause made run most often is the look's "
  "test, *looks* is how often it ran per round trip in the two runs, and "
  "*look* what one more look cost in the third run (its loop's "
  "instructions over its extra looks, all objects: our client polls its "
  "CQ once every 64 looks, ib_write_lat not at all; *own* in brackets). "
  "*at min looks* takes out the looks beyond the fewest a round trip "
  "needs: 1 for ib_write_lat (its test runs once when the byte is there "
  "at once); 0 for ours, whose loop looks once itself and leaves any "
  "further looks to its wait (`fast_wait()`, where the test counted is): "
  "its entry to that wait stays in. Read and atomics have no looks: their "
  "completions come at the first poll (polls 1.00).")
w("")
w("| tool | operation | size | total | loop | after | own | verbs | libc | "
  "other | polls | instr/poll | looks | look (own) | at min looks | "
  "own at min |")
w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  "---:|---:|")


oporder = {"write": 0, "read": 1, "fetch-add": 2}
need = {"ours": 0, "perftest": 1}  # looks a round trip needs, at least


def key(k):
    who, op, s = k.split(":")
    return (oporder.get(op, 9), int(s), who != "ours")


def at_min(k):
    """loop, own at the fewest looks (the raw row without looks)."""
    r, c = rows[k], look.get(k)
    if not c:
        return r[1], r[3]
    extra = max(c[1] - need.get(k.split(":")[0], 1), 0)
    return r[1] - extra * c[2], r[3] - extra * c[3]


for k in sorted(rows, key=key):
    who, op, s = k.split(":")
    c = look.get(k)
    lk = "%.2f | %.2f (%.2f)" % (c[1], c[2], c[3]) if c else "- | -"
    m = "%.0f | %.0f" % at_min(k) if c else "- | -"
    w("| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | "
      "%.2f | %.0f | %s | %s |" % ((who + (" (runs disagree)" if disagree(
          rows[k]) else ""), op, s) + tuple(rows[k]) + (lk, m)))
w("")
if any(disagree(r) for r in rows.values()):
    w("*runs disagree*: a part of the row is below zero, so its two runs' "
      "extra round trips did not cost alike (one of them did work the "
      "other did not); the row says nothing, and is left out below. For "
      "perftest, the tool's own code in the loop counts as two parts: its "
      "loop function's own instructions (callgrind's self count of it "
      "alone), and its other functions' in the loop, *own* less the first.")
    low = ["%s %s %s B: own %.0f, its loop function alone %.0f" % (
        k.split(":")[0], k.split(":")[1], k.split(":")[2], rows[k][3],
        rows[k].floor) for k in sorted(rows, key=key)
        if rows[k].floor and below_floor(rows[k])]
    if low:
        w("")
        w("Own code below the loop function's alone (the second part below "
          "zero): " + "; ".join(low) + ".")
    w("")
w("The loops side by side: Write at the fewest looks (the raw figure in "
  "brackets), Read and atomics as counted; *lowest*: is ours at or below "
  "perftest's:")
w("")
w("| operation | size | ours loop | perftest loop | ours / perftest | "
  "ours own | perftest own | lowest |")
w("|---|---:|---:|---:|---:|---:|---:|---|")


def fig(v, raw, k):
    return "%.0f (%.0f)" % (v, raw) if k in look else "%.0f" % v


for op in oporder:
    for s in sorted({int(k.split(":")[2]) for k in rows
                     if k.split(":")[1] == op}):
        ko, kp = "ours:%s:%d" % (op, s), "perftest:%s:%d" % (op, s)
        o, p = rows.get(ko), rows.get(kp)
        if not o or not p or disagree(o) or disagree(p):
            continue
        (ol, oo), (pl, po) = at_min(ko), at_min(kp)
        w("| %s | %d | %s | %s | %.2f | %s | %s | %s |" % (
            op, s, fig(ol, o[1], ko), fig(pl, p[1], kp),
            ol / pl if pl else 0, fig(oo, o[3], ko), fig(po, p[3], kp),
            "yes" if ol <= pl else "no"))
w("")
w("A row is the difference of two runs, so work that one run did and the "
  "other did not (a wait at the start, a stall of the emulated guest) "
  "lands in it: a Read round trip does the same work at 1 B and at 4096 B "
  "in both tools, so where a tool's two Read rows differ, that is how far "
  "its figures move between runs.")
w("")
w("What is left, and why: the verbs part (the provider's post_send and "
  "poll_cq) is the same for both tools within a few instructions (our "
  "Write signals one write in 16, ib_write_lat every one, so ours polls "
  "less). Our own code is the measuring perftest does not do per "
  "iteration: three clock reads (the sample, and the time inside "
  "`ibv_post_send()`, docs/measurement.md), the sum and maximum of that "
  "time, the sample's store, one deadline (`-D`, ALIVE, and the signal "
  "at least every 100 ms), and the completion's status; an atomic's value "
  "checked; perftest reads the cycle counter once per iteration and "
  "stores it. Our rounds of a read, an atomic or a write keep the clock "
  "readings, the sample's place and an atomic's next value in registers "
  "(`request_rounds()`, `write_rounds()`), and hand any round that is not "
  "plain (the signal, a deadline, a completion that is not the awaited "
  "success, a write not there at the first look) to the general round of "
  "the lean loop. For Write our flag is the pattern's "
  "last byte (`pp_write_flag_at()`: message 0's byte plus 29 a message), "
  "so that `-c` checks every byte the same way.")
w("")
w("Our own code per row, by function:")
w("")
out.extend(fn_lines(rows, fns, key))
w("")
finish(sys.argv[1], out, "icount-ops")
EOF

python3 - "$work/section.icount-server" "$work/raw.lf" <<'EOF'
import sys

from icount_raw import finish, fn_lines, made, section

rows, fns, info, out = section(
    sys.argv[2], "server", "icount-server",
    "Instructions per round trip: the servers (callgrind)")
w = out.append
w("Made by `tests/bench/icount.sh`, %s. A round trip runs the server's loop too, so the same count "
  "is made the other way round: the server runs under callgrind with -n "
  "%s and -n %s (user space only, the difference per extra round trip), "
  "its client natively, polling, `-r 500` (`-q 1` for SRQ). Ours: *loop* "
  "is `pp_run_server_loop`, cut out with `--dump-before/--dump-after`; "
  "*after* is its sort and statistics of its own samples, which the stock "
  "servers do not keep. The stock servers' loop is their `main`, found as "
  "for their clients (the function of their binary that calls the "
  "provider's poll_cq most often, inclusive), so everything they do per "
  "round trip is in it. *polls*: calls of the provider's poll_cq per round "
  "trip, raw: the server polls while the client, running natively and so "
  "some fifty times faster, is already waiting, so few of its polls find "
  "the CQ empty; there is no calibration run here." % made(info))
w("")
w("| tool | transport | size | total | loop | after | own | verbs | libc | "
  "other | polls | instr/poll |")
w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
trorder = {"rc": 0, "uc": 1, "ud": 2, "srq": 3}


def key(k):
    who, t, s = k.split(":")
    return (trorder.get(t, 9), int(s), who != "srv-ours")


for k in sorted(rows, key=key):
    who, t, s = k.split(":")
    w("| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | "
      "%.2f | %.0f |" % ((who[4:], t, s) + tuple(rows[k])))
w("")
w("| transport | size | ours loop | stock loop | ours / stock | ours own | "
  "stock own |")
w("|---|---:|---:|---:|---:|---:|---:|")
for t in sorted({k.split(":")[1] for k in rows},
                key=lambda x: trorder.get(x, 9)):
    for s in sorted({int(k.split(":")[2]) for k in rows
                     if k.split(":")[1] == t}):
        o = rows.get("srv-ours:%s:%d" % (t, s))
        p = rows.get("srv-stock:%s:%d" % (t, s))
        if not o or not p:
            continue
        w("| %s | %d | %.0f | %.0f | %.2f | %.0f | %.0f |" % (
            t, s, o[1], p[1], o[1] / p[1] if p[1] else 0, o[3], p[3]))
w("")
w("Our server's loop takes the lean path in the same case as the client "
  "(`server_fast()`, docs/dev/loop.md): the "
  "message and the send's completion taken inline, the receives reposted "
  "from one chain built once, the clock and the samples in ticks. Its own "
  "code is the measuring the stock servers do not do: three reads of the "
  "cycle counter (the message's arrival, before the reply's post and "
  "after it), the sample's store, the sum and maximum of the time inside "
  "`ibv_post_send()`, the checks of a UD gap and of a long wait, the "
  "signal check. Our own code per row, by function:")
w("")
out.extend(fn_lines(rows, fns, key))
w("")
finish(sys.argv[1], out, "icount-server")
EOF

for name in icount icount-ops icount-server; do
	[[ ! -s $work/section.$name ]] || bench_put_section "$name" "$work/section.$name"
done
