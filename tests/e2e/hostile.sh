#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# hostile.sh: bad clients against a real rc_pingpong server, and a client
# that dies in the middle of a run (docs/dev/robustness.md).
#
# 1. A hostile peer (hostile_peer.py) sends random bytes, a truncated
#    record, a record of protocol version 8, nothing at all, or connects and
#    closes.  The server (-T 2) must exit 1 with one line naming what came,
#    answer with an ERROR record where the protocol allows it, and not hang:
#    a client that says nothing is dropped after -T.
# 2. The client is killed (SIGKILL) mid-run at three points (right at the
#    start, after 0.3 s with -e, after 1 s).  The server must exit 1 within
#    its -T (10 s) of the client being gone, naming the iteration.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
bin=$(pp_bin rc_pingpong)
peer=$(dirname "$0")/hostile_peer.py
py=/usr/bin/python3
port=$PP_PORT

# hostile MODE SERVER_LINE [PEER_LINE]: one hostile peer against a server.
# The server must be gone within 5 s of the peer (starting python in the
# emulated guest takes seconds, so the bound is not counted from its start).
hostile() {
	local mode=$1 want=$2 want_peer=${3:-} slog=$PP_LOGS/server.$1
	local plog=$PP_LOGS/peer.$1 sst
	echo "=== $mode"
	port=$((port + 1))
	pp_server server "$slog" "$bin" -d "$PP_DEV" -p "$port" -T 2
	pp_wait_port "$port" "$pp_pid" || pp_fail "$mode: the server is not listening"
	pp_client peer "$plog" "$py" "$peer" "$mode" "$PP_HOST" "$port" ||
		pp_fail "$mode: the hostile peer failed: $(cat "$plog")"
	pp_wait_timed "$pp_pid"
	sst=$pp_status
	echo "--- server output"
	cat "$slog"
	echo "--- peer: $(cat "$plog")"
	pp_expect_status "$sst" 1 "$mode: server"
	pp_expect_grep "^rc_pingpong: $want\$" "$slog" "$mode: server says so"
	[[ -z $want_peer ]] ||
		pp_expect_grep "^$want_peer\$" "$plog" "$mode: the peer is told"
	pp_expect_fast "$pp_ms" 5000 "$mode: the server ended after the peer"
}

hostile garbage "bad HELLO from the client: bad magic" \
	"ERROR: bad HELLO from the client: bad magic"
hostile truncated "the client closed the connection before sending HELLO"
hostile badversion "protocol version: client 8, server 7" \
	"ERROR: protocol version: client 8, server 7"
# -T 2: dropped after 2 s, and not much later (the peer measures it)
hostile silent \
	"no HELLO from the client within 2 s \(is the peer running\? raise -T/--timeout\)" \
	"EOF after (19[0-9][0-9]|[2-6][0-9]{3}) ms"
hostile close "the client closed the connection before sending HELLO"

# client_killed NAME DELAY [OPTIONS...]: kill the client DELAY s into a run.
client_killed() {
	local name=$1 delay=$2 slog sst timeout_s=10
	shift 2
	echo "=== client killed: $name"
	port=$((port + 1))
	pp_start_run "$name" "$bin" "$port" client -T "$timeout_s" "$@" -- \
		-n 100000000 -T "$timeout_s" "$@"
	slog=$pp_slog
	sleep "$delay"
	pp_signal_tool KILL "$pp_cpid"
	pp_wait "$pp_cpid" || true
	pp_wait_timed "$pp_spid"
	sst=$pp_status
	echo "--- server output"
	cat "$slog"
	pp_expect_status "$sst" 1 "$name: server"
	pp_expect_grep "^rc_pingpong: the client closed the connection during the run, at iteration [0-9]+ of 100000000\$" \
		"$slog" "$name: server says the client went away"
	pp_expect_fast "$pp_ms" $((timeout_s * 1000)) \
		"$name: the server ended after the client"
}

client_killed poll.start 0
client_killed event.0.3s 0.3 -e
client_killed poll.1s 1
pp_finish
