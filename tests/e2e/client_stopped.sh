#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# client_stopped.sh: the client of a Read or atomics run is stopped
# (kill -STOP) in the middle of it.  The server sees nothing of a one-sided
# run, and the stopped client's kernel still answers TCP keepalive; only
# the client's ALIVE records, every third of its -T, tell the server that
# it runs.  The server must end its wait within the client's -T (3 s; the
# server's own -T is 30 s, so that waiting by its own would fail the
# bound) plus slack, with one line naming what happened.
#
# read: a plain server exits 1 with that line.  fetch-add: a --persistent
# server says it for that client, then serves the next client (a read run
# with -c) and stops cleanly at SIGINT, counting one failed client.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

client_t=3
server_t=30
slack_ms=6000 # a loaded emulated guest: the stop, the teardown
pp_need_device
rc=$(pp_bin rc_pingpong)

# stopped_client NAME OP PORT: start a client of --op OP, let it run, stop
# it; leaves its wrapper in $cpid and the time of the stop in $t_stop.
stopped_client() {
	local name=$1 op=$2 port=$3
	clog=$PP_LOGS/client.$name
	pp_server client "$clog" "$rc" -d "$PP_DEV" -p "$port" \
		"${pp_gid_opt[@]}" --op "$op" -n 100000000 -T "$client_t" \
		"$PP_HOST"
	cpid=$pp_pid
	pp_wait_line '^  remote address' "$clog" ||
		pp_fail "$name: the run did not start"
	sleep 1 # past an ALIVE or two
	kill -0 "$(pp_tool_pid "$cpid")" 2>/dev/null ||
		pp_fail "$name: the client ended before it was stopped"
	pp_signal_tool STOP "$cpid"
	t_stop=$(pp_now_ms)
}

# reap_client: the stopped client, killed (SIGKILL ends a stopped process).
reap_client() {
	pp_signal_tool KILL "$cpid" 2>/dev/null || true
	pp_wait "$cpid" || true
}

line() { # line OP: the server's line for a client stopped during OP
	echo "the client sent nothing for $((client_t * 1000)) ms during its $1 run, after [0-9]+ of 100000000 iterations: stopped, or its host gone \\(a running client says it is alive every $((client_t * 1000 / 3)) ms\\)"
}

echo "=== read: a plain server"
port=$PP_PORT
slog=$PP_LOGS/server.read
pp_server server "$slog" "$rc" -d "$PP_DEV" -p "$port" -T "$server_t"
spid=$pp_pid
pp_wait_port "$port" "$spid" || pp_fail "read: the server is not listening"
stopped_client read read "$port"
sst=0
pp_wait "$spid" || sst=$?
ms=$(($(pp_now_ms) - t_stop))
reap_client
echo "--- server output"
cat "$slog"
pp_expect_status "$sst" 1 "read: the server of a stopped client"
pp_expect_grep "^rc_pingpong: $(line read)\$" "$slog" \
	"read: the server says the client stopped"
pp_expect_fast "$ms" $((client_t * 1000 + slack_ms)) \
	"read: the server ended after the client's -T"
# The server counts the client's -T from the last ALIVE it got, which the
# client sent at most a third of its -T before it was stopped.
((ms >= client_t * 1000 * 2 / 3 - 100)) ||
	pp_fail "read: the server ended after $ms ms, before the client's -T less one ALIVE period"

echo "=== fetch-add: a --persistent server, then the next client"
port=$((PP_PORT + 1))
slog=$PP_LOGS/server.persistent
PP_STEP_TIMEOUT=600 pp_server server "$slog" "$rc" -d "$PP_DEV" -p "$port" \
	-T "$server_t" --persistent
spid=$pp_pid
pp_wait_port "$port" "$spid" ||
	pp_fail "fetch-add: the server is not listening"
server=$(pp_tool_pid "$spid")
stopped_client fetch-add fetch-add "$port"
pp_wait_line "^rc_pingpong: client [^ ]+: $(line fetch-add)\$" "$slog" \
	$((client_t + slack_ms / 1000)) ||
	pp_fail "fetch-add: the server did not say the client stopped"
ms=$(($(pp_now_ms) - t_stop))
reap_client
pp_expect_fast "$ms" $((client_t * 1000 + slack_ms)) \
	"fetch-add: the server gave the client up after its -T"
kill -0 "$server" 2>/dev/null || pp_fail "fetch-add: the server is gone"
pp_client next "$PP_LOGS/client.next" "$rc" -d "$PP_DEV" -p "$port" \
	"${pp_gid_opt[@]}" --op read -n 1000 -c -T 10 "$PP_HOST" && st=0 || st=$?
cat "$PP_LOGS/client.next"
pp_expect_status "$st" 0 "the next client"
pp_expect_grep '^1000 iters in ' "$PP_LOGS/client.next" \
	"the next client's result"
sleep 0.5 # let the server get back to accept()
kill -INT "$server"
sst=0
pp_wait "$spid" || sst=$?
echo "--- server output"
cat "$slog"
pp_expect_status "$sst" 0 "the --persistent server, stopped between clients"
pp_expect_grep '^stopped by SIGINT after 2 clients \(1 failed\)$' "$slog" \
	"the server counted the stopped client as failed"
pp_finish
