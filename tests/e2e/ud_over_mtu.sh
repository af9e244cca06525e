#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# ud_over_mtu.sh: a UD message one byte larger than the path MTU is refused.
#
# The path MTU is the port's active MTU (both ends share the device here).
# The client asks for MTU + 1 bytes; the server refuses it in the handshake.
# Both sides must print one line naming the size and the MTU and exit 1, at
# once: well before their 60 s -T/--timeout (under a second on an idle
# machine; at most 20 s is asserted), so nothing waited for it.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
bin=$(pp_bin ud_pingpong)
mtu=$(ibv_devinfo -d "$PP_DEV" -i 1 |
	sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
if [[ -z $mtu ]]; then
	echo "FAIL: no active_mtu in ibv_devinfo -d $PP_DEV -i 1"
	exit 1
fi
size=$((mtu + 1))

pp_server server "$PP_LOGS/server" "$bin" -d "$PP_DEV" -p "$PP_PORT" -T 60
spid=$pp_pid
pp_wait_port "$PP_PORT" "$spid" || pp_fail "the server is not listening"
start=$SECONDS
cst=0
pp_client client "$PP_LOGS/client" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
	"${pp_gid_opt[@]}" -n 10 -s "$size" -T 60 "$PP_HOST" || cst=$?
sst=0
pp_wait "$spid" || sst=$?
elapsed=$((SECONDS - start))

for side in server client; do
	echo "--- $side output"
	cat "$PP_LOGS/$side"
done
pp_expect_status "$sst" 1 server
pp_expect_status "$cst" 1 client
line="size: $size is larger than the MTU $mtu \\(UD messages must fit in one MTU; use -s $mtu or less\\)"
pp_expect_grep "^ud_pingpong: $line$" "$PP_LOGS/server" "server names size and MTU"
pp_expect_grep "^ud_pingpong: server: $line$" "$PP_LOGS/client" \
	"client reports the server's line"
for side in server client; do
	n=$(wc -l <"$PP_LOGS/$side")
	if ((n == 1)); then
		echo "ok: $side printed one line"
	else
		pp_fail "$side printed $n lines, expected one"
	fi
done
if ((elapsed <= 20)); then
	echo "ok: both sides ended ${elapsed} s after the client started"
else
	pp_fail "the refusal took ${elapsed} s, expected at most 20"
fi
pp_finish
