#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# interrupt.sh: SIGINT and SIGTERM end a run cleanly (docs/dev/robustness.md).
#
# A signal to one side in the middle of a long run: that side must print
# the partial result (the stock lines for the iterations completed), one
# line "interrupted by SIGINT at iteration N of M", and exit 130; its peer
# must be told and exit 1 with "client: interrupted by ..." (or "server:
# ...").  Both must end well within -T (10 s): the signal, not a timeout,
# ends the run.  The client of a read and of a write is stopped in the
# rounds of the lean loop (request_rounds(), write_rounds(): raw samples,
# fewer than PP_LHIST_RAW_LIMIT iterations), which look at the signal
# every 100 ms: with -T 30, both end within 5 s.  Then a server still
# waiting for its client gets SIGINT: exit 130, "interrupted by SIGINT
# while waiting for a client".
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
bin=$(pp_bin rc_pingpong)
port=$PP_PORT
timeout_s=10

# sig_case NAME SIGNAL VICTIM [OPTIONS...]: VICTIM is client or server;
# $iters iterations asked; both must end within $bound_ms of the signal.
iters=100000000
bound_ms=$((timeout_s * 1000))
sig_case() {
	local name=$1 sig=$2 victim=$3 slog clog spid cpid sst=0 cst=0 t0 ms
	local vlog plog vst pst peer
	shift 3
	echo "=== $name: SIG$sig to the $victim"
	port=$((port + 1))
	pp_start_run "$name" "$bin" "$port" client -T "$timeout_s" "$@" -- \
		-n "$iters" -T "$timeout_s" "$@"
	slog=$pp_slog clog=$pp_clog spid=$pp_spid cpid=$pp_cpid
	sleep 0.5
	t0=$(pp_now_ms)
	if [[ $victim == client ]]; then
		pp_signal_tool "$sig" "$cpid"
	else
		pp_signal_tool "$sig" "$spid"
	fi
	pp_wait "$cpid" || cst=$?
	pp_wait "$spid" || sst=$?
	ms=$(($(pp_now_ms) - t0))
	echo "--- server output"
	cat "$slog"
	echo "--- client output"
	cat "$clog"
	if [[ $victim == client ]]; then
		vlog=$clog vst=$cst plog=$slog pst=$sst peer=server
	else
		vlog=$slog vst=$sst plog=$clog pst=$cst peer=client
	fi
	pp_expect_status "$vst" 130 "$name: the $victim"
	pp_expect_status "$pst" 1 "$name: the $peer"
	pp_expect_grep "^rc_pingpong: interrupted by SIG$sig at iteration [0-9]+ of $iters\$" \
		"$vlog" "$name: the $victim says it was interrupted"
	pp_expect_grep '^[0-9]+ iters in [0-9.]+ seconds = ' "$vlog" \
		"$name: the $victim prints the partial result"
	pp_expect_grep '^latency usec: n [0-9]+ ' "$vlog" \
		"$name: the $victim prints the latency summary"
	pp_expect_grep "^rc_pingpong: $victim: interrupted by SIG$sig at iteration [0-9]+ of $iters\$" \
		"$plog" "$name: the $peer is told"
	pp_expect_fast "$ms" "$bound_ms" \
		"$name: both ended after the signal"
}

sig_case client.poll INT client
sig_case server.event INT server -e
sig_case client.event.term TERM client -e
# A read client sends ALIVE every third of -T, and a round with one looks
# at the signal too: with -T 30 only the rounds' own look, every 100 ms,
# ends the run within 5 s.
iters=900000 timeout_s=30 bound_ms=5000
sig_case client.read INT client --op read -s 64
sig_case client.write TERM client --op write -s 64

echo "=== a server waiting for its client"
port=$((port + 1))
slog=$PP_LOGS/server.waiting
sst=0
pp_server server "$slog" "$bin" -d "$PP_DEV" -p "$port"
pp_wait_port "$port" "$pp_pid" || pp_fail "waiting: the server is not listening"
pp_signal_tool INT "$pp_pid"
pp_wait "$pp_pid" || sst=$?
cat "$slog"
pp_expect_status "$sst" 130 "waiting: server"
pp_expect_grep '^rc_pingpong: interrupted by SIGINT while waiting for a client$' \
	"$slog" "waiting: the server says so"
pp_finish
