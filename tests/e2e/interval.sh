#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# interval.sh: long runs in constant memory (issue 16, docs/measurement.md),
# end to end on a real device.
#
# Checks:
#   - rc -D 3 --interval 1 in text, both sides: interval lines numbered 1, 2,
#     ... (three or four: the last is cut by the end of the run), whose round
#     trips add up to the run's samples ("latency usec: n N"); an interval
#     across two boundaries or more stands for the intervals a stall of over
#     a second skipped (docs/measurement.md), and only when its max round
#     trip shows the stall (at least 0.9 s: the round trips are back to
#     back, so the one that ended past the skipped boundary began before
#     the boundary before it; interval_grid.py);
#   - the same with --json, both sides: stdout is the interval lines, one
#     JSON object each, then the document; indexes consecutive, spans
#     increasing, samples adding up to the document's; params.interval_s 1;
#   - -D keeps a histogram: --histogram still prints one;
#   - -D with --samples keeps every raw sample: one line per sample;
#   - ud -D 2 --interval 1: the lossy loop's intervals on both sides.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
here=$(dirname "$0") # interval_grid.py
rc=$(pp_bin rc_pingpong)
ud=$(pp_bin ud_pingpong)
port=$PP_PORT

# pair NAME BIN "SERVER ARGS" CLIENT ARGS...: as in measure.sh.
pair() {
	local name=$1 bin=$2 sargs=$3
	shift 3
	port=$((port + 1))
	# shellcheck disable=SC2086 # $sargs is a list of words
	pp_server "$name server" "$PP_LOGS/$name.server" "$bin" -d "$PP_DEV" \
		-p "$port" $sargs
	local spid=$pp_pid
	pp_wait_port "$port" "$spid" || pp_fail "$name: the server is not listening"
	cst=0
	pp_client "$name client" "$PP_LOGS/$name.client" "$bin" -d "$PP_DEV" \
		-p "$port" "${pp_gid_opt[@]}" "$@" "$PP_HOST" || cst=$?
	sst=0
	pp_wait "$spid" || sst=$?
}

show() {
	local f
	for f in "$@"; do
		echo "--- $(basename "$f")"
		cut -c1-300 "$f"
	done
}

# text_intervals WHAT FILE MIN MAX: interval lines 1..k (MIN <= k <= MAX)
# whose round trips add up to the "latency usec: n N" line.
text_intervals() {
	local what=$1 file=$2 min=$3 max=$4
	if python3 - "$file" "$min" "$max" "$here" <<'EOF'; then
import re, sys
f, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
txt = open(f).read()
iv = [(int(a), float(b), float(c), int(d), float(e)) for a, b, c, d, e in re.findall(
    r"^  interval (\d+): ([0-9.]+)-([0-9.]+) s, (\d+) round trips, [0-9.]+ usec/iter, usec min [0-9.]+ median [0-9.]+ mean [0-9.]+ p99 [0-9.]+ max ([0-9.]+), [0-9.]+ Mbit/sec$",
    txt, re.M)]
n = int(re.search(r"^latency usec: n (\d+) ", txt, re.M).group(1))
sys.path.insert(0, sys.argv[4])
from interval_grid import count
assert lo <= count([(i[1], i[2], i[4]) for i in iv]) <= hi, "%d intervals" % len(iv)
assert [i[0] for i in iv] == list(range(1, len(iv) + 1)), iv
assert all(a[2] <= b[1] + 1e-9 for a, b in zip(iv, iv[1:])), iv
assert sum(i[3] for i in iv) == n, (sum(i[3] for i in iv), n)
print("  %d intervals, %d samples" % (len(iv), n))
EOF
		echo "ok: $what"
	else
		pp_fail "$what"
	fi
}

# json_intervals WHAT FILE MIN MAX: interval lines, then one document.
json_intervals() {
	local what=$1 file=$2 min=$3 max=$4
	if python3 - "$file" "$min" "$max" "$here" <<'EOF'; then
import json, sys
f, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = [json.loads(l) for l in open(f) if l.startswith("{")]
iv = [l["interval"] for l in lines[:-1]]
d = lines[-1]
assert "schema" in d and all(len(l) == 1 and "interval" in l for l in lines[:-1])
sys.path.insert(0, sys.argv[4])
from interval_grid import count
assert lo <= count([(i["start_s"], i["end_s"], i["figures"]["latency_usec"]["max"])
                    for i in iv]) <= hi, "%d intervals" % len(iv)
assert [i["index"] for i in iv] == list(range(1, len(iv) + 1))
assert all(0 <= i["start_s"] < i["end_s"] for i in iv)
assert all(a["end_s"] == b["start_s"] for a, b in zip(iv, iv[1:]))
lat = [i["figures"]["latency_usec"] for i in iv]
assert all(l["min"] <= l["p50"] <= l["p99"] <= l["max"] for l in lat)
total = d["results"][0]["figures"]["latency_usec"]["samples"]
assert sum(l["samples"] for l in lat) == total, (sum(l["samples"] for l in lat), total)
assert sum(i["figures"]["iterations"] for i in iv) == total
assert d["params"]["interval_s"] == 1, d["params"]
assert d["status"]["exit"] == 0
print("  %d intervals, %d samples" % (len(iv), total))
EOF
		echo "ok: $what"
	else
		pp_fail "$what"
	fi
}

# --- text, both sides
pair text "$rc" "--interval 1" -D 3 -s 1 --interval 1 --histogram
show "$PP_LOGS/text.client" "$PP_LOGS/text.server"
pp_expect_status "$cst" 0 "text client"
pp_expect_status "$sst" 0 "text server"
text_intervals "client: intervals add up to the run" "$PP_LOGS/text.client" 3 4
text_intervals "server: intervals add up to the run" "$PP_LOGS/text.server" 3 4
pp_expect_grep '^histogram usec: n [0-9]+, [0-9]+ bins of ' "$PP_LOGS/text.client" \
	"-D keeps a histogram: --histogram prints"

# --- JSON, both sides
pair json "$rc" "--interval 1 --json" -D 3 -s 1 --interval 1 --json
show "$PP_LOGS/json.client"
pp_expect_status "$cst" 0 "json client"
pp_expect_status "$sst" 0 "json server"
json_intervals "client: JSON interval lines, then the document" "$PP_LOGS/json.client" 3 4
json_intervals "server: JSON interval lines, then the document" "$PP_LOGS/json.server" 3 4

# --- -D with --samples: every raw sample
samples=$PP_LOGS/samples.csv
pair raw "$rc" "" -D 1 -s 8 --samples "$samples"
((cst == 0 && sst == 0)) || show "$PP_LOGS/raw.client" "$PP_LOGS/raw.server"
pp_expect_status "$cst" 0 "-D --samples client"
pp_expect_status "$sst" 0 "-D --samples server"
n=$(sed -n 's/^latency usec: n \([0-9]*\) .*/\1/p' "$PP_LOGS/raw.client")
if [[ -n $n ]] && ((n > 0)) && (($(grep -Ec '^8,[0-9]+,[0-9]+$' "$samples") == n)); then
	echo "ok: -D --samples wrote all $n samples"
else
	pp_fail "-D --samples: latency n '$n', file $(wc -l <"$samples") lines"
fi

# --- UD: the lossy loop, both sides
pair ud "$ud" "--interval 1" -D 2 -s 64 --interval 1
show "$PP_LOGS/ud.client" "$PP_LOGS/ud.server"
pp_expect_status "$cst" 0 "ud client"
pp_expect_status "$sst" 0 "ud server"
text_intervals "ud client: intervals add up" "$PP_LOGS/ud.client" 2 3
text_intervals "ud server: intervals add up" "$PP_LOGS/ud.server" 2 3

pp_finish
