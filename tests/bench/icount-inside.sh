#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The measuring half of the instruction-count benchmark (tests/bench/icount.sh):
# run where an RDMA device exists (the Soft-RoCE guest). For each tool and
# size, the client runs under valgrind's callgrind twice, with N1 and N2
# round trips (the server runs natively, polling, as the client does); our
# client's profile is cut at the loop (--dump-before/--dump-after
# pp_run_client_loop), and perftest's at its loop function, which two
# shorter runs find first. The srv-* rows turn that round: the server runs
# under callgrind (ours cut at pp_run_server_loop), the client natively.
# tests/bench/cgsplit.py turns the two profiles into
# user-space instructions per round trip: the difference over N2 - N1, so
# that start-up and tear-down cancel out. Callgrind counts instructions, not
# time: the figures repeat from run to run, whatever else the machine does,
# except for the empty polls, which depend on timing: they are counted, and
# a third run of N2 round trips, during which the server is stopped for
# PP_ICOUNT_PAUSE_MS so that the client polls an empty CQ all that time,
# gives what one more poll costs (cgsplit.py), to take them out. An RDMA
# Write client (ours, ib_write_lat) waits looking at the last byte of the
# peer's message instead: its three runs count conditional jumps
# (--dump-instr=yes --collect-jumps=yes), and its third run, the server
# stopped again, gives what one more look costs (cgsplit.py's
# PPICOUNT-LOOK).
#
# Prints the PPICOUNT lines of cgsplit.py per tool and size, and
# PPICOUNT-INFO lines, on stdout; then PPRSS lines: the resident memory of a
# long -D run (PP_ICOUNT_RSS_SECONDS, default 0: none) on each side, read
# from /proc while it runs.
#
# Environment:
#   PP_BIN    build directory with our tools (required)
#   PP_DEV    RDMA device (default rxe0); PP_GID: GID index (default 1)
#   PP_HOST   address the clients connect to (default 127.0.0.1)
#   PP_ICOUNT_N1, PP_ICOUNT_N2   round trips of the two runs (default 500, 2500)
#   PP_ICOUNT_FIND  round trips of the first of the two runs that find
#             perftest's loop function (default 100; the second: 3 times)
#   PP_ICOUNT_PAUSE_MS  the calibration run's pause of the server (default
#             400, some 600 under emulation: below a UD or UC client's 1 s
#             deadline for a reply at the default -T of 5 s; 0: none)
#   PP_ICOUNT_CASES  which rows to run (default: all), from
#             "rc uc ud srq stock-rc stock-uc stock-ud stock-srq lat" (Send;
#             "multi", not in the default: rc_pingpong -q 2, whose client
#             takes the general loop where every other row of ours takes the
#             lean one, docs/dev/loop.md)
#             "rc-N" (rc_pingpong -N: the sends posted by ibv_wr_*()),
#             "mono" (rc_pingpong under PP_CLOCK=monotonic, both sides:
#             the lean loop on CLOCK_MONOTONIC, one read per round trip),
#             and "write read fetch-add lat-write lat-read lat-atomic"
#             (rc_pingpong --op write, --op read, --op fetch-add; perftest's
#             ib_write_lat, ib_read_lat, ib_atomic_lat; the atomics at 8
#             bytes, once, whatever the sizes), and
#             "srv-rc srv-ud srv-srq srv-stock-rc srv-stock-ud
#             srv-stock-srq" (the server under callgrind, the client
#             native: ours cut at pp_run_server_loop, the stock servers'
#             loop found as their clients' is)
#   PP_ICOUNT_SIZES  sizes (default "1 4096"; ud stops at 1024)
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
n1=${PP_ICOUNT_N1:-500}
n2=${PP_ICOUNT_N2:-2500}
pause_ms=${PP_ICOUNT_PAUSE_MS:-400}
nfind=${PP_ICOUNT_FIND:-100}
jumps=0 # row(): count jumps (--collect-jumps), for a Write row's looks
read -r -a cases <<<"${PP_ICOUNT_CASES:-rc rc-N mono uc ud srq stock-rc stock-uc stock-ud stock-srq lat write read fetch-add lat-write lat-read lat-atomic srv-rc srv-ud srv-srq srv-stock-rc srv-stock-ud srv-stock-srq}"
read -r -a sizes <<<"${PP_ICOUNT_SIZES:-1 4096}"
here=$(dirname "$(realpath -- "${BASH_SOURCE[0]}")")
# valgrind's files stay off 9p (a shared mmap there fails): /run is a tmpfs.
work=$(mktemp -d /run/pp-icount.XXXXXX)
port=$((30000 + RANDOM % 10000))
trap 'rm -rf "$work"; kill $(jobs -p) 2>/dev/null || true' EXIT
export TMPDIR=$work

command -v valgrind >/dev/null || {
	echo "icount: valgrind is not installed" >&2
	exit 1
}
echo "PPICOUNT-INFO,valgrind,$(valgrind --version)"
echo "PPICOUNT-INFO,kernel,$(uname -r)"
echo "PPICOUNT-INFO,n,$n1,$n2"
echo "PPICOUNT-INFO,pause,$pause_ms"
echo "PPICOUNT-INFO,find,$nfind,$((3 * nfind))"

# wait_listen PORT PID: until something listens on PORT (at most 30 s).
wait_listen() {
	local i
	for ((i = 0; i < 600; i++)); do
		[[ -z $(ss -Hltn "sport = :$1") ]] || return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# sent_pkts: the packets rxe has sent so far (0 where it does not say).
sent_pkts() {
	cat "/sys/class/infiniband/$PP_DEV/ports/1/hw_counters/sent_pkts" \
		2>/dev/null || echo 0
}

# pause_server PID: once the loop runs (rxe has sent 200 more packets),
# stop the server for $pause_ms ms, so that the client polls an empty CQ
# all that time: the calibration run of row(). PID is the timeout wrapper:
# the server is its child (a stopped wrapper stops nothing: before, every
# calibration's extra polls were the timing's, a few thousand at most).
pause_server() {
	local p0 i tool t0
	p0=$(sent_pkts)
	for ((i = 0; i < 1200; i++)); do
		(($(sent_pkts) - p0 >= 200)) && break
		sleep 0.05
	done
	tool=$(pgrep -P "$1") || return 0
	t0=$(date +%s%N)
	kill -STOP "$tool" 2>/dev/null || return 0
	sleep "$(printf '%d.%03d' $((pause_ms / 1000)) $((pause_ms % 1000)))"
	kill -CONT "$tool" 2>/dev/null || true
	echo "icount: server $tool stopped for $((($(date +%s%N) - t0) / 1000000)) ms" >&2
}

# one LABEL LOOPFN N OUT [--pause] -- SERVER... -- CLIENT...: one server
# and one client run under callgrind, its profile in OUT (and OUT.1, OUT.2
# with LOOPFN: before the loop, the loop; OUT is then what came after).
# --pause: the server is stopped for a while during the loop.
one() {
	local label=$1 loopfn=$2 n=$3 out=$4 spid st arg t0 pause=0 ppid=
	shift 4
	[[ $1 != --pause ]] || {
		pause=1
		shift
	}
	local -a srv=() cli=()
	[[ $1 == -- ]] && shift
	while [[ $1 != -- ]]; do
		srv+=("${1//@N@/$n}")
		shift
	done
	shift
	for arg in "$@"; do cli+=("${arg//@N@/$n}"); done
	local -a vg=(valgrind --tool=callgrind --vgdb=no
		--compress-strings=no --compress-pos=no
		--callgrind-out-file="$out")
	# a Write row: each conditional jump counted (cgsplit.py's looks)
	((!jumps)) || vg+=(--dump-instr=yes --collect-jumps=yes)
	[[ $loopfn == - ]] ||
		vg+=("--dump-before=$loopfn" "--dump-after=$loopfn")
	port=$((port + 1))
	# a server row (srv-*): the server under callgrind, the client native
	local -a svg=() cvg=("${vg[@]}")
	[[ $label != srv-* ]] || {
		svg=("${vg[@]}")
		cvg=()
	}
	timeout -k 5 600 "${svg[@]}" "${srv[@]//@P@/$port}" >"$out.srv" 2>&1 &
	spid=$!
	wait_listen "$port" "$spid" || {
		echo "icount: $label server did not listen:" >&2
		cat "$out.srv" >&2
		return 1
	}
	st=0
	t0=$SECONDS
	if ((pause)); then
		pause_server "$spid" &
		ppid=$!
	fi
	timeout -k 5 600 "${cvg[@]}" "${cli[@]//@P@/$port}" \
		>"$out.cli" 2>&1 || st=$?
	[[ -z $ppid ]] || wait "$ppid" || true
	if [[ $label == srv-* ]]; then
		wait "$spid" || st=$?
	else
		wait "$spid" || true
	fi
	echo "icount: $label -n $n: $((SECONDS - t0)) s" >&2
	if ((st != 0)); then
		echo "icount: $label failed ($st):" >&2
		tail -n 5 "$out.cli" "$out.srv" >&2
		return 1
	fi
}

# row LABEL TOOL LOOPFN -- SERVER... -- CLIENT...: both N, and N2 again
# with the server paused (the cost of an empty poll, see cgsplit.py), then
# the PPICOUNT lines of cgsplit.py. LOOPFN "?": the tool's loop function is
# learned first, from two runs of PP_ICOUNT_FIND round trips and 3 times as
# many (cgsplit.py --find: perftest's binaries are stripped, callgrind
# names its functions by address), and the profiles are cut there as ours
# are (PPICOUNT-LOOPFN names it); "-": not cut (the stock tools, whose
# loop is main).
row() {
	local label=$1 tool=$2 loopfn=$3 a=$work/$1.$n1 b=$work/$1.$n2
	local c=$work/$1.cal f=$work/$1.find nf=$nfind
	shift 3
	a=${a//:/_}
	b=${b//:/_}
	c=${c//:/_}
	f=${f//:/_}
	if [[ $loopfn == "?" ]]; then
		jumps=0 one "$label" - "$nf" "$f.1" "$@" || return 0
		jumps=0 one "$label" - "$((3 * nf))" "$f.3" "$@" || return 0
		loopfn=$(python3 "$here/cgsplit.py" --find "$tool" \
			"$nf" "$f.1" "$((3 * nf))" "$f.3") || {
			echo "icount: $label: no loop function found" >&2
			return 0
		}
		echo "PPICOUNT-LOOPFN,$label,$loopfn"
	fi
	one "$label" "$loopfn" "$n1" "$a" "$@" || return 0
	one "$label" "$loopfn" "$n2" "$b" "$@" || return 0
	((pause_ms > 0)) && one "$label" "$loopfn" "$n2" "$c" --pause "$@" ||
		c=
	local -a loop=()
	[[ $loopfn == - ]] || loop=(--loop "$loopfn")
	python3 "$here/cgsplit.py" "${loop[@]}" "$label" "$tool" "$n1" "$a" \
		"$n2" "$b" ${c:+"$c"} || echo "icount: $label: cgsplit.py failed" >&2
}

g=(-d "$PP_DEV" -g "$PP_GID")
for c in "${cases[@]}"; do
	for s in "${sizes[@]}"; do
		case $c in
		ud | stock-ud | srv-ud | srv-stock-ud) ((s <= 1024)) || s=1024 ;;
		fetch-add | lat-atomic)
			# one 8-byte word, one row
			[[ $s == "${sizes[0]}" ]] || continue
			s=8
			;;
		esac
		case $c in
		rc | rc-N | mono | uc | ud | srq | multi | srv-rc | srv-ud | srv-srq | srv-multi)
			# srv-*: our server under callgrind, cut at its loop; the
			# client native; no calibration (the client would be the
			# one stopped): the section gives the polls raw
			t=${c#srv-}
			tool=${t/uc/rc}_pingpong
			extra=()
			[[ $t != uc ]] || extra=(--uc)
			[[ $t != srq ]] || extra=(-q 1)
			[[ $t != multi ]] || tool=rc_pingpong extra=(-q 2)
			who=ours fn=pp_run_client_loop pms=$pause_ms
			[[ $t != rc-N ]] ||
				t=rc tool=rc_pingpong extra=(-N) who=ours-N
			clock=$PP_CLOCK
			[[ $t != mono ]] ||
				t=rc tool=rc_pingpong who=ours-mono clock=monotonic
			[[ $c != srv-* ]] ||
				who=srv-ours fn=pp_run_server_loop pms=0
			PP_CLOCK=$clock pause_ms=$pms row "$who:$t:$s" "$tool" "$fn" -- \
				"$bin/$tool/$tool" "${g[@]}" -p @P@ -- \
				"$bin/$tool/$tool" "${g[@]}" -p @P@ -s "$s" -n @N@ \
				-r 500 "${extra[@]}" "$PP_HOST"
			;;
		stock-* | srv-stock-*)
			t=${c#srv-}
			t=${t#stock-}
			tool=ibv_${t}_pingpong
			extra=()
			[[ $t != srq ]] || extra=(-q 1)
			who=stock pms=$pause_ms
			[[ $c != srv-* ]] || who=srv-stock pms=0
			pause_ms=$pms row "$who:$t:$s" "$tool" - -- "$tool" "${g[@]}" -p @P@ \
				-s "$s" -n @N@ -r 500 "${extra[@]}" -- \
				"$tool" "${g[@]}" -p @P@ -s "$s" -n @N@ -r 500 \
				"${extra[@]}" "$PP_HOST"
			;;
		lat)
			row "perftest:rc:$s" ib_send_lat "?" -- \
				ib_send_lat -d "$PP_DEV" -x "$PP_GID" -s "$s" -n @N@ -p @P@ -- \
				ib_send_lat -d "$PP_DEV" -x "$PP_GID" -s "$s" -n @N@ -p @P@ \
				"$PP_HOST"
			;;
		write | read | fetch-add)
			# the one-sided client loops of common/verbs/pp_run_rdma.c.
			# A write's client waits looking at the last byte: its
			# calibration run stops the server, and the three runs
			# count jumps (the looks, cgsplit.py); a read or an atomic
			# needs no server process: no calibration, the polls raw
			fn=write_client pms=$pause_ms j=1
			[[ $c == write ]] || fn=request_client pms=0 j=0
			tool=rc_pingpong
			jumps=$j pause_ms=$pms row "ours:$c:$s" "$tool" "$fn" -- "$bin/$tool/$tool" "${g[@]}" -p @P@ -- \
				"$bin/$tool/$tool" "${g[@]}" -p @P@ --op "$c" -s "$s" -n @N@ \
				"$PP_HOST"
			;;
		lat-write | lat-read)
			t=ib_${c#lat-}_lat
			pms=0 j=0
			[[ $c != lat-write ]] || pms=$pause_ms j=1
			jumps=$j pause_ms=$pms row "perftest:${c#lat-}:$s" "$t" "?" -- \
				"$t" -d "$PP_DEV" -x "$PP_GID" -s "$s" -n @N@ -p @P@ -- \
				"$t" -d "$PP_DEV" -x "$PP_GID" -s "$s" -n @N@ -p @P@ \
				"$PP_HOST"
			;;
		lat-atomic)
			# its default, FETCH_AND_ADD, on 8 bytes
			t=ib_atomic_lat
			pause_ms=0 row "perftest:fetch-add:$s" "$t" "?" -- \
				"$t" -d "$PP_DEV" -x "$PP_GID" -n @N@ -p @P@ -- \
				"$t" -d "$PP_DEV" -x "$PP_GID" -n @N@ -p @P@ \
				"$PP_HOST"
			;;
		esac
	done
done

# hwm PID: the peak resident memory of PID so far, kB (0 once it is gone).
hwm() {
	sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" \
		2>/dev/null || echo 0
}

# The resident memory of a long -D run, both sides: PPRSS,SECONDS,ITERS,
# CLIENT_KB,SERVER_KB (peak, VmHWM, read every second until the end).
rss_s=${PP_ICOUNT_RSS_SECONDS:-0}
if ((rss_s > 0)); then
	tool=$bin/rc_pingpong/rc_pingpong
	port=$((port + 1))
	"$tool" "${g[@]}" -p "$port" >"$work/rss.srv" 2>&1 &
	spid=$!
	wait_listen "$port" "$spid" || exit 1
	"$tool" "${g[@]}" -p "$port" -s 1 -D "$rss_s" --interval 60 "$PP_HOST" \
		>"$work/rss.cli" 2>&1 &
	cpid=$!
	ckb=0
	skb=0
	while kill -0 "$cpid" 2>/dev/null; do
		v=$(hwm "$cpid")
		((v > ckb)) && ckb=$v
		v=$(hwm "$spid")
		((v > skb)) && skb=$v
		sleep 1
	done
	wait "$cpid" || echo "icount: the -D $rss_s client failed" >&2
	wait "$spid" || echo "icount: the -D $rss_s server failed" >&2
	sed 's/^/icount: rss client: /' "$work/rss.cli" >&2
	iters=$(sed -n 's/^\([0-9]*\) iters in .*/\1/p' "$work/rss.cli")
	echo "PPRSS,$rss_s,${iters:-0},$ckb,$skb"
fi
