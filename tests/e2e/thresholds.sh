#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# thresholds.sh: --expect-mtu and --max-rtt make a run that ran exit 4
# (docs/thresholds.md).
#
# On the one-guest bed both sides use rxe0 on its netdev (MTU 1500), whose
# active MTU is 1024. So:
# 1. --expect-mtu 4096 on both sides: both exit 4, both print the same
#    line naming the active MTU 1024 and the netdev MTU (read from sysfs
#    here), and the client still prints its figures;
# 2. --expect-mtu 4096 on the server alone: the client judges too (exit 4);
# 3. --expect-mtu 1024: both exit 0;
# 4. --max-rtt 0.001 on the client: the client exits 4 naming its median,
#    the server 0; a large --max-rtt: 0;
# 5. --json: status.exit 4 and thresholds.exceeded ["expect_mtu"].
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
bin=$(pp_bin rc_pingpong)
active=$(ibv_devinfo -d "$PP_DEV" -i 1 |
	sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
gid=${PP_GID:-1}
ndev=$(cat "/sys/class/infiniband/$PP_DEV/ports/1/gid_attrs/ndevs/$gid")
netdev_mtu=$(cat "/sys/class/net/$ndev/mtu")
echo "active MTU $active, GID $gid on $ndev, netdev MTU $netdev_mtu"
[[ $active == 1024 ]] || pp_fail "the bed's active MTU is $active, not 1024"

# run NAME SERVER_OPTS CLIENT_OPTS: a pair; statuses in $sst and $cst
run() {
	local name=$1 sopts=$2 copts=$3
	# shellcheck disable=SC2086
	pp_server "$name.server" "$PP_LOGS/$name.server" "$bin" -d "$PP_DEV" \
		-p "$PP_PORT" -T 30 $sopts
	local spid=$pp_pid
	pp_wait_port "$PP_PORT" "$spid" || pp_fail "$name: server not listening"
	cst=0
	# shellcheck disable=SC2086
	pp_client "$name.client" "$PP_LOGS/$name.client" "$bin" -d "$PP_DEV" \
		-p "$PP_PORT" "${pp_gid_opt[@]}" -n 50 -T 30 $copts "$PP_HOST" ||
		cst=$?
	sst=0
	pp_wait "$spid" || sst=$?
	for side in server client; do
		echo "--- $name.$side"
		cat "$PP_LOGS/$name.$side"
	done
	PP_PORT=$((PP_PORT + 1))
}

line="path MTU 1024 is below --expect-mtu 4096: the active MTU of both the server (netdev MTU $netdev_mtu) and the client (netdev MTU $netdev_mtu) is 1024: raise both sides' netdev MTU to at least 4200 (4096 and the RoCE headers), or give --expect-mtu 1024"

# the line as an extended regular expression
re=$(printf '%s' "$line" | sed 's/[][().*^$+?{}|\\]/\\&/g')

run both "--expect-mtu 4096" "--expect-mtu 4096"
pp_expect_status "$sst" 4 "server (--expect-mtu 4096)"
pp_expect_status "$cst" 4 "client (--expect-mtu 4096)"
for side in server client; do
	pp_expect_grep "^rc_pingpong: $re$" "$PP_LOGS/both.$side" \
		"$side names active MTU 1024 and netdev MTU $netdev_mtu"
done
pp_expect_grep "^latency usec: n 50 " "$PP_LOGS/both.client" \
	"the client still ran and printed its figures"
pp_expect_grep "^thresholds: path MTU 1024, --expect-mtu 4096: BELOW$" \
	"$PP_LOGS/both.client" "the text line of the thresholds"

run server_only "--expect-mtu 4096" ""
pp_expect_status "$sst" 4 "server (its own --expect-mtu)"
pp_expect_status "$cst" 4 "client (the server's --expect-mtu)"
pp_expect_grep "^rc_pingpong: $re$" "$PP_LOGS/server_only.client" \
	"the client prints the same line"

run mtu_ok "" "--expect-mtu 1024"
pp_expect_status "$sst" 0 "server (--expect-mtu 1024 met)"
pp_expect_status "$cst" 0 "client (--expect-mtu 1024 met)"

run rtt_low "" "--max-rtt 0.001"
pp_expect_status "$sst" 0 "server (it measures nothing)"
pp_expect_status "$cst" 4 "client (--max-rtt 0.001)"
pp_expect_grep '^rc_pingpong: median round trip [0-9]+\.[0-9]{3} usec is above --max-rtt 0.001 usec \(size 4096\)$' \
	"$PP_LOGS/rtt_low.client" "the client names the median, the limit, the size"

run rtt_high "" "--max-rtt 100000000"
pp_expect_status "$sst" 0 "server (a large --max-rtt)"
pp_expect_status "$cst" 0 "client (a large --max-rtt)"

run json "" "--expect-mtu 4096 --json"
pp_expect_status "$cst" 4 "client (--json)"
pp_expect_status "$sst" 4 "server (the client's --expect-mtu)"
if grep '^{' "$PP_LOGS/json.client" | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["thresholds"]
assert d["status"]["exit"] == 4, d["status"]
assert t["expect_mtu"] == 4096 and t["path_mtu"] == 1024, t
assert t["exceeded"] == ["expect_mtu"], t
assert t["lines"][0].startswith("path MTU 1024 is below --expect-mtu 4096"), t
'; then
	echo "ok: the JSON document says status 4 and which threshold"
else
	pp_fail "the JSON document's thresholds are wrong"
fi
pp_finish
