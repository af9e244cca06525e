#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# ud_late.sh [ITERS]: UD replies that come after the per-iteration deadline
# are counted as lost, and the run still ends, polling and with -e.
# ITERS (default 20000) must outlast the moment the server is stopped: just
# after its address lines appear, about 10 ms into the run.
#
# rxe loopback never drops a packet, but a stopped server answers late: the
# server is stopped (SIGSTOP) mid-run for longer than the per-iteration
# deadline (1 s: a fifth of -T, at most 1 s) and then continued.  The client must count the
# iterations it gave up on, ignore the late replies, finish the run and exit
# 1 with "lost N of M iterations (no reply within 1000 ms)"; the server,
# told by the client's DONE, must exit 1 with "client: lost N of M
# iterations".  The results of both sides count only the iterations the
# client completed, and no wait it gave up on.  Both sides
# get -T 20, which leaves the deadline at its 1 s cap and keeps a slow guest
# from ending the run by its no-reply timeout.
set -euo pipefail
PP_STEP_TIMEOUT=${PP_STEP_TIMEOUT:-120}
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

iters=${1:-20000}
stop_s=2.5 # > the 1 s deadline, < the 20 s no-reply timeout
pp_need_device
bin=$(pp_bin ud_pingpong)

run_case() {
	local mode=$1 port=$2 slog clog spid cpid srv sst=0 cst=0 start lost
	local done_iters smax
	shift 2
	echo "=== $mode"
	start=$SECONDS
	# The address lines are flushed when the run starts: stop it at once.
	pp_start_run "$mode" "$bin" "$port" server -T 20 -- \
		-n "$iters" -c -T 20 "$@"
	slog=$pp_slog clog=$pp_clog spid=$pp_spid cpid=$pp_cpid
	srv=$(pp_tool_pid "$spid")
	if kill -0 "$(pp_tool_pid "$cpid")" 2>/dev/null; then
		echo "stop the server ($srv) for $stop_s s"
		kill -STOP "$srv"
		sleep "$stop_s"
		kill -CONT "$srv"
	else
		pp_fail "$mode: the client ended before the server was stopped (raise ITERS)"
	fi
	pp_wait "$cpid" || cst=$?
	pp_wait "$spid" || sst=$?
	echo "both ended after $((SECONDS - start)) s"
	for side in server client; do
		echo "--- $side output"
		cat "$PP_LOGS/$side.$mode"
	done
	pp_expect_status "$sst" 1 "$mode: server"
	pp_expect_status "$cst" 1 "$mode: client"
	lost=$(sed -n 's/^ud_pingpong: lost \([0-9]*\) of .*/\1/p' "$clog")
	pp_expect_grep "^ud_pingpong: lost [0-9]+ of $iters iterations \\(no reply within 1000 ms\\)$" \
		"$clog" "$mode: client reports the lost iterations"
	# 2 or 3 on an idle machine, 5 or 6 seen on a heavily loaded one (slow
	# replies); many more would mean the client did not resynchronise
	if [[ -z $lost ]] || ((lost < 1 || lost > 10)); then
		pp_fail "$mode: ${lost:-no} iterations lost, expected 1..10 (server stopped $stop_s s, deadline 1 s)"
		return
	fi
	done_iters=$((iters - lost))
	pp_expect_grep "^ud_pingpong: client: lost $lost of $iters iterations$" \
		"$slog" "$mode: server reports the client's $lost lost iterations"
	pp_expect_grep "^$done_iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" \
		"$clog" "$mode: client counts $done_iters completed iterations"
	pp_expect_grep "^latency usec: n $done_iters " "$clog" \
		"$mode: client has one sample per completed iteration"
	# The server's figures mean the same: the client's completed round
	# trips, and no wait that the client gave up on (before, the server
	# counted every message and a sample of the whole stop, 2.5 s).
	pp_expect_grep "^$done_iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" \
		"$slog" "$mode: server counts the client's $done_iters completed iterations"
	smax=$(sed -n 's/^latency usec: n [0-9]* .* max \([0-9]*\)\..*/\1/p' "$slog")
	if [[ -z $smax ]] || ((smax >= 1000000)); then
		pp_fail "$mode: the server's longest sample is ${smax:-missing} us: a wait the client gave up on (>= 1 s) was counted"
	else
		echo "ok: $mode: the server's longest sample, $smax us, is no abandoned wait"
	fi
	if grep -q 'data mismatch\|arrived while' "$clog" "$slog"; then
		pp_fail "$mode: a late reply was not ignored"
	fi
}

run_case poll "$PP_PORT"
run_case event $((PP_PORT + 1)) -e
pp_finish
