#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# server_gone.sh: the server is killed (SIGKILL) in the middle of a long run.
#
# For rc (polling), srq (-e) and ud (polling and -e) the client must end
# within its -T/--timeout of the server being gone, exit 1, and say in one
# line that the server went away and at which iteration.  The closed TCP
# connection tells it at once (well under a second on an idle machine); -T
# is long (10 s) so that ending by the timeout instead would fail the bound.
# The time is counted from when the killed server has been reaped: tearing
# down its verbs resources is the guest kernel's work, and on a loaded
# machine that alone took seconds.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

timeout_s=10
pp_need_device

run_case() {
	local name=$1 tool=$2 port=$3 clog spid cpid cst t0 t1
	shift 3
	echo "=== $name"
	pp_start_run "$name" "$(pp_bin "$tool")" "$port" server -- \
		-n 100000000 -T "$timeout_s" "$@"
	clog=$pp_clog spid=$pp_spid cpid=$pp_cpid
	sleep 0.3
	if ! kill -0 "$(pp_tool_pid "$cpid")" 2>/dev/null; then
		pp_fail "$name: the client ended before the server was killed"
	fi
	t0=$(pp_now_ms)
	pp_signal_tool KILL "$spid"
	pp_wait "$spid" || true
	t1=$(pp_now_ms)
	echo "the server was gone $((t1 - t0)) ms after the kill"
	pp_wait_timed "$cpid"
	cst=$pp_status
	echo "--- client output"
	cat "$clog"
	pp_expect_status "$cst" 1 "$name: client"
	pp_expect_grep "^$tool: the server closed the connection during the run, at iteration [0-9]+ of 100000000$" \
		"$clog" "$name: client says the server went away"
	pp_expect_fast "$pp_ms" $((timeout_s * 1000)) \
		"$name: the client ended after the server"
}

run_case rc rc_pingpong "$PP_PORT"
run_case srq.event srq_pingpong $((PP_PORT + 1)) -q 16 -e
run_case ud ud_pingpong $((PP_PORT + 2))
run_case ud.event ud_pingpong $((PP_PORT + 3)) -e
pp_finish
