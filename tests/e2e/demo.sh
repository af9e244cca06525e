#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# demo.sh [CLIENT-OPTIONS...]: one rc_pingpong server and client on $PP_DEV,
# their output shown as it is.  Run by tests/demo.sh.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
bin=$(pp_bin rc_pingpong)
echo "RDMA device $PP_DEV: $(ibv_devinfo -d "$PP_DEV" 2>/dev/null |
	grep -Eo 'link_layer:.*|active_mtu:.*' | tr -s '\t ' ' ' | paste -sd,)"
pp_server server "$PP_LOGS/server" "$bin" -d "$PP_DEV" -p "$PP_PORT"
spid=$pp_pid
pp_wait_port "$PP_PORT" "$spid" || pp_fail "the server is not listening"
cst=0
# No -g: both sides choose their GID and print why (README).
pp_client client "$PP_LOGS/client" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
	"$@" "$PP_HOST" || cst=$?
sst=0
pp_wait "$spid" || sst=$?
echo
echo "=== server: $bin -d $PP_DEV -p $PP_PORT (exit $sst)"
cat "$PP_LOGS/server"
echo
echo "=== client: $bin -d $PP_DEV -p $PP_PORT $* $PP_HOST (exit $cst)"
cat "$PP_LOGS/client"
pp_expect_status "$sst" 0 server
pp_expect_status "$cst" 0 client
pp_finish
