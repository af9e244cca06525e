#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xrc_clients.sh CASE: xrc_pingpong --clients 3, a server that serves three
# clients one after another and then ends (docs/xrc.md, "Several clients").
# The three clients start at once; the second and third wait in the server's
# listen queue (hence their -T 30).
#
#   refused       no device needed: bad --clients values and places are
#                 refused with one line and exit status 2 (then, without a
#                 device, 77); on a device without XRC (rxe) the server with
#                 --clients 3
#                 and each of three clients exit 1 with the one "XRC: not
#                 supported" line, before any network step
#   ours          our protocol: a server with --clients 3, three clients of
#                 different -s with -c; every client exits 0 with its own
#                 result lines, the server prints three runs and "served 3
#                 clients (0 failed)" and exits 0
#   stock.server  our server with --rdma-core --clients 3, three stock
#                 ibv_xsrq_pingpong clients: each prints "success" and exits
#                 0, ours serves all three and exits 0
#   stock.client  a stock ibv_xsrq_pingpong -c 3 server, three of our
#                 clients with --rdma-core (one host, so they share the
#                 default XRC domain file, as the stock server's round robin
#                 over its send QPs needs): every one exits 0, the stock
#                 server prints "success"
#
# ours and stock.* need a device with XRC and exit 77 without one (Soft-RoCE
# has none); stock.* also exit 77 when ibv_xsrq_pingpong is not installed.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

case=${1:?usage: xrc_clients.sh refused|ours|stock.server|stock.client}
iters=100
sizes=(1 4096 65536) # ours: each client its own -s, adopted by the server

bin=$(pp_bin xrc_pingpong)
rc_bin=$(pp_bin rc_pingpong)

# need_device: pp_need_device, then whether the device has XRC (has_xrc).
has_xrc=0
need_device() {
	pp_need_device
	ibv_devinfo -v -d "$PP_DEV" >"$PP_LOGS/devinfo" 2>&1 || true
	! grep -Eq '^[[:space:]]+XRC$' "$PP_LOGS/devinfo" || has_xrc=1
}

need_xrc() {
	if ((!has_xrc)); then
		echo "SKIP: $PP_DEV has no XRC (ibv_devinfo -v lists no XRC capability); case $case needs it"
		exit 77
	fi
}

need_stock() {
	if ! command -v ibv_xsrq_pingpong >/dev/null; then
		echo "SKIP: ibv_xsrq_pingpong is not installed (Debian: ibverbs-utils)"
		exit 77
	fi
}

# one_line LOG PATTERN WHAT: LOG is exactly one line, matching PATTERN.
one_line() {
	pp_expect_grep "$2" "$1" "$3"
	local n
	n=$(wc -l <"$1")
	if ((n == 1)); then
		echo "ok: $3: one line"
	else
		pp_fail "$3: $n lines, expected 1"
		pp_indent '    ' "$1"
	fi
}

# refused_usage NAME PATTERN CMD...: CMD exits 2 with one line matching
# PATTERN.
refused_usage() {
	local name=$1 pat=$2 st=0
	shift 2
	pp_client "$name" "$PP_LOGS/$name" "$@" || st=$?
	pp_expect_status "$st" 2 "$name"
	one_line "$PP_LOGS/$name" "$pat" "$name: refused, naming the cause"
}

# start_clients CMD...: three clients of CMD at once, in the background;
# client k's -s is sizes[k] when CMD has the word SIZE (replaced).  PIDs in
# cpids[], logs client1..client3.
cpids=()
start_clients() {
	local k arg cmd
	for k in 1 2 3; do
		cmd=()
		for arg in "$@"; do
			[[ $arg != SIZE ]] || arg=${sizes[k - 1]}
			cmd+=("$arg")
		done
		pp_server "client$k" "$PP_LOGS/client$k" "${cmd[@]}"
		cpids+=("$pp_pid")
	done
}

# wait_all: the server (spid) and the clients; statuses in sst and cst[].
declare -a cst
wait_all() {
	local k
	for k in 1 2 3; do
		cst[k]=0
		pp_wait "${cpids[k - 1]}" || cst[k]=$?
	done
	sst=0
	pp_wait "$spid" || sst=$?
	for log in server client1 client2 client3; do
		echo "--- $log output"
		cat "$PP_LOGS/$log"
	done
}

case $case in
refused)
	refused_usage zero '^xrc_pingpong: --clients 0 is out of range: allowed 1\.\.1024$' \
		"$bin" --clients 0
	refused_usage above '^xrc_pingpong: --clients 1025 is out of range: allowed 1\.\.1024$' \
		"$bin" --clients 1025
	refused_usage on_client "^xrc_pingpong: --clients is a server option: .*host '$PP_HOST'" \
		"$bin" --clients 3 "$PP_HOST"
	refused_usage persistent '^xrc_pingpong: --persistent and --clients both given' \
		"$bin" --clients 3 --persistent
	refused_usage other_tool "^rc_pingpong: unknown option '--clients' for rc_pingpong: only xrc_pingpong has it$" \
		"$rc_bin" --clients 3
	if [[ -z $(ls /sys/class/infiniband 2>/dev/null || true) ]]; then
		((!pp_failed)) || pp_finish
		echo "SKIP: no RDMA device: the refusals above passed; the 'not supported' part needs a device"
		exit 77
	fi
	need_device
	if ((has_xrc)); then
		echo "note: $PP_DEV has XRC: the 'not supported' part is for devices without it"
		pp_finish
	fi
	pp_server server "$PP_LOGS/server" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
		--clients 3 -T 30
	spid=$pp_pid
	start_clients "$bin" -d "$PP_DEV" -p "$PP_PORT" "${pp_gid_opt[@]}" \
		-T 30 -n "$iters" "$PP_HOST"
	wait_all
	pp_expect_status "$sst" 1 server
	for k in 1 2 3; do
		pp_expect_status "${cst[k]}" 1 "client$k"
	done
	for log in server client1 client2 client3; do
		one_line "$PP_LOGS/$log" \
			"^xrc_pingpong: XRC: not supported by device $PP_DEV " \
			"$log: names $PP_DEV, XRC and 'not supported'"
	done
	;;
ours)
	need_device
	need_xrc
	pp_server server "$PP_LOGS/server" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
		"${pp_gid_opt[@]}" --clients 3
	spid=$pp_pid
	pp_wait_port "$PP_PORT" "$spid" || pp_fail "the server is not listening"
	start_clients "$bin" -d "$PP_DEV" -p "$PP_PORT" "${pp_gid_opt[@]}" \
		-T 30 -n "$iters" -s SIZE -c "$PP_HOST"
	wait_all
	pp_expect_status "$sst" 0 server
	for k in 1 2 3; do
		size=${sizes[k - 1]}
		log=$PP_LOGS/client$k
		pp_expect_status "${cst[k]}" 0 "client$k"
		pp_expect_grep "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" \
			"$log" "client$k: iters line"
		pp_expect_grep "^$((2 * size * iters)) bytes in [0-9.]+ seconds" \
			"$log" "client$k: bytes line of its -s $size"
		pp_expect_grep "^latency usec: n $iters " "$log" \
			"client$k: one sample per iteration"
		# the server adopted each client's own size
		pp_expect_grep "^$((2 * size * iters)) bytes in [0-9.]+ seconds" \
			"$PP_LOGS/server" "server: a run of -s $size"
	done
	n=$(grep -Ec "^$iters iters in " "$PP_LOGS/server" || true)
	if ((n == 3)); then
		echo "ok: server: three runs"
	else
		pp_fail "server: $n runs, expected 3"
	fi
	pp_expect_grep '^served 3 clients \(0 failed\)$' "$PP_LOGS/server" \
		"server: served 3 clients, then ended"
	if grep -q 'xrc_pingpong:' "$PP_LOGS/server"; then
		pp_fail "server printed an error line"
	fi
	;;
stock.server)
	need_device
	need_xrc
	need_stock
	pp_server server "$PP_LOGS/server" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
		"${pp_gid_opt[@]}" -n "$iters" --rdma-core --clients 3
	spid=$pp_pid
	pp_wait_port "$PP_PORT" "$spid" || pp_fail "the server is not listening"
	start_clients ibv_xsrq_pingpong -d "$PP_DEV" -p "$PP_PORT" \
		"${pp_gid_opt[@]}" -n "$iters" "$PP_HOST"
	wait_all
	pp_expect_status "$sst" 0 "our server"
	for k in 1 2 3; do
		pp_expect_status "${cst[k]}" 0 "stock client$k"
		pp_expect_grep '^success$' "$PP_LOGS/client$k" \
			"stock client$k: success"
	done
	n=$(grep -Ec "^$iters iters in " "$PP_LOGS/server" || true)
	if ((n == 3)); then
		echo "ok: our server: three runs"
	else
		pp_fail "our server: $n runs, expected 3"
	fi
	pp_expect_grep "^rdma-core mode: the peer must run: ibv_xsrq_pingpong .*-n $iters" \
		"$PP_LOGS/server" "our server: the stock clients' command line"
	pp_expect_grep '^served 3 clients \(0 failed\)$' "$PP_LOGS/server" \
		"our server: served 3 stock clients, then ended"
	;;
stock.client)
	need_device
	need_xrc
	need_stock
	pp_server server "$PP_LOGS/server" ibv_xsrq_pingpong -d "$PP_DEV" \
		-p "$PP_PORT" "${pp_gid_opt[@]}" -n "$iters" -c 3
	spid=$pp_pid
	pp_wait_port "$PP_PORT" "$spid" || pp_fail "the server is not listening"
	start_clients "$bin" -d "$PP_DEV" -p "$PP_PORT" "${pp_gid_opt[@]}" \
		-T 30 -n "$iters" --rdma-core "$PP_HOST"
	wait_all
	pp_expect_status "$sst" 0 "stock server"
	pp_expect_grep '^success$' "$PP_LOGS/server" "stock server: success"
	for k in 1 2 3; do
		log=$PP_LOGS/client$k
		pp_expect_status "${cst[k]}" 0 "our client$k"
		pp_expect_grep "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" \
			"$log" "our client$k: iters line"
		pp_expect_grep '^latency usec: n [0-9]+ min' "$log" \
			"our client$k: latency summary"
	done
	;;
*)
	echo "FAIL: unknown case '$case' (refused, ours, stock.server, stock.client)"
	exit 1
	;;
esac
pp_finish
