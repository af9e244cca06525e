#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# twohost_probe.sh: rc_pingpong --probe on the two-host bed of issue 15
# (guest.sh --pair). Both hosts get a VLAN interface eth0.100 with its own
# subnet (10.99.2.0/24) besides eth0 (10.99.1.0/24), and IPv6 global
# addresses on both (fd00:99:1::x on eth0, fd00:99:2::x on eth0.100);
# host A's eth0 MTU stays 1500 (rxe active MTU 1024), B's is raised to 4200
# (4096). A runs a --persistent server; B probes it with --json: the
# document on stdout, the plan and the table on stderr, from the same rows.
#
# probe_check.py then checks, from both hosts' --show-gids --json: one row
# per compatible GID pair (same type, same family, link-local with
# link-local) and MTU (256, 512, 1024: none above A's 1024), in order; the JSON
# document parses and has the same rows and results as the table; the
# automatic pair (eth0's IPv4 GIDs, the addresses of the connection) at MTU
# 1024 is marked auto and works; pairs on the same netdev work; IPv4 pairs
# across the two subnets fail, with the step and the reason.
# The server keeps serving throughout and says which clients were queries.
# A HELLO asking for a server GID index that is empty is refused, naming it.
# Toward a server without --persistent, the probe stops after the query and
# says that the server must be --persistent.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_pair_need
x=1
[[ $PP_ROLE == A ]] || x=2
bin=$(pp_bin rc_pingpong)
pp_pair_next

# active MTU of port 1 (sysfs has none): "1024"
active_mtu() {
	ibv_devinfo -d "$PP_DEV" -i 1 | sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
}

pp_on_exit "ip -6 addr del fd00:99:1::$x/64 dev eth0"
pp_on_exit 'ip link set eth0 mtu 1500'
# IPv6 needs a netdev MTU of 1280 at least: A keeps 1500 (rxe active MTU
# 1024), B gets 4200 (4096), as in twohost_mtu.sh
if [[ $PP_ROLE == A ]]; then
	want_mtu=1024
else
	ip link set eth0 mtu 4200
	want_mtu=4096
fi
for ((i = 0; i < 50; i++)); do
	[[ $(active_mtu) != "$want_mtu" ]] || break
	sleep 0.2
done
[[ $(active_mtu) == "$want_mtu" ]] ||
	pp_fail "host $PP_ROLE: rxe active MTU $(active_mtu), expected $want_mtu"
pp_pair_vlan
add6() { # add6 PREFIX NETDEV
	ip -6 addr add "$1$x/64" dev "$2" nodad
	pp_wait_gid "$1$x" "$2" >/dev/null || pp_fail "host $PP_ROLE: no GID for $1$x on $2"
}
add6 fd00:99:1:: eth0
add6 fd00:99:2:: eth0.100
# the link-local GID of the VLAN comes with its IPv6 link-local address
sleep 1
echo "host $PP_ROLE: eth0 mtu $(cat /sys/class/net/eth0/mtu), rxe active MTU $(active_mtu); GIDs of $PP_DEV port 1:"
pp_show_gids
"$bin" --show-gids --json -d "$PP_DEV" -i 1 >"$PP_MEET/gids.$PP_ROLE.json" ||
	pp_fail "host $PP_ROLE: --show-gids --json failed"
pp_tell "setup.$PP_ROLE"
pp_hear "setup.$pp_peer" >/dev/null

log=$PP_LOGS/server
if [[ $PP_ROLE == A ]]; then
	PP_STEP_TIMEOUT=400 pp_server "probe server" "$log" "$bin" -d "$PP_DEV" -p "$pp_pair_port" --persistent
	spid=$pp_pid
	pp_wait_port "$pp_pair_port" "$spid" ||
		pp_fail "the server is not listening on $pp_pair_port"
	pp_tell listen
	pp_hear probed 300 >/dev/null || true
	pp_signal_tool INT "$spid" 2>/dev/null || true
	st=0
	pp_wait "$spid" || st=$?
	cp "$log" "$PP_MEET/server.A"
	pp_tell server.status "$st"
	# a server without --persistent: it ends after the query
	pp_pair_next
	pp_server "plain server" "$log.plain" "$bin" -d "$PP_DEV" -p "$pp_pair_port"
	spid=$pp_pid
	pp_wait_port "$pp_pair_port" "$spid" ||
		pp_fail "the plain server is not listening on $pp_pair_port"
	pp_tell listen.plain
	st=0
	pp_wait "$spid" || st=$?
	cp "$log.plain" "$PP_MEET/server.plain.A"
	pp_tell server.plain.status "$st"
	pp_finish
fi

pp_hear listen >/dev/null
t0=$(pp_now_ms)
st=0
timeout -k 5 300 "$bin" -d "$PP_DEV" -p "$pp_pair_port" --probe --json \
	"$PP_ADDR_A" >"$PP_LOGS/probe.json" 2>"$PP_LOGS/probe.txt" || st=$?
echo "probe --json: $((($(pp_now_ms) - t0) / 1000)) s; the table (stderr):"
pp_indent '    ' "$PP_LOGS/probe.txt"
pp_expect_status "$st" 0 "--probe --json"
pp_expect_grep '^probe: [0-9]+ GID pairs x 3 MTUs \(256\.\.1024\) = [0-9]+ rows, each at most [0-9]+ s' \
	"$PP_LOGS/probe.txt" "the plan first, with the probe's length"
# the server refuses a GID index that is not a populated GID of its port
ans=$(python3 "$(dirname "$0")/hostile_peer.py" peergid "$PP_ADDR_A" "$pp_pair_port" 200) ||
	pp_fail "hostile_peer.py peergid: no connection"
echo "peer_gid_index 200: $ans"
if [[ $ans == "ERROR: server GID index asked by the client: GID index 200 "*" (see --show-gids)" ]]; then
	echo "ok: a GID index that is not the server's, refused naming it"
else
	pp_fail "peer_gid_index 200: answer '$ans'"
fi
pp_tell probed
sst=$(pp_hear server.status) || sst=none
echo "--- server on A (exit $sst):"
pp_indent '    ' "$PP_MEET/server.A"
pp_expect_status "$sst" 0 "the --persistent server, stopped by SIGINT"
pp_expect_grep 'sent the GID table \(a --probe query\)' "$PP_MEET/server.A" \
	"the server: the query is not a failed client"

# a server without --persistent: the probe stops after the query, saying why
pp_pair_next
pp_hear listen.plain >/dev/null
st=0
pp_client "probe, plain server" "$PP_LOGS/probe.plain" "$bin" -d "$PP_DEV" \
	-p "$pp_pair_port" --probe "$PP_ADDR_A" || st=$?
pp_indent '    ' "$PP_LOGS/probe.plain"
pp_expect_status "$st" 1 "--probe toward a server without --persistent"
pp_expect_grep 'stopped taking clients after the query \(.*\): --probe needs a server started with --persistent \(0 of [0-9]+ rows run\)' \
	"$PP_LOGS/probe.plain" "--probe says the server must be --persistent"
sst=$(pp_hear server.plain.status) || sst=none
pp_expect_status "$sst" 0 "the plain server, after the query"

python3 "$(dirname "$0")/probe_check.py" "$PP_MEET/gids.B.json" \
	"$PP_MEET/gids.A.json" "$PP_LOGS/probe.txt" "$PP_LOGS/probe.json" \
	"$PP_ADDR_B" "$PP_ADDR_A" || pp_fail "probe_check.py"
pp_finish
