#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Smoke test of the test bed with rdma-core's stock tools: the device's port
# is active and ibv_rc_pingpong runs between a server and a client on it.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device

ibv_devinfo -d "$PP_DEV" >"$PP_LOGS/devinfo.log" 2>&1 || true
pp_expect_grep 'state:[[:space:]]+PORT_ACTIVE' "$PP_LOGS/devinfo.log" \
	"ibv_devinfo shows $PP_DEV PORT_ACTIVE"

args=(-d "$PP_DEV" "${pp_gid_opt[@]}" -p "$PP_PORT" -n 1000)
pp_server server "$PP_LOGS/server.log" ibv_rc_pingpong "${args[@]}"
server=$pp_pid
pp_wait_port "$PP_PORT" "$server" || pp_fail "server is not listening on $PP_PORT"
client_status=0
pp_client client "$PP_LOGS/client.log" ibv_rc_pingpong "${args[@]}" "$PP_HOST" ||
	client_status=$?
server_status=0
pp_wait "$server" || server_status=$?

pp_expect_status "$client_status" 0 "ibv_rc_pingpong client"
pp_expect_status "$server_status" 0 "ibv_rc_pingpong server"
pp_expect_grep 'usec/iter' "$PP_LOGS/client.log" "client reports usec/iter"
pp_expect_grep 'usec/iter' "$PP_LOGS/server.log" "server reports usec/iter"
grep -h 'usec/iter' "$PP_LOGS/client.log" "$PP_LOGS/server.log" || true
pp_finish
