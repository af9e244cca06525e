#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# handshake.sh: what the two sides agree on besides the run's numbers, on
# a real port (docs/dev/protocol.md).
#
# 1. The GRH: both sides use one or neither, and both say which.  On RoCE
#    a side always has a GID, so -g on the client only (the index the
#    server chose by itself) still gives "GRH: yes" on both sides, in the
#    output and in --trace.  (InfiniBand's "-g on one side only: no GRH on
#    either" is a unit test: test_hs grh_rule, adopt_grh_one_side.)
# 2. The partition: --pkey carries the P_Key value and each side looks up
#    its own index.  rxe's table holds 0xffff only: --pkey 0xffff runs;
#    a client with --pkey 0x8001 stops before it connects, and a server
#    asked for 0x8001 by a client refuses it, naming the partition and its
#    port's P_Keys, and tells the client.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
bin=$(pp_bin rc_pingpong)
port=$PP_PORT

# run NAME [SERVER_OPTS...] -- [CLIENT_OPTS...]: one run, both exit 0.
run() {
	local name=$1
	shift
	port=$((port + 1))
	echo "=== $name"
	pp_start_run "$name" "$bin" "$port" client "$@"
	pp_wait "$pp_cpid" || pp_fail "$name: client exited with $?"
	pp_wait "$pp_spid" || pp_fail "$name: server exited with $?"
	echo "--- server output"
	cat "$pp_slog"
	echo "--- client output"
	cat "$pp_clog"
}

# 1. GRH, both sides automatic: yes, said on both sides
run grh-auto --trace -- -n 10 --trace
for side in server client; do
	log=$PP_LOGS/$side.grh-auto
	pp_expect_grep '^  GRH: yes \(both sides have a GID\)$' "$log" \
		"grh-auto: the $side says GRH yes"
	pp_expect_grep '^\[.*\] GRH: yes \(both sides have a GID\)$' "$log" \
		"grh-auto: the $side's --trace says it"
done
# the index the server chose, given to the client only
gidx=$(sed -nE 's/^  GID index ([0-9]+): .*chosen automatically.*/\1/p' \
	"$PP_LOGS/server.grh-auto" | head -n 1)
[[ -n $gidx ]] || pp_fail "grh-auto: no GID index in the server's output"
pp_gid_opt=()
run grh-one-side -- -n 10 -g "${gidx:-0}"
for side in server client; do
	pp_expect_grep '^  GRH: yes \(both sides have a GID\)$' \
		"$PP_LOGS/$side.grh-one-side" \
		"grh-one-side: the $side says GRH yes"
done

# 2. the partition by its P_Key
run pkey-ffff --pkey 0xffff --trace -- -n 10 --pkey 0xffff --trace
for side in server client; do
	pp_expect_grep '^\[.*\] P_Key 0xffff: index 0 of port ' \
		"$PP_LOGS/$side.pkey-ffff" "pkey-ffff: the $side found index 0"
done
echo "=== pkey-8001 client"
st=0
pp_client client "$PP_LOGS/client.pkey-8001" "$bin" -d "$PP_DEV" \
	-p "$port" --pkey 0x8001 -T 2 "$PP_HOST" || st=$?
cat "$PP_LOGS/client.pkey-8001"
pp_expect_status "$st" 1 "pkey-8001: client"
pp_expect_grep "^rc_pingpong: P_Key 0x8001: port $PP_DEV:1 is no member of that partition \(its P_Keys: 0xffff; " \
	"$PP_LOGS/client.pkey-8001" "pkey-8001: the client names the partition"

echo "=== pkey-8001 server"
port=$((port + 1))
slog=$PP_LOGS/server.pkey-8001 plog=$PP_LOGS/peer.pkey-8001
pp_server server "$slog" "$bin" -d "$PP_DEV" -p "$port" -T 5
pp_wait_port "$port" "$pp_pid" || pp_fail "pkey-8001: the server is not listening"
pp_client peer "$plog" /usr/bin/python3 "$(dirname "$0")/hostile_peer.py" \
	pkey "$PP_HOST" "$port" 0x8001 || pp_fail "pkey-8001: the peer failed"
st=0
pp_wait "$pp_pid" || st=$?
cat "$slog" "$plog"
pp_expect_status "$st" 1 "pkey-8001: server"
line="P_Key 0x8001: port $PP_DEV:1 of the server is no member of that partition \(its P_Keys: 0xffff; "
pp_expect_grep "^rc_pingpong: $line" "$slog" "pkey-8001: the server names it"
pp_expect_grep "^ERROR: $line" "$plog" "pkey-8001: the client is told"

pp_finish
