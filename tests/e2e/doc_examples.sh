#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# doc_examples.sh [--emit]: run the commands whose output the documents show,
# on the Soft-RoCE bed, and check every example in README.md, docs/*.md and
# docs/dev/*.md against that output (tests/e2e/doc_examples.py: values that
# change from run to run masked; sizes, names, flags and messages compared
# as they are).
#
# Each capture is one file: "$ COMMAND", then what COMMAND printed (stdout
# line-buffered and stderr, in the order a terminal shows them).  A server
# and client pair is two captures, NAME.server and NAME.client.  The client
# connects to the IPv4 address of the RDMA device's netdev (10.99.0.1 on the
# bed), as a user would, not to 127.0.0.1.
#
# --emit also prints every capture between "=== capture NAME" and
# "=== end NAME" lines, for "doc_examples.py update" (docs/dev/testing.md,
# "Examples in the documents").
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
emit=0
[[ ${1:-} != --emit ]] || emit=1

pp_need_device
# The examples show what the tools print on the bed by themselves: the
# clock they choose there (CLOCK_MONOTONIC: the emulated CPU has no
# constant_tsc), not lib.sh's PP_CLOCK=cycles of the other tests.
unset PP_CLOCK
# The examples show the bed: device rxe0 on netdev va, 10.99.0.1.
addr=10.99.0.1
if [[ $PP_DEV != rxe0 ]] || ! ip -4 -o addr show dev va 2>/dev/null |
	grep -q "inet $addr/"; then
	echo "SKIP: the examples are those of the Soft-RoCE bed (rxe0 on va, $addr)"
	exit 77
fi

caps=$PP_LOGS/captures
work=$PP_LOGS/work
mkdir -p "$caps" "$work"
# The documents show the tools by name; run the ones just built.
for t in rc_pingpong ud_pingpong srq_pingpong xrc_pingpong; do
	PATH=$(dirname "$(pp_bin "$t")"):$PATH
done
export PATH
cd "$work"

# run NAME COMMAND: capture COMMAND (a shell command line) as NAME.
run() {
	local name=$1 cmd=$2
	{
		echo "\$ $cmd"
		timeout -k 5 "$PP_STEP_TIMEOUT" stdbuf -oL bash -c "$cmd" 2>&1 || true
	} >"$caps/$name"
}

# pair NAME SERVER CLIENT [stop]: a server and a client on the default
# port, captured as NAME.server and NAME.client; "stop": then stop the
# server (a --persistent one) with SIGINT.
pair() {
	local name=$1 scmd=$2 ccmd=$3 spid
	echo "\$ $scmd" >"$caps/$name.server"
	timeout -k 5 "$PP_STEP_TIMEOUT" stdbuf -oL bash -c "exec $scmd" \
		>>"$caps/$name.server" 2>&1 &
	spid=$!
	pp_wait_port 18515 "$spid" || pp_fail "$name: the server is not listening"
	run "$name.client" "$ccmd"
	[[ ${4:-} != stop ]] || pp_signal_tool INT "$spid" || true
	wait "$spid" || true
}

run version "rc_pingpong --version"
run show-gids "rc_pingpong --show-gids"
run bad-gid "rc_pingpong -d rxe0 -g 9 $addr"
pair run "rc_pingpong -d rxe0" "rc_pingpong -d rxe0 $addr"
pair explained "rc_pingpong -d rxe0" "rc_pingpong -d rxe0 -c --counters $addr"
pair trace "rc_pingpong" "rc_pingpong --trace -n 10 $addr"
pair sweep "rc_pingpong" "rc_pingpong -a -s 64 $addr"
pair histogram "rc_pingpong" "rc_pingpong -s 1 -n 2000 --histogram $addr"
pair interval "rc_pingpong" "rc_pingpong -s 1 -D 3 --interval 1 $addr"
pair samples "rc_pingpong" "rc_pingpong -a -s 4 -n 100 --samples rtt.csv $addr"
run samples.csv "cat rtt.csv"
pair json "rc_pingpong" \
	"rc_pingpong -s 4096 -n 1000 --warmup 100 --counters --json $addr | python3 -m json.tool --indent 2"
pair interop "rc_pingpong -g 1 -c --rdma-core" \
	"ibv_rc_pingpong -g 1 -c -s 4096 -n 1000 -m 1024 $addr"
pair probe "rc_pingpong --persistent" "rc_pingpong --probe $addr" stop
# a mesh of 3 ranks on this host's one device, as pdsh would start them:
# rank 0's text and its --mesh-prom file
# (the first to take the port is rank 0: the captured one, started first)
mesh=(rc_pingpong --mesh --mesh-size 3 --mesh-root "$addr" -d rxe0 -n 100)
run mesh "${mesh[*]} --mesh-prom rdma_mesh.prom" &
rpid=$!
pp_wait_port 18515 "$rpid" || pp_fail "mesh: rank 0 is not listening"
for _ in 1 2; do
	timeout -k 5 "$PP_STEP_TIMEOUT" "${mesh[@]}" >/dev/null 2>&1 &
done
wait
run mesh.prom "grep -E '^rdma_mesh_(pairs|pairs_passed|exit_status|rank_slow|pair_result)\\b' rdma_mesh.prom"

if ((emit)); then
	for f in "$caps"/*; do
		echo "=== capture ${f##*/}"
		cat "$f"
		echo "=== end ${f##*/}"
	done
fi
python3 "$top/tests/e2e/doc_examples.py" check "$caps" \
	"$top/README.md" "$top"/docs/*.md "$top"/docs/dev/*.md || pp_fail "the documents' examples"
pp_finish
