#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# pingpong.sh TOOL ITERS [CLIENT-OPTIONS...]: a good run of one of our tools.
#
# The server gets only the device, the TCP port and --trace: it must adopt
# everything else from the client.  Both sides must exit 0, print the stock
# result lines for ITERS iterations of the client's size (bytes: 2 x size x
# ITERS on both sides) and the latency summary, trace the same agreed
# parameters (the server's "parameters:" line is the client's: every
# negotiated one adopted, size, iterations and data validation among them),
# and agree on the addresses: each side's remote address line is the other
# side's local one.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

tool=$1 iters=$2
shift 2
pp_need_device
bin=$(pp_bin "$tool")

pp_server server "$PP_LOGS/server" "$bin" -d "$PP_DEV" -p "$PP_PORT" --trace
spid=$pp_pid
pp_wait_port "$PP_PORT" "$spid" || pp_fail "the server is not listening"
cst=0
pp_client client "$PP_LOGS/client" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
	"${pp_gid_opt[@]}" -n "$iters" --trace "$@" "$PP_HOST" || cst=$?
sst=0
pp_wait "$spid" || sst=$?

for side in server client; do
	echo "--- $side output"
	cat "$PP_LOGS/$side"
done
pp_expect_status "$sst" 0 server
pp_expect_status "$cst" 0 client
# the client's size: its -s, else the default (ud_pingpong 1024, the
# others 4096)
size=4096
[[ $tool != ud_pingpong ]] || size=1024
for ((i = 1; i <= $#; i++)); do
	[[ ${!i} == -s ]] && j=$((i + 1)) && size=${!j}
done
[[ $size != 1M ]] || size=1048576
bytes=$((2 * size * iters))
for side in server client; do
	log=$PP_LOGS/$side
	pp_expect_grep "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" \
		"$log" "$side: stock iters line"
	pp_expect_grep "^$bytes bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$" \
		"$log" "$side: stock bytes line, $bytes bytes"
	pp_expect_grep '^latency usec: n [0-9]+ min [0-9]+\.[0-9]{3} median' \
		"$log" "$side: latency summary"
done
pp_expect_grep "^latency usec: n $iters " "$PP_LOGS/client" \
	"client: one sample per iteration"

# The server adopted everything: its agreed parameters are the client's.
# Each log is read once: grab LOG ERE prints group 1 of each line of LOG
# that matches ERE (the whole line), sorted; in bash for a short log
# (pp_short_log), with sed for a long one, sort(1) for more than one match.
grab() {
	local line got=()
	if ! pp_short_log "$PP_LOGS/$1"; then
		sed -nE "s/$2/\\1/p" "$PP_LOGS/$1" | sort
		return
	fi
	for line in "${pp_lines[@]}"; do
		[[ $line =~ $2 ]] && got+=("${BASH_REMATCH[1]}")
	done
	case ${#got[@]} in
	0) ;;
	1) printf '%s\n' "${got[0]}" ;;
	*) printf '%s\n' "${got[@]}" | sort ;;
	esac
}
params() { grab "$1" '^\[.*\] parameters: (.*)$'; }
addrs() { grab "$1" "^  $2 address: *(.*)\$"; }
p_client=$(params client) p_server=$(params server)
if [[ -z $p_client ]]; then
	pp_fail "client traced no parameters"
elif [[ $p_server != "$p_client" ]]; then
	pp_fail "server's parameters '$p_server' differ from the client's '$p_client'"
elif ! [[ $p_server =~ (^|, )size\ $size,\ .*,\ iterations\ $iters,\  ]]; then
	pp_fail "server's parameters '$p_server' lack size $size, iterations $iters"
else
	echo "ok: the server adopted the client's parameters: $p_server"
fi

# The address lines must cross over: client local == server remote.
c_local=$(addrs client local) c_remote=$(addrs client remote)
s_local=$(addrs server local) s_remote=$(addrs server remote)
if [[ -z $c_local ]]; then
	pp_fail "client printed no local address"
elif [[ $c_local != "$s_remote" ]]; then
	pp_fail "client's local addresses differ from the server's remote ones"
elif [[ $s_local != "$c_remote" ]]; then
	pp_fail "server's local addresses differ from the client's remote ones"
else
	mapfile -t lines <<<"$c_local"
	echo "ok: address lines cross over (${#lines[@]} QPs)"
fi
pp_finish
