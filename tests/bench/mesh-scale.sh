#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The mesh at scale on one machine, no RDMA device: the real rank 0
# (rc_pingpong --mesh) against pp_mesh_standin playing the other N-1 ranks
# over loopback (docs/dev/testing.md, "The mesh at scale").  For each N: without
# and with --json, every pair passing and every pair failing (RTR), each
# run measures
#   join_s       the stand-in's start to its last WELCOME (rank 0 answers
#                every JOIN when the join is over)
#   round_ms     rank 0's time per round with every pair answering at once:
#                from one round's first RUN/IDLE at the stand-in to the
#                next's (median, mean, max); it includes rank 0's own
#                worker's pair, a fork and a failing device open
#   rank 0       wall time, CPU (user + system) and peak RSS, from
#                /usr/bin/time -v on the rank 0 process (its own worker and
#                that worker's pair processes included: the largest of them
#                for the RSS)
#   out_bytes    the size of rank 0's output (the text, or the JSON)
#   standin_cpu  the stand-in's own CPU (it must not be what limits a round)
# and writes OUT.csv and OUT.md (a markdown table).  Not run in CI.
#
# Usage: tests/bench/mesh-scale.sh [--build DIR] [--sizes "256 1024 4096"]
#            [--out PREFIX] [--port P] [--join S] [--mem-gb G]
#            [--json-max N]
#   --build   the build directory (default: build at the top)
#   --sizes   the N to run (default "256 1024 4096")
#   --out     where the results go: PREFIX.csv and PREFIX.md (default
#             mesh-scale in the current directory)
#   --port    rank 0's port; each run takes the next (default 61200)
#   --join    --mesh-join and the stand-in's --join-s (default 60)
#   --mem-gb  rank 0's address-space limit (ulimit -v; default 8): a run
#             past it fails (its exit status says so) instead of taking
#             the machine's memory
#   --json-max  the --json runs only up to this N (default: every N); at
#             4,096 ranks the document is 23-24 GB and a run about 7 minutes
# Rank 0 runs with -T 10, as the sim.* tests do (docs/dev/testing.md: a
# thousand keepalive probes at once overflow loopback's backlog).
# Rank 0 and the stand-in need N + 64 descriptors each: the script raises
# ulimit -n (the hard limit too, which needs root beyond it).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
sizes="256 1024 4096"
out=mesh-scale
port=61200
join=60
mem_gb=8
json_max=
while (($#)); do
	case $1 in
	--build) build=$2 ;;
	--sizes) sizes=$2 ;;
	--out) out=$2 ;;
	--port) port=$2 ;;
	--join) join=$2 ;;
	--mem-gb) mem_gb=$2 ;;
	--json-max) json_max=$2 ;;
	-h | --help)
		sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "mesh-scale.sh: unknown argument '$1' (see --help)" >&2
		exit 2
		;;
	esac
	shift 2
done
tool=$build/rc_pingpong/rc_pingpong
standin=$build/tests/mesh_sim/pp_mesh_standin
for f in "$tool" "$standin"; do
	[[ -x $f ]] || {
		echo "mesh-scale.sh: no $f (build with cmake --build $build; the stand-in needs BUILD_TESTING)" >&2
		exit 1
	}
done
[[ -x /usr/bin/time ]] || {
	echo "mesh-scale.sh: no /usr/bin/time (apt-get install time)" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# no launcher's variables: rank 0 and the stand-in meet without one
unset "${!SLURM_@}" "${!PMIX_@}" "${!PMI_@}" "${!OMPI_@}" \
	JOB_COMPLETION_INDEX PP_MESH_ID PP_MESH_ROOT 2>/dev/null || true

csv=$out.csv
echo "n,json,pairs,joined,join_s,rounds,round_median_ms,round_mean_ms,round_max_ms,rank0_wall_s,rank0_cpu_s,rank0_peak_rss_mb,out_bytes,exit_status,standin_cpu_s" >"$csv"

# run N JSON(0|1) FAIL(0|1)
run() {
	local n=$1 json=$2 fail=$3 p=$port info s joined
	local jflag=() fflag=()
	port=$((port + 1))
	((json)) && jflag=(--json)
	((fail)) && fflag=(--fail "all:RTR:modify QP to RTR failed: Invalid argument (a modeled fabric fault)")
	(
		ulimit -n $((n + 256)) 2>/dev/null || ulimit -Hn $((n + 256))
		ulimit -n $((n + 256))
		ulimit -v $((mem_gb * 1024 * 1024))
		exec /usr/bin/time -v -o "$tmp/time" "$tool" --mesh \
			--mesh-size "$n" --mesh-root 127.0.0.1 -p "$p" \
			--mesh-join "$join" -T 10 -n 10 "${jflag[@]}" \
			2>"$tmp/err"
	) | tee --output-error=warn-nopipe >(head -c 512 >"$tmp/head") |
		wc -c >"$tmp/bytes" &
	local r0=$!
	: >"$tmp/head"
	sleep 0.2
	(
		ulimit -n $((n + 256)) 2>/dev/null || ulimit -Hn $((n + 256))
		ulimit -n $((n + 256))
		exec "$standin" --port "$p" --size "$n" --root 127.0.0.1 --any \
			--join-s "$join" "${fflag[@]}"
	) >"$tmp/standin" 2>&1 || true
	wait "$r0" || true
	# the "mesh: J of N ranks joined (...)" line: stdout (text) or stderr
	info=$(sed -n 's/^\(.*: \)\{0,1\}mesh: \([0-9,]*\) of [0-9,]* ranks joined (.*/\2/p' \
		"$tmp/head" "$tmp/err" | head -n 1)
	joined=${info//,/}
	s=$tmp/standin
	local join_s rounds med mean max wall cpu rss status scpu
	scpu=$(sed -n 's/^standin: cpu \([0-9.]*\) s user, \([0-9.]*\) s system/\1 \2/p' "$s" |
		awk '{ printf "%.1f", $1 + $2 }')
	join_s=$(sed -n 's/^standin: join: last WELCOME at \([0-9.]*\) s/\1/p' "$s")
	read -r rounds med mean max < <(sed -n 's/^standin: rounds \([0-9]*\): per round median \([0-9.]*\) ms, mean \([0-9.]*\) ms, max \([0-9.]*\) ms/\1 \2 \3 \4/p' "$s") || true
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time" |
		awk -F: '{ t = 0; for (i = 1; i <= NF; i++) t = t * 60 + $i; printf "%.1f", t }')
	cpu=$(awk -F': ' '/User time|System time/ { t += $2 } END { printf "%.1f", t }' "$tmp/time")
	rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$tmp/time")
	status=$(sed -n 's/.*Exit status: //p' "$tmp/time")
	[[ -n $status ]] || status=$(sed -n 's/.*Command terminated by signal \([0-9]*\).*/signal \1/p' "$tmp/time")
	echo "$n,$((json)),$( ((fail)) && echo fail || echo pass),${joined:-?},${join_s:-?},${rounds:-?},${med:-?},${mean:-?},${max:-?},${wall:-?},${cpu:-?},${rss:-?},$(cat "$tmp/bytes"),${status:-?},${scpu:-?}" >>"$csv"
	if [[ -z $joined ]]; then
		sed 's/^/  rank 0: /' "$tmp/err" | tail -n 3 >&2
		sed 's/^/  standin: /' "$s" | tail -n 3 >&2
	fi
	tail -n 1 "$csv" >&2
}

for n in $sizes; do
	for json in 0 1; do
		((json && ${json_max:-n} < n)) && continue
		for fail in 0 1; do
			run "$n" "$json" "$fail"
		done
	done
done

{
	echo "| N | --json | pairs | joined | join (s) | rounds | round median / mean / max (ms) | rank 0 wall (s) | rank 0 CPU (s) | rank 0 peak RSS (MB) | output (bytes) | exit | stand-in CPU (s) |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	tail -n +2 "$csv" | while IFS=, read -r n json pairs joined js rounds med mean max wall cpu rss bytes status scpu; do
		echo "| $n | $( ((json)) && echo yes || echo no) | $pairs | $joined | $js | $rounds | $med / $mean / $max | $wall | $cpu | $rss | $bytes | $status | $scpu |"
	done
} >"$out.md"
cat "$out.md"
