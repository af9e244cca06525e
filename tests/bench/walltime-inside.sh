#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The measuring half of the paired wall-clock comparison
# (tests/bench/walltime.sh): run where an RDMA device exists (the Soft-RoCE
# guest). For each row, PAIRS pairs of short runs, the two tools of a pair
# back to back, the order of the pair alternating (A B, B A, A B, ...), so
# that a drift of the machine weighs on both alike. Send rows: ours against
# ibv_*_pingpong (rc, uc, ud, srq with -q 1 on both sides), and the A/A row:
# ibv_rc_pingpong against itself, which shows what the bed can resolve; the
# figure of a run is the client's usec/iter. One-sided rows: rc_pingpong
# --op write / --op read against perftest's ib_write_lat / ib_read_lat, and
# their A/A row (ib_write_lat against itself); the figure is perftest's
# t_typical (the median) and what it means: half a round trip for Write
# (both sides write, as ours), one Read for Read; so ours gives its median
# round trip over 2 for Write, its median for Read.
#
# Prints one line per run on stdout:
#   PPWALL,ROW,PAIR,WHO,STATUS,FIGURE   (WHO: a or b; a is ours)
# and PPWALL-INFO lines.
#
# Environment:
#   PP_BIN      build directory with our tools (required)
#   PP_DEV, PP_GID, PP_HOST   as in inside.sh (rxe0, 1, 127.0.0.1)
#   PP_WALL_PAIRS   pairs per row (default 30)
#   PP_WALL_ROWS    rows, from "rc:1 rc:4096 uc:1 ud:1 srq1:1 aa:1" (Send)
#                   and "write:1 write:4096 read:1 read:4096 aaw:1"
#                   (one-sided); default: the Send rows
#   PP_WALL_ITERS   -n per run, as "ROW=N ..." overrides of the defaults
#                   (1 byte: 8000; 4096 bytes: 1500): runs of a fraction of a
#                   second
#   PP_WALL_PIN     1 (default): servers on CPU 0, clients on CPU 1
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
pairs=${PP_WALL_PAIRS:-30}
read -r -a rows <<<"${PP_WALL_ROWS:-rc:1 rc:4096 uc:1 ud:1 srq1:1 aa:1}"
logs=$(mktemp -d /run/pp-wall.XXXXXX)
port=$((20000 + RANDOM % 20000))
trap 'rm -rf "$logs"' EXIT

pin_srv=() pin_cli=()
if [[ ${PP_WALL_PIN:-1} == 1 ]] && (($(nproc) >= 2)) &&
	command -v taskset >/dev/null; then
	pin_srv=(taskset -c 0)
	pin_cli=(taskset -c 1)
fi
echo "PPWALL-INFO,pin,${pin_srv[*]:-none} / ${pin_cli[*]:-none}"
echo "PPWALL-INFO,pairs,$pairs"
echo "PPWALL-INFO,kernel,$(uname -r)"
echo "PPWALL-INFO,date,$(date -u '+%Y-%m-%d %H:%M UTC')"

mkfifo "$logs/nap"
exec {nap_fd}<>"$logs/nap"
nap() { read -r -t "$1" -u "$nap_fd" _ || true; }

# listening PORT: is a TCP socket listening on PORT? (/proc, no fork)
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

# figure TR WHO: the figure of the client's output ($logs/c) for row
# transport TR, as the header says.
figure() {
	case $1:$2 in
	write:ours | read:ours)
		sed -n 's/^latency usec: n [0-9]* min [0-9.]* median \([0-9.]*\) .*/\1/p' \
			"$logs/c" | head -n 1 |
			awk -v d="$([[ $1 == write ]] && echo 2 || echo 1)" \
				'{ printf "%.3f\n", $1 / d }'
		;;
	write:* | read:* | aaw:*)
		# perftest's table row: #bytes #iterations t_min t_max t_typical ...
		awk '$1 ~ /^[0-9]+$/ && NF >= 9 && $5 ~ /^[0-9.]+$/ { print $5; exit }' \
			"$logs/c"
		;;
	*)
		sed -n 's/.* iters in [0-9.]* seconds = \([0-9.]*\) usec\/iter.*/\1/p' \
			"$logs/c" | head -n 1
		;;
	esac
}

# run WHO ROW N: one server and one client on a fresh port; prints the
# client's figure (empty on failure), returns the status.
run() {
	local who=$1 row=$2 n=$3 tr size spid st=0 sst=0 i
	local -a srv cli
	tr=${row%%:*}
	size=${row#*:}
	port=$((port + 1))
	((port < 65000)) || port=20000
	local -a common=(-s "$size" -n "$n" -r 500 -p "$port")
	if [[ $tr == write || $tr == read || $tr == aaw ]]; then
		if [[ $who == ours ]]; then
			srv=("$bin/rc_pingpong/rc_pingpong" -d "$PP_DEV" -p "$port")
			cli=("${srv[0]}" -d "$PP_DEV" -g "$PP_GID" --op "$tr" \
				-s "$size" -n "$n" -p "$port")
		else
			local t=$tr
			[[ $t != aaw ]] || t="write"
			srv=("ib_${t}_lat" -d "$PP_DEV" -x "$PP_GID" -s "$size" \
				-n "$n" -p "$port")
			cli=("${srv[@]}")
		fi
	elif [[ $who == ours ]]; then
		case $tr in
		rc | uc) srv=("$bin/rc_pingpong/rc_pingpong") ;;
		ud) srv=("$bin/ud_pingpong/ud_pingpong") ;;
		srq1) srv=("$bin/srq_pingpong/srq_pingpong") ;;
		esac
		cli=("${srv[0]}" -d "$PP_DEV" -g "$PP_GID" "${common[@]}")
		srv+=(-d "$PP_DEV" -p "$port")
		[[ $tr != uc ]] || cli+=(--uc)
		[[ $tr != srq1 ]] || cli+=(-q 1)
	else
		local t=$tr
		[[ $t != aa ]] || t=rc
		[[ $t != srq1 ]] || t=srq
		srv=("ibv_${t}_pingpong" -d "$PP_DEV" -g "$PP_GID" "${common[@]}")
		[[ $t != srq ]] || srv+=(-q 1)
		cli=("${srv[@]}")
	fi
	cli+=("$PP_HOST")
	timeout -k 5 120 "${pin_srv[@]}" "${srv[@]}" >"$logs/s" 2>&1 &
	spid=$!
	for ((i = 0; i < 1200; i++)); do
		listening "$port" && break
		kill -0 "$spid" 2>/dev/null || break
		nap 0.05
	done
	timeout -k 5 120 "${pin_cli[@]}" "${cli[@]}" >"$logs/c" 2>&1 || st=$?
	wait "$spid" || sst=$?
	((st != 0)) || st=$sst
	figure "$tr" "$who"
	return "$st"
}

for row in "${rows[@]}"; do
	size=${row#*:}
	n=8000
	((size < 4096)) || n=1500
	for kv in ${PP_WALL_ITERS:-}; do
		[[ ${kv%%=*} != "$row" ]] || n=${kv#*=}
	done
	echo "PPWALL-INFO,iters:$row,$n"
	a=ours
	[[ ${row%%:*} != aa && ${row%%:*} != aaw ]] || a=stock
	for ((p = 1; p <= pairs; p++)); do
		order=(a b)
		((p % 2)) || order=(b a)
		for w in "${order[@]}"; do
			who=stock
			[[ $w != a ]] || who=$a
			st=0
			u=$(run "$who" "$row" "$n") || st=$?
			[[ -n $u ]] || ((st != 0)) || st=99
			echo "PPWALL,$row,$p,$w,$st,$u"
			((st == 0)) || {
				echo "walltime: $row pair $p $w ($who) failed ($st):" >&2
				tail -n 3 "$logs/c" "$logs/s" | sed 's/^/    /' >&2
			}
		done
	done
	echo "walltime: $row done (-n $n)" >&2
done
