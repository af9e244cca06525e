#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The measuring half of the benchmark: run where an RDMA device exists (the
# Soft-RoCE guest, through tests/bench/bench.sh and tests/softroce/guest.sh,
# or directly on a host with a NIC). Our tools against rdma-core's
# ibv_*_pingpong and perftest's ib_send_lat, alternated, same parameters.
#
# Usage: tests/bench/inside.sh [LOGDIR]
#
# Everything the host needs is printed on stdout as CSV lines that start with
# "PPBENCH," (one per run) or "PPBENCH-INFO," (the machine): in the guest the
# root file system is read-only and /tmp is a tmpfs, so stdout is the only way
# back. Logs of every process go to LOGDIR (default: a temporary directory,
# removed at exit unless PP_BENCH_KEEP=1).
#
# Environment:
#   PP_BIN            build directory with our tools (required)
#   PP_DEV            RDMA device (default rxe0); PP_GID: GID index (default 1)
#   PP_HOST           address the clients connect to (default 127.0.0.1)
#   PP_BENCH_REPS     runs of each tool per size (default 5)
#   PP_BENCH_SECONDS  target length of one run's iterations (default 1)
#   PP_BENCH_SIZES    sizes for rc, uc and srq (default "1 4096 65536 1048576")
#   PP_BENCH_UD_SIZES sizes for ud, at most the MTU (default "1 1024")
#   PP_BENCH_LAT_SIZES sizes against ib_send_lat (default "2 256 4096")
#   PP_BENCH_QPS      -q of both srq tools (default 16)
#   PP_BENCH_SRQ1_SIZES  sizes for srq with -q 1 on both sides, "srq1" (default
#                     "1 4096"): ibv_srq_pingpong keeps one message in flight
#                     per QP, ours one in all, so only -q 1 compares latency
#   PP_BENCH_TRANSPORTS  what to run, in this order, from "rc uc srq srq1 ud
#                     lat" (default: all); sizes >= 64 KiB always come last
#   PP_BENCH_RX_DEPTH -r of every ping-pong tool (default 500)
#   PP_BENCH_PIN      1 (default): run every server on CPU 0 and every client
#                     on CPU 1 (taskset), ours and theirs alike; 0: let the
#                     scheduler place them
#   PP_BENCH_BUDGET   seconds after which the remaining sizes are skipped
#                     (default 1200)
#
# Run lines: PPBENCH,KIND,TRANSPORT,SIZE,ITERS,REP,WHO,STATUS,USEC_ITER,X,WALL,
#            POST,RTT_MEAN,SPOST
#   KIND   pilot (calibrates ITERS), pp (ping-pong vs stock), lat (vs
#          ib_send_lat)
#   WHO    ours or stock (ibv_*_pingpong) or perftest (ib_send_lat)
#   USEC_ITER  the "usec/iter" figure (round trip); for perftest empty
#   X      ours: median round trip in usec; perftest: t_typical (one way)
#          and t_avg, as "typical;avg"
#   WALL   seconds the run took, start-up included
#   POST   ours: the client's mean time inside ibv_post_send, usec (its
#          "post_send usec:" line); empty for the others
#   RTT_MEAN  ours: the mean round trip of the "latency usec:" line
#   SPOST  ours: the server's mean time inside ibv_post_send, usec
set -euo pipefail
# The bed's emulated CPU has no constant_tsc: left to themselves our tools
# would time with CLOCK_MONOTONIC and run their general loops only. They
# run what a host with an invariant TSC runs (docs/measurement.md, "The
# clock"); benchmarks.md says so.
export PP_CLOCK=${PP_CLOCK-cycles}

PP_DEV=${PP_DEV:-rxe0}
PP_GID=${PP_GID:-1}
PP_HOST=${PP_HOST:-127.0.0.1}
bin=${PP_BIN:?PP_BIN must name the build directory}
reps=${PP_BENCH_REPS:-5}
target=${PP_BENCH_SECONDS:-1}
read -r -a sizes <<<"${PP_BENCH_SIZES:-1 4096 65536 1048576}"
read -r -a ud_sizes <<<"${PP_BENCH_UD_SIZES:-1 1024}"
read -r -a lat_sizes <<<"${PP_BENCH_LAT_SIZES:-2 256 4096}"
qps=${PP_BENCH_QPS:-16}
read -r -a srq1_sizes <<<"${PP_BENCH_SRQ1_SIZES:-1 4096}"
read -r -a transports <<<"${PP_BENCH_TRANSPORTS:-rc uc srq srq1 ud lat}"
rx=${PP_BENCH_RX_DEPTH:-500}
budget=${PP_BENCH_BUDGET:-1200}
min_iters=20
max_iters=200000
# Seconds any one process may take: the target 20 times over, plus start-up.
limit=$(awk -v t="$target" 'BEGIN { printf "%d", 60 + 20 * t }')

keep=${PP_BENCH_KEEP:-0}
if [[ -n ${1:-} ]]; then
	logs=$1
	keep=1
	mkdir -p "$logs"
else
	logs=$(mktemp -d "${TMPDIR:-/tmp}/pp-bench.XXXXXX")
fi
cleanup() {
	local pid
	for pid in $(jobs -p); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	[[ $keep == 1 ]] || rm -rf "$logs"
}
trap cleanup EXIT

port=$((20000 + RANDOM % 20000))
runno=0

info() {
	printf 'PPBENCH-INFO,%s,%s\n' "$1" "${2//,/;}"
}

# Both ends run on this machine. Two processes that spin on their CQs and
# share one CPU hand over to each other only at timer ticks (4 ms at
# HZ=250), so where the scheduler happens to put them would decide the
# result: pin them apart, the same way for every tool.
pin_srv=() pin_cli=()
pin=no
if [[ ${PP_BENCH_PIN:-1} == 1 ]] && (($(nproc) >= 2)) &&
	command -v taskset >/dev/null; then
	pin_srv=(taskset -c 0)
	pin_cli=(taskset -c 1)
	pin="server on CPU 0; client on CPU 1"
fi

# Our binaries, checked once.
declare -A ours
for t in rc_pingpong ud_pingpong srq_pingpong; do
	ours[$t]=$bin/$t/$t
	[[ -x ${ours[$t]} ]] || {
		echo "inside.sh: ${ours[$t]} is missing (build first)" >&2
		exit 1
	}
done

# A FIFO nobody writes to: "read -t" on it sleeps without starting a
# process (every fork is slow in an emulated guest). Not <(:): the guest's
# /dev has no /dev/fd.
mkfifo "$logs/nap"
exec {nap_fd}<>"$logs/nap"
nap() {
	read -r -t "$1" -u "$nap_fd" _ || true
}

# listening PORT: is a TCP socket listening on PORT? Reads /proc directly.
listening() {
	local hex f _sl laddr _rem st _rest
	printf -v hex '%04X' "$1"
	for f in /proc/net/tcp /proc/net/tcp6; do
		[[ -r $f ]] || continue
		while read -r _sl laddr _rem st _rest; do
			[[ $st == 0A && ${laddr##*:} == "$hex" ]] && return 0
		done <"$f"
	done
	return 1
}

# wait_port PORT PID: until something listens on TCP PORT (at most 60 s).
wait_port() {
	local i
	for ((i = 0; i < 1200; i++)); do
		listening "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		nap 0.05
	done
	return 1
}

# server_client SECONDS SERVER_CMD... -- CLIENT_CMD...: one run on a fresh
# port (the commands contain the literal word PORT). Leaves the client's
# output in $log.c, the server's in $log.s; returns the first failing status.
server_client() {
	local limit=$1 spid st=0 sst=0 a
	local -a srv=() cli=()
	shift
	while (($#)) && [[ $1 != -- ]]; do
		srv+=("${1//PORT/$port}")
		shift
	done
	shift
	for a in "$@"; do
		cli+=("${a//PORT/$port}")
	done
	runno=$((runno + 1))
	log=$logs/run$runno
	printf '%s\n' "${srv[*]}" "${cli[*]}" >"$log.cmd"
	timeout -k 5 "$limit" "${pin_srv[@]}" "${srv[@]}" >"$log.s" 2>&1 &
	spid=$!
	if wait_port "$port" "$spid"; then
		timeout -k 5 "$limit" "${pin_cli[@]}" "${cli[@]}" >"$log.c" 2>&1 ||
			st=$?
	else
		echo "server did not listen" >"$log.c"
		st=98
	fi
	wait "$spid" || sst=$?
	port=$((port + 1))
	((port < 65000)) || port=20000
	((st != 0)) || st=$sst
	return "$st"
}

# usec_iter FILE: the number of "N iters in T seconds = X usec/iter".
usec_iter() {
	sed -n 's/.* iters in [0-9.]* seconds = \([0-9.]*\) usec\/iter.*/\1/p' "$1" |
		head -n 1
}

# median_rtt FILE: the median of our "latency usec:" line.
median_rtt() {
	sed -n 's/^latency usec:.* median \([0-9.]*\) .*/\1/p' "$1" | head -n 1
}

# mean_rtt FILE: the mean of our "latency usec:" line.
mean_rtt() {
	sed -n 's/^latency usec:.* mean \([0-9.]*\) .*/\1/p' "$1" | head -n 1
}

# post_mean FILE: the mean of our "post_send usec:" line.
post_mean() {
	sed -n 's/^post_send usec:.* mean \([0-9.]*\) .*/\1/p' "$1" | head -n 1
}

# perftest_lat FILE SIZE: "typical;avg" from ib_send_lat's result row:
# #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
perftest_lat() {
	awk -v s="$2" '$1 == s && NF >= 6 && $2 ~ /^[0-9]+$/ {
		print $5 ";" $6; exit }' "$1"
}

# pp_cmds WHO TRANSPORT SIZE ITERS: fill srv and cli for one ping-pong run.
pp_cmds() {
	local who=$1 tr=$2 size=$3 n=$4 q=$qps
	local -a common=(-s "$size" -n "$n" -r "$rx" -p PORT)
	srv=()
	cli=()
	if [[ $tr == srq1 ]]; then
		tr=srq
		q=1
	fi
	if [[ $who == ours ]]; then
		case $tr in
		rc | uc) srv=("${ours[rc_pingpong]}") ;;
		ud) srv=("${ours[ud_pingpong]}") ;;
		srq) srv=("${ours[srq_pingpong]}") ;;
		esac
		# Our server adopts the client's parameters.
		cli=("${srv[0]}" -d "$PP_DEV" -g "$PP_GID" "${common[@]}")
		srv+=(-d "$PP_DEV" -p PORT)
		[[ $tr != uc ]] || cli+=(--uc)
		[[ $tr != srq ]] || cli+=(-q "$q")
	else
		srv=("ibv_${tr}_pingpong" -d "$PP_DEV" -g "$PP_GID" "${common[@]}")
		[[ $tr != srq ]] || srv+=(-q "$q")
		cli=("${srv[@]}")
	fi
	cli+=("$PP_HOST")
}

# pp_run KIND WHO TRANSPORT SIZE ITERS REP: one run, one PPBENCH line;
# the usec/iter figure also in $last_usec (empty on failure).
pp_run() {
	local kind=$1 who=$2 tr=$3 size=$4 n=$5 rep=$6 st=0 x='' t0=$EPOCHREALTIME
	local post='' mean='' spost=''
	local -a srv cli
	pp_cmds "$who" "$tr" "$size" "$n"
	server_client "$limit" "${srv[@]}" -- "${cli[@]}" ||
		st=$?
	last_usec=$(usec_iter "$log.c")
	if [[ $who == ours ]]; then
		x=$(median_rtt "$log.c")
		post=$(post_mean "$log.c")
		mean=$(mean_rtt "$log.c")
		spost=$(post_mean "$log.s")
	fi
	if ((st != 0)) || [[ -z $last_usec ]]; then
		((st != 0)) || st=99
		last_usec=
		echo "inside.sh: $kind $who $tr $size B -n $n failed ($st):" >&2
		tail -n 3 "$log.c" "$log.s" | sed 's/^/    /' >&2
	fi
	printf 'PPBENCH,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$kind" \
		"$tr" "$size" "$n" "$rep" "$who" "$st" "$last_usec" "$x" \
		"$(wall "$t0")" "$post" "$mean" "$spost"
}

# lat_run SIZE ITERS REP: ib_send_lat once.
lat_run() {
	local size=$1 n=$2 rep=$3 st=0 x t0=$EPOCHREALTIME
	local -a srv=(ib_send_lat -d "$PP_DEV" -x "$PP_GID" -s "$size" -n "$n"
		-p PORT -F)
	server_client "$limit" "${srv[@]}" -- \
		"${srv[@]}" "$PP_HOST" || st=$?
	x=$(perftest_lat "$log.c" "$size")
	if ((st != 0)) || [[ -z $x ]]; then
		((st != 0)) || st=99
		echo "inside.sh: ib_send_lat $size B -n $n failed ($st):" >&2
		tail -n 3 "$log.c" "$log.s" | sed 's/^/    /' >&2
	fi
	printf 'PPBENCH,lat,rc,%s,%s,%s,perftest,%s,,%s,%s,,,\n' "$size" "$n" \
		"$rep" "$st" "$x" "$(wall "$t0")"
}

# wall T0: seconds since $EPOCHREALTIME was T0, with one decimal.
wall() {
	local us=$((${EPOCHREALTIME/./} - ${1/./}))
	printf '%d.%d' $((us / 1000000)) $((us / 100000 % 10))
}

# over_budget: has the benchmark used up PP_BENCH_BUDGET seconds? Then the
# rest is skipped (and said so), so that a slow machine still reports what
# it measured before guest.sh's --timeout kills it.
over_budget() {
	((SECONDS - start > budget))
}

# pilot_iters SIZE: a small -n for the calibration run.
pilot_iters() {
	if (($1 >= 1048576)); then
		echo 10
	elif (($1 >= 65536)); then
		echo 30
	else
		echo 200
	fi
}

# calibrate TRANSPORT SIZE: set $iters so that one run takes about $target
# seconds, from a short run of the stock tool (ours if the stock one fails),
# rounded to two significant digits. Fails if both tools fail.
calibrate() {
	local tr=$1 size=$2 p who
	p=$(pilot_iters "$size")
	for who in stock ours; do
		pp_run pilot "$who" "$tr" "$size" "$p" 0
		[[ -z $last_usec ]] || break
	done
	[[ -n $last_usec ]] || return 1
	iters=$(awk -v t="$target" -v u="$last_usec" -v lo="$min_iters" \
		-v hi="$max_iters" 'BEGIN {
		n = t * 1e6 / (u > 0 ? u : 1)
		m = 1; while (n >= 100) { n /= 10; m *= 10 }
		n = int(n + 0.5) * m
		if (n < lo) n = lo; if (n > hi) n = hi
		print n }')
}

# compare TRANSPORT SIZE...: calibrate, then ours/stock alternated.
compare() {
	local tr=$1 size rep
	shift
	for size in "$@"; do
		if over_budget; then
			info skipped "$tr $size B (over budget)"
			continue
		fi
		if ! calibrate "$tr" "$size"; then
			echo "inside.sh: $tr $size B: no tool ran, skipped" >&2
			continue
		fi
		for ((rep = 1; rep <= reps; rep++)); do
			pp_run pp ours "$tr" "$size" "$iters" "$rep"
			pp_run pp stock "$tr" "$size" "$iters" "$rep"
		done
	done
}

# Our rc against ib_send_lat: same -s and -n, alternated.
compare_lat() {
	local size rep
	for size in "$@"; do
		if over_budget; then
			info skipped "lat $size B (over budget)"
			continue
		fi
		if ! calibrate rc "$size"; then
			echo "inside.sh: lat $size B: no tool ran, skipped" >&2
			continue
		fi
		for ((rep = 1; rep <= reps; rep++)); do
			pp_run lat ours rc "$size" "$iters" "$rep"
			lat_run "$size" "$iters" "$rep"
		done
	done
}

start=$SECONDS
info nproc "$(nproc)"
info cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
info kernel "$(uname -r)"
info device "$PP_DEV"
info gid "$PP_GID"
info mtu "$(ibv_devinfo -d "$PP_DEV" 2>/dev/null |
	sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p' | head -n 1)"
info rdma_core "$(dpkg-query -W -f '${Version}' ibverbs-utils 2>/dev/null || echo unknown)"
info perftest "$(dpkg-query -W -f '${Version}' perftest 2>/dev/null || echo unknown)"
info reps "$reps"
info target_seconds "$target"
info rx_depth "$rx"
info srq_qps "$qps"
info pin "$pin"
info date "$(date -u '+%Y-%m-%d %H:%M UTC')"

# Large messages last: if the budget runs out, they are what is lost.
small=() large=()
for s in "${sizes[@]}"; do
	if ((s < 65536)); then small+=("$s"); else large+=("$s"); fi
done
for tr in "${transports[@]}"; do
	case $tr in
	rc | uc | srq) compare "$tr" "${small[@]}" ;;
	srq1) compare srq1 "${srq1_sizes[@]}" ;;
	ud) compare ud "${ud_sizes[@]}" ;;
	lat) compare_lat "${lat_sizes[@]}" ;;
	*) echo "inside.sh: unknown transport $tr" >&2 ;;
	esac
done
for tr in "${transports[@]}"; do
	case $tr in
	rc | uc | srq) compare "$tr" "${large[@]}" ;;
	esac
done

info elapsed_seconds $((SECONDS - start))
