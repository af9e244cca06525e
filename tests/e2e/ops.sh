#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# ops.sh GROUP: the one-sided operations (--op, docs/measurement.md) on one
# host.  The server gets only the device and the TCP port: it adopts the
# operation from the client.
#
#   good     every operation with -c, polling: write, write-imm and read at
#            1 B, 4 KiB and 1 MiB, fetch-add and cmp-swap at 8 B; write-imm
#            with -e; UC write and write-imm; srq write with 4 QPs; -a
#            sweeps of write and read; --warmup, -D, --json and --trace;
#            without -c (the lean loops), read at 1 B, 4 KiB and with -D,
#            fetch-add and cmp-swap (one run of some seconds at -T 1,
#            through the ALIVEs its lean loop sends), write at 1 B, 4 KiB,
#            on UC and with -D (write.duration).
#            Both sides exit 0 and print their result lines.
#   refused  what a transport does not allow, refused on both sides: our
#            client at its command line (UC read, UD write, a 16-byte
#            atomic, write with -e), and the server for a HELLO that asks for
#            it anyway (hostile_peer.py), each with a line naming the rule;
#            a server whose --max-mem is below what the client's -s needs.
#   rkey     a wrong rkey (the PP_TEST_BAD_RKEY test hook on the client):
#            the client's write or read fails with a remote access error
#            naming the rkey, and the server reports the client's line.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

group=${1:?usage: ops.sh good|refused|rkey}
pp_need_device
port=$PP_PORT

# run NAME TOOL SERVER-OPTS -- CLIENT-OPTS: one case; $sst and $cst are the
# exit statuses, $PP_LOGS/NAME.server and NAME.client the outputs.
run() {
	local name=$1 bin sopts=() copts=() spid
	bin=$(pp_bin "$2")
	shift 2
	pp_split "$@"
	sopts=("${pp_before[@]}") copts=("${pp_after[@]}")
	port=$((port + 1))
	pp_server "$name server" "$PP_LOGS/$name.server" "$bin" -d "$PP_DEV" \
		-p "$port" "${sopts[@]}"
	spid=$pp_pid
	pp_wait_port "$port" "$spid" || pp_fail "$name: the server is not listening"
	cst=0
	pp_client "$name client" "$PP_LOGS/$name.client" "$bin" -d "$PP_DEV" \
		-p "$port" "${pp_gid_opt[@]}" "${copts[@]}" "$PP_HOST" || cst=$?
	sst=0
	pp_wait "$spid" || sst=$?
	for side in server client; do
		echo "--- $name: $side output"
		pp_indent '    ' "$PP_LOGS/$name.$side"
	done
}

# good NAME TOOL ITERS CLIENT-OPTS...: a run that must succeed.
good() {
	local name=$1 tool=$2 iters=$3
	shift 3
	run "$name" "$tool" -- -n "$iters" "$@"
	pp_expect_status "$sst" 0 "$name: server"
	pp_expect_status "$cst" 0 "$name: client"
	for side in server client; do
		pp_expect_grep "^$iters iters in [0-9.]+ seconds" \
			"$PP_LOGS/$name.$side" "$name: $side: stock iters line"
	done
	pp_expect_grep "^latency usec: n $iters min [0-9]+\.[0-9]{3} median" \
		"$PP_LOGS/$name.client" "$name: client: one sample per iteration"
}

# refused NAME TOOL REGEX CLIENT-OPTS...: the client refuses at its command
# line (exit 2, the usage status), before it connects.
refused() {
	local name=$1 tool=$2 re=$3 st=0 bin
	shift 3
	bin=$(pp_bin "$tool")
	pp_client "$name" "$PP_LOGS/$name" "$bin" "$@" "$PP_HOST" || st=$?
	pp_indent '    ' "$PP_LOGS/$name"
	pp_expect_status "$st" 2 "$name: the client (a usage error)"
	pp_expect_grep "$re" "$PP_LOGS/$name" "$name: the client names the rule"
}

# server_refuses NAME TOOL MODE REGEX: hostile_peer.py MODE sends the HELLO
# our client would not; the server refuses it, and its ERROR says why.
server_refuses() {
	local name=$1 tool=$2 mode=$3 re=$4 bin spid st=0
	bin=$(pp_bin "$tool")
	port=$((port + 1))
	pp_server "$name server" "$PP_LOGS/$name.server" "$bin" -d "$PP_DEV" \
		-p "$port"
	spid=$pp_pid
	pp_wait_port "$port" "$spid" || pp_fail "$name: the server is not listening"
	python3 "$(dirname "$0")/hostile_peer.py" "$mode" 127.0.0.1 "$port" \
		>"$PP_LOGS/$name.peer" 2>&1 || pp_fail "$name: hostile_peer.py failed"
	pp_wait "$spid" || st=$?
	pp_indent '    server: ' "$PP_LOGS/$name.server"
	pp_indent '    peer: ' "$PP_LOGS/$name.peer"
	pp_expect_status "$st" 1 "$name: the server (a refused HELLO)"
	pp_expect_grep "$re" "$PP_LOGS/$name.server" "$name: the server names the rule"
	pp_expect_grep "^ERROR: .*$re" "$PP_LOGS/$name.peer" \
		"$name: the server's ERROR names the rule"
}

case $group in
good)
	for s in 1 4096; do
		good "write.$s" rc_pingpong 200 --op write -s "$s" -c
		good "write-imm.$s" rc_pingpong 200 --op write-imm -s "$s" -c
		good "read.$s" rc_pingpong 200 --op read -s "$s" -c
	done
	for op in write write-imm read; do
		good "$op.1M" rc_pingpong 10 --op "$op" -s 1M -c
	done
	good fetch-add rc_pingpong 200 --op fetch-add -c
	good cmp-swap rc_pingpong 200 --op cmp-swap -s 8 -c
	good write-imm.event rc_pingpong 200 --op write-imm -s 4096 -c -e
	good read.event rc_pingpong 200 --op read -s 4096 -c -e
	good uc.write rc_pingpong 200 --uc --op write -s 4096 -c
	good uc.write-imm rc_pingpong 200 --uc --op write-imm -s 4096 -c
	good srq.write srq_pingpong 200 -q 4 --op write -s 4096 -c
	good srq.fetch-add srq_pingpong 200 -q 4 --op fetch-add -c
	good write.warmup rc_pingpong 100 --op write -s 64 -c --warmup 50
	good fetch-add.warmup rc_pingpong 100 --op fetch-add --warmup 20
	# without -c a read takes the Send rows' lean loop (pp_run_request_fast()),
	# a write the same on both sides (pp_run_write_fast()); its server
	# measures from its write to the next message's arrival
	good read.fast.1 rc_pingpong 200 --op read -s 1
	good read.fast.4096 rc_pingpong 200 --op read -s 4096 --warmup 50
	for c in "write.fast.1 -s 1" "write.fast.4096 -s 4096 --warmup 50" \
		"uc.write.fast --uc -s 1"; do
		read -r name opts <<<"$c"
		# shellcheck disable=SC2086 # $opts holds the client's options
		good "$name" rc_pingpong 200 --op write $opts
		pp_expect_grep "^latency usec: n 199 min " "$PP_LOGS/$name.server" \
			"$name: server: a sample per write back"
	done
	# ... and an atomic too (its value checked all the same); with -T 1 a
	# run of some seconds lives on the ALIVE the client sends every third
	# of it from its lean loop, or the passive server gives up
	good fetch-add.fast rc_pingpong 200 --op fetch-add --warmup 20
	good cmp-swap.fast rc_pingpong 200 --op cmp-swap
	good fetch-add.fast.alive rc_pingpong 150000 --op fetch-add -T 1
	run read.fast.duration rc_pingpong -- --op read -s 64 -D 1
	pp_expect_status "$sst" 0 "read.fast.duration: server"
	pp_expect_status "$cst" 0 "read.fast.duration: client"
	pp_expect_grep '^latency usec: n [1-9][0-9]+ ' \
		"$PP_LOGS/read.fast.duration.client" "read.fast.duration: client: latency line"

	# the atomics' values: the server's word after N fetch-adds is N times
	# the addend, checked by the server at the end (--trace shows nothing
	# of it: the exit status does)
	for op in write read; do
		run "$op.sweep" rc_pingpong -- --op "$op" -a -s 4096 -n 20 -c
		pp_expect_status "$sst" 0 "$op.sweep: server"
		pp_expect_status "$cst" 0 "$op.sweep: client"
		pp_expect_grep '^ +4096 +20 ' "$PP_LOGS/$op.sweep.client" \
			"$op.sweep: client: the 4096-byte line"
	done

	run write.duration rc_pingpong -- --op write -s 64 -D 1
	pp_expect_status "$sst" 0 "write.duration: server"
	pp_expect_status "$cst" 0 "write.duration: client"
	pp_expect_grep '^latency usec: n [0-9]+ ' "$PP_LOGS/write.duration.client" \
		"write.duration: client: latency line"

	run read.json rc_pingpong -- --op read -s 4096 -n 50 --json
	pp_expect_status "$sst" 0 "read.json: server"
	pp_expect_status "$cst" 0 "read.json: client"
	pp_expect_grep '"op": ?"read"' "$PP_LOGS/read.json.client" \
		'read.json: "op": "read" in params'

	run read.trace rc_pingpong --trace -- --op read -s 4096 -n 20 --trace
	pp_expect_status "$sst" 0 "read.trace: server"
	pp_expect_status "$cst" 0 "read.trace: client"
	pp_expect_grep 'parameters: operation read, size 4096' \
		"$PP_LOGS/read.trace.server" "read.trace: the server adopted read"
	pp_expect_grep 'register MR .*access IBV_ACCESS_REMOTE_READ\)' \
		"$PP_LOGS/read.trace.server" "read.trace: the server's MR: remote read only"
	pp_expect_grep 'register MR .*access IBV_ACCESS_LOCAL_WRITE\)' \
		"$PP_LOGS/read.trace.client" "read.trace: the client's MR: local write only"
	pp_expect_grep 'qp_access_flags +0x4 \(IBV_ACCESS_REMOTE_READ\)' \
		"$PP_LOGS/read.trace.server" "read.trace: the server's QP: remote read"
	pp_expect_grep 'max_dest_rd_atomic +1' "$PP_LOGS/read.trace.server" \
		"read.trace: the server answers one read at a time"
	pp_expect_grep 'max_rd_atomic +1' "$PP_LOGS/read.trace.client" \
		"read.trace: the client has one read outstanding"
	;;
refused)
	refused uc.read rc_pingpong 'not on uc: an unreliable connection carries Send and RDMA Write only' \
		--uc --op read
	refused uc.fetch-add rc_pingpong 'not on uc: .*no RDMA Read or atomics on UC' \
		--uc --op fetch-add
	refused ud.write ud_pingpong 'not on ud: a datagram transport carries Send only' \
		--op write
	refused atomic.16 rc_pingpong 'an atomic works on one aligned 8-byte word: use -s 8' \
		--op fetch-add -s 16
	refused write.event rc_pingpong 'no event to sleep on' --op write -e
	refused stock.write rc_pingpong 'not available with --rdma-core' \
		--op write --rdma-core
	server_refuses srv.uc.read rc_pingpong uc-read \
		'not on uc: an unreliable connection carries Send and RDMA Write only'
	server_refuses srv.ud.write ud_pingpong ud-write \
		'not on ud: a datagram transport carries Send only'
	server_refuses srv.atomic.16 rc_pingpong atomic-16 \
		'an atomic works on one aligned 8-byte word: use -s 8'
	# the server's -e and a write: refused there, and the client says why
	run srv.write.event rc_pingpong -e -- --op write -n 10
	pp_expect_status "$sst" 1 "srv.write.event: server"
	pp_expect_status "$cst" 1 "srv.write.event: client"
	pp_expect_grep "with the server's -e/--events" "$PP_LOGS/srv.write.event.client" \
		"srv.write.event: the client reports the server's rule"
	# a client asking more buffer memory than the server allows: -s 1M
	# needs two 1 MiB areas; both sides exit 1 naming the cause and the fix
	run srv.max-mem rc_pingpong --max-mem 1M -- -s 1M -n 10
	pp_expect_status "$sst" 1 "srv.max-mem: server"
	pp_expect_status "$cst" 1 "srv.max-mem: client"
	for side in server client; do
		pp_expect_grep "server memory limit: the client's -s 1048576 needs 2097152 bytes of buffers, the server allows 1048576 per client \(lower -s, or start the server with --max-mem 2097152 or more\)" \
			"$PP_LOGS/srv.max-mem.$side" "srv.max-mem: the $side names the limit"
	done
	;;
rkey)
	for op in write read fetch-add; do
		export PP_TEST_BAD_RKEY=1
		run "rkey.$op" rc_pingpong -- --op "$op" -n 20
		unset PP_TEST_BAD_RKEY
		pp_expect_status "$cst" 1 "rkey.$op: client"
		pp_expect_status "$sst" 1 "rkey.$op: server"
		pp_expect_grep '(write|read|fetch-add) completion failed .*remote access error.*the peer refused the '"$op"' at rkey 0x[0-9a-f]+' \
			"$PP_LOGS/rkey.$op.client" "rkey.$op: the client names the rkey"
		pp_expect_grep 'client: .*remote access error.*rkey 0x[0-9a-f]+' \
			"$PP_LOGS/rkey.$op.server" "rkey.$op: the server reports the client's line"
	done
	;;
*)
	pp_fail "unknown group $group"
	;;
esac
pp_finish
