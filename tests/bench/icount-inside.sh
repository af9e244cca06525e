#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The measuring half of the instruction-count benchmark (tests/bench/icount.sh):
# run where an RDMA device exists (the Soft-RoCE guest). For each tool and
# size, the client runs under valgrind's callgrind twice, with N1 and N2
# round trips (the server runs natively); tests/bench/cgsplit.py turns the
# two profiles into user-space instructions per round trip: the difference
# over N2 - N1, so that start-up and tear-down cancel out. Callgrind counts
# instructions, not time: the figures repeat from run to run, whatever else
# the machine does, except for the empty polls, which depend on timing and
# are reported beside them.
#
# Prints one PPICOUNT line per tool and size (cgsplit.py), and PPICOUNT-INFO
# lines, on stdout.
#
# Environment:
#   PP_BIN    build directory with our tools (required)
#   PP_DEV    RDMA device (default rxe0); PP_GID: GID index (default 1)
#   PP_HOST   address the clients connect to (default 127.0.0.1)
#   PP_ICOUNT_N1, PP_ICOUNT_N2   round trips of the two runs (default 500, 2500)
#   PP_ICOUNT_CASES  which rows to run (default: all), from
#             "rc uc ud srq stock-rc stock-uc stock-ud stock-srq lat"
#   PP_ICOUNT_SIZES  sizes (default "1 4096"; ud stops at 1024)
set -euo pipefail

PP_DEV=${PP_DEV:-rxe0}
PP_GID=${PP_GID:-1}
PP_HOST=${PP_HOST:-127.0.0.1}
bin=${PP_BIN:?PP_BIN must name the build directory}
n1=${PP_ICOUNT_N1:-500}
n2=${PP_ICOUNT_N2:-2500}
read -r -a cases <<<"${PP_ICOUNT_CASES:-rc uc ud srq stock-rc stock-uc stock-ud stock-srq lat}"
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

# one LABEL LOOPFN N OUT -- SERVER... -- CLIENT...: one server and one
# client run under callgrind; OUT.full (and OUT.loop with LOOPFN) written.
one() {
	local label=$1 loopfn=$2 n=$3 out=$4 pass spid st arg t0
	shift 4
	local -a srv=() cli=()
	[[ $1 == -- ]] && shift
	while [[ $1 != -- ]]; do
		srv+=("${1//@N@/$n}")
		shift
	done
	shift
	for arg in "$@"; do cli+=("${arg//@N@/$n}"); done
	for pass in full loop; do
		local -a vg=(valgrind --tool=callgrind --vgdb=no
			--compress-strings=no --compress-pos=no
			--callgrind-out-file="$out.$pass")
		if [[ $pass == loop ]]; then
			[[ $loopfn != - ]] || break
			vg+=(--collect-atstart=no "--toggle-collect=$loopfn")
		fi
		port=$((port + 1))
		timeout -k 5 600 "${srv[@]//@P@/$port}" >"$out.$pass.srv" 2>&1 &
		spid=$!
		wait_listen "$port" "$spid" || {
			echo "icount: $label server did not listen:" >&2
			cat "$out.$pass.srv" >&2
			return 1
		}
		st=0
		t0=$SECONDS
		timeout -k 5 600 "${vg[@]}" "${cli[@]//@P@/$port}" \
			>"$out.$pass.cli" 2>&1 || st=$?
		wait "$spid" || true
		echo "icount: $label -n $n $pass: $((SECONDS - t0)) s" >&2
		if ((st != 0)); then
			echo "icount: $label client failed ($st):" >&2
			tail -n 5 "$out.$pass.cli" >&2
			return 1
		fi
	done
}

# row LABEL LOOPFN -- SERVER... -- CLIENT...: both N, then one PPICOUNT line.
row() {
	local label=$1 loopfn=$2 a=$work/$1.$n1 b=$work/$1.$n2
	shift 2
	one "$label" "$loopfn" "$n1" "$a" "$@" || return 0
	one "$label" "$loopfn" "$n2" "$b" "$@" || return 0
	if [[ $loopfn == - ]]; then
		python3 "$here/cgsplit.py" "$label" "$n1" "$a.full" - "$n2" "$b.full" -
	else
		python3 "$here/cgsplit.py" "$label" "$n1" "$a.full" "$a.loop" \
			"$n2" "$b.full" "$b.loop"
	fi
}

g=(-d "$PP_DEV" -g "$PP_GID")
for c in "${cases[@]}"; do
	for s in "${sizes[@]}"; do
		case $c in
		ud | stock-ud) ((s <= 1024)) || s=1024 ;;
		esac
		case $c in
		rc | uc | ud | srq)
			tool=${c/uc/rc}_pingpong
			extra=()
			[[ $c != uc ]] || extra=(--uc)
			[[ $c != srq ]] || extra=(-q 1)
			row "$tool:$c:$s" pp_run -- "$bin/$tool/$tool" "${g[@]}" -p @P@ -- \
				"$bin/$tool/$tool" "${g[@]}" -p @P@ -s "$s" -n @N@ \
				-r 500 "${extra[@]}" "$PP_HOST"
			;;
		stock-*)
			t=${c#stock-}
			tool=ibv_${t}_pingpong
			extra=()
			[[ $t != srq ]] || extra=(-q 1)
			row "$tool:$t:$s" - -- "$tool" "${g[@]}" -p @P@ -s "$s" -n @N@ \
				-r 500 "${extra[@]}" -- \
				"$tool" "${g[@]}" -p @P@ -s "$s" -n @N@ -r 500 \
				"${extra[@]}" "$PP_HOST"
			;;
		lat)
			row "ib_send_lat:rc:$s" run_iter_lat_send -- \
				ib_send_lat -d "$PP_DEV" -x "$PP_GID" -s "$s" -n @N@ -p @P@ -- \
				ib_send_lat -d "$PP_DEV" -x "$PP_GID" -s "$s" -n @N@ -p @P@ \
				"$PP_HOST"
			;;
		esac
	done
done
