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
params() { sed -n 's/^\[.*\] parameters: //p' "$PP_LOGS/$1"; }
if [[ -z $(params client) ]]; then
	pp_fail "client traced no parameters"
elif [[ $(params server) != "$(params client)" ]]; then
	pp_fail "server's parameters '$(params server)' differ from the client's '$(params client)'"
elif ! grep -Eq "(^|, )size $size, .*, iterations $iters, " <<<"$(params server)"; then
	pp_fail "server's parameters '$(params server)' lack size $size, iterations $iters"
else
	echo "ok: the server adopted the client's parameters: $(params server)"
fi

# The address lines must cross over: client local == server remote.
addrs() { sed -n "s/^  $2 address: *//p" "$PP_LOGS/$1" | sort; }
if [[ -z $(addrs client local) ]]; then
	pp_fail "client printed no local address"
elif [[ $(addrs client local) != "$(addrs server remote)" ]]; then
	pp_fail "client's local addresses differ from the server's remote ones"
elif [[ $(addrs server local) != "$(addrs client remote)" ]]; then
	pp_fail "server's local addresses differ from the client's remote ones"
else
	echo "ok: address lines cross over ($(addrs client local | wc -l) QPs)"
fi
pp_finish
