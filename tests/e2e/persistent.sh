#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# persistent.sh [CLIENTS]: one rc_pingpong --persistent server serves
# CLIENTS (default 60) clients in a row, every fifth of them hostile, then
# one more good client with data validation, and stops cleanly at SIGINT.
# Serving a client leaks nothing: after the first dozen clients and after
# the last, the server holds the same file descriptors, and its address
# space has grown by less than 16 KiB per client (one client's buffers, QP
# and CQ take about 96 KiB; the heap settles within about 130 KiB).
#
# The hostile fifth cycles through: random bytes, a truncated record, a
# record of the protocol version after ours, connect-and-close (bash /dev/tcp: a python
# start costs seconds in the emulated guest), a ud_pingpong client (wrong
# transport binary), and an rc client asking for an MTU the port cannot do.
# Each must cost one line on the server's stderr, naming the client
# ("rc_pingpong: client 127.0.0.1:40222: bad HELLO from the client: bad
# magic"), and nothing else: the same server process serves the next one.
# The good clients use -n 10 to keep the run short.  At the end the server
# gets SIGINT between clients: it prints "stopped by SIGINT after N clients
# (M failed)" and exits 0.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

clients=${1:-60}
pp_need_device
rc=$(pp_bin rc_pingpong)
ud=$(pp_bin ud_pingpong)
port=$PP_PORT
slog=$PP_LOGS/server
# the protocol version and HELLO's length, from the one source of the wire
# format
wire_h=$(dirname "$0")/../../common/base/pp_wire.h
ver=$(sed -n 's/^#define PP_WIRE_VERSION \([0-9]*\)$/\1/p' "$wire_h")
hello_len=$(sed -n 's/^#define PP_WIRE_HELLO_LEN \([0-9]*\)$/\1/p' "$wire_h")
[[ -n $ver && -n $hello_len ]] ||
	pp_fail "no PP_WIRE_VERSION or PP_WIRE_HELLO_LEN in $wire_h"
# hdr_hello VERSION: a HELLO's header (printf format) after the magic
hdr_hello() {
	printf '\\x00\\x%02x\\x00\\x01\\x00\\x00\\x00\\x%02x' "$1" "$hello_len"
}
kinds=(garbage truncated badversion close wrongbinary badmtu)
declare -A want=(
	[garbage]='bad HELLO from the client: bad magic'
	[truncated]='the client closed the connection before sending HELLO'
	[badversion]="protocol version: client $((ver + 1)), server $ver"
	[close]='the client closed the connection before sending HELLO'
	[wrongbinary]='transport binary: client ud_pingpong, server rc_pingpong'
	[badmtu]='MTU: .*4096.*'
)
hdr='\x50\x50\x4e\x47' # "PPNG"

# raw BYTES: connect, send BYTES (printf format), close.
raw() {
	exec 3<>"/dev/tcp/$PP_HOST/$port"
	# shellcheck disable=SC2059 # the bytes are the format
	printf "$1" >&3
	exec 3>&-
}

# hostile KIND LOG: one bad client; returns 1 if it did not behave.
hostile() {
	local st=0
	case $1 in
	garbage) raw '\x47\x45\x54\x20/ HTTP/1.0\r\n\r\n' ;;
	truncated) raw "$hdr$(hdr_hello "$ver")"'\x00\x00\x00' ;;
	badversion) raw "$hdr$(hdr_hello $((ver + 1)))" ;;
	close) raw '' ;;
	wrongbinary)
		"$ud" -d "$PP_DEV" -p "$port" "${pp_gid_opt[@]}" -n 10 -T 10 \
			"$PP_HOST" >"$2" 2>&1 || st=$?
		[[ $st == 1 ]] && grep -q "^ud_pingpong: server: ${want[wrongbinary]}\$" "$2"
		return
		;;
	badmtu)
		"$rc" -d "$PP_DEV" -p "$port" "${pp_gid_opt[@]}" -n 10 -T 10 \
			-m 4096 "$PP_HOST" >"$2" 2>&1 || st=$?
		[[ $st == 1 ]] && grep -Eq "^rc_pingpong: (server: )?${want[badmtu]}\$" "$2"
		return
		;;
	esac
}

PP_STEP_TIMEOUT=3600 pp_server server "$slog" "$rc" -d "$PP_DEV" -p "$port" \
	-T 5 --persistent
spid=$pp_pid
pp_wait_port "$port" "$spid" || pp_fail "the server is not listening"
server=$(pp_tool_pid "$spid")

# held: the server's open descriptors and address space in KiB (VmSize)
held() {
	local fds=("/proc/$server/fd/"*) line
	while read -r line; do
		[[ $line != VmSize:* ]] || set -- "${line//[^0-9]/}"
	done <"/proc/$server/status"
	echo "${#fds[@]} ${1:-0}"
}

t0=$(pp_now_ms)
nbad=0
warm=12 held0=
declare -A sent=()
for ((i = 1; i <= clients; i++)); do
	log=$PP_LOGS/client.$i
	if ((i % 5 == 0)); then
		kind=${kinds[$(((i / 5) % ${#kinds[@]}))]}
		nbad=$((nbad + 1))
		sent[$kind]=$((${sent[$kind]:-0} + 1))
		hostile "$kind" "$log" || {
			pp_fail "client $i ($kind) did not end as expected:"
			pp_indent '    ' "$log" 2>/dev/null || true
		}
	elif ! timeout -k 5 60 "$rc" -d "$PP_DEV" -p "$port" "${pp_gid_opt[@]}" \
		-n 10 -T 10 "$PP_HOST" >"$log" 2>&1; then
		pp_fail "good client $i failed:"
		pp_indent '    ' "$log"
	fi
	if ! kill -0 "$server" 2>/dev/null; then
		pp_fail "the server is gone after client $i"
		break
	fi
	((i != warm)) || held0=$(held)
done
ms=$(($(pp_now_ms) - t0))
echo "$clients clients ($nbad hostile) in $ms ms"
if [[ -n $held0 ]] && kill -0 "$server" 2>/dev/null; then
	sleep 0.5 # the server closes the last client's resources
	read -r fd0 vm0 <<<"$held0"
	read -r fd1 vm1 <<<"$(held)"
	echo "server after client $warm: $fd0 descriptors, VmSize $vm0 KiB; after client $clients: $fd1, $vm1 KiB"
	((fd1 == fd0)) || pp_fail "the server holds $((fd1 - fd0)) more descriptors after $((clients - warm)) more clients: a client's descriptor leaks"
	((vm1 - vm0 < 16 * (clients - warm))) ||
		pp_fail "the server's address space grew by $((vm1 - vm0)) KiB over $((clients - warm)) clients: a client's memory leaks"
fi

pp_client good "$PP_LOGS/good" "$rc" -d "$PP_DEV" -p "$port" \
	"${pp_gid_opt[@]}" -n 1000 -c -T 10 "$PP_HOST" && st=0 || st=$?
cat "$PP_LOGS/good"
pp_expect_status "$st" 0 "the last good client (-c)"
pp_expect_grep '^1000 iters in ' "$PP_LOGS/good" "the last client's result"
[[ $(pp_tool_pid "$spid") == "$server" ]] || pp_fail "the server process changed"

sleep 0.5 # let the server get back to accept()
kill -INT "$server"
sst=0
pp_wait "$spid" || sst=$?
echo "--- server: refusals and the last lines"
grep '^rc_pingpong: ' "$slog" | sed -E 's/client [0-9.]+:[0-9]+:/client ADDR:/' |
	sort | uniq -c | sed 's/^/    /'
tail -n 3 "$slog"
pp_expect_status "$sst" 0 "the server, stopped between clients"
total=$((clients + 1))
pp_expect_grep "^stopped by SIGINT after $total clients \\($nbad failed\\)\$" \
	"$slog" "the server counted $total clients, $nbad failed"
n=$(grep -c '^rc_pingpong: client ' "$slog" || true)
if ((n == nbad)); then
	echo "ok: one line per refused client ($n)"
else
	pp_fail "$n lines for $nbad refused clients"
fi
for kind in "${!sent[@]}"; do
	n=$(grep -Ec "^rc_pingpong: client 127\\.0\\.0\\.1:[0-9]+: ${want[$kind]}\$" "$slog" || true)
	case $kind in
	truncated | close) need=$((${sent[truncated]:-0} + ${sent[close]:-0})) ;;
	*) need=${sent[$kind]} ;;
	esac
	if ((n == need)); then
		echo "ok: $kind: $n server lines"
	else
		pp_fail "$kind: $n server lines, expected $need"
	fi
done
n=$(grep -c '^10 iters in ' "$slog" || true)
if ((n == clients - nbad)); then
	echo "ok: $n good runs of 10 iterations"
else
	pp_fail "$n good runs of 10 iterations, expected $((clients - nbad))"
fi
pp_finish
