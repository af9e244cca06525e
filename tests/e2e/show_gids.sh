#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# show_gids.sh: --show-gids describes port 1 of the device as sysfs and
# ibv_devinfo do, with no peer and no TCP connection.
#
# Checks, for every tool that was built:
#   - "--show-gids -d $PP_DEV" exits 0 without a peer (a tool that waited
#     for one would be killed after $show_timeout s: status 124); all tools
#     print the same text;
#   - the port line: state, link layer, LID, active and max MTU (from
#     ibv_devinfo), populated and total GIDs (from sysfs);
#   - one row per populated GID in sysfs: index, type, network device, IP
#     address (IPv4-mapped GIDs as a.b.c.d) and, for IPv4-mapped ones, the
#     GID text; no row for an empty entry;
#   - --json gives the same port and GIDs as one JSON document;
#   - without -d the device is listed too; an unknown -d exits 1 with one line
#     naming the devices that exist.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
port=1
show_timeout=30 # generous: an emulated guest on a busy host is slow to start
sys=/sys/class/infiniband/$PP_DEV/ports/$port

devinfo() {
	ibv_devinfo -d "$PP_DEV" -i "$port" |
		sed -n "s/^[[:space:]]*$1:[[:space:]]*\\([0-9]*\\).*/\\1/p"
}
active_mtu=$(devinfo active_mtu)
max_mtu=$(devinfo max_mtu)
link_layer=$(cat "$sys/link_layer")
if [[ -z $active_mtu || -z $max_mtu ]]; then
	echo "FAIL: no MTU in ibv_devinfo -d $PP_DEV -i $port"
	exit 1
fi

# "fe80:0000:...:c0a9" -> the IPv4 address if IPv4-mapped, else nothing.
v4_of() {
	local g=$1
	[[ $g == 0000:0000:0000:0000:0000:ffff:* ]] || return 0
	g=${g#0000:0000:0000:0000:0000:ffff:}
	g=${g//:/}
	printf '%d.%d.%d.%d' "0x${g:0:2}" "0x${g:2:2}" "0x${g:4:2}" "0x${g:6:2}"
}

# The rows sysfs implies, as extended regexes, one per populated GID. The
# table may have 1024 entries or more: read them with builtins, no fork each
# (a fork costs milliseconds in an emulated guest).
zero=0000:0000:0000:0000:0000:0000:0000:0000
total=0
populated=0
rows=()
for path in "$sys"/gids/*; do
	i=${path##*/}
	total=$((total + 1))
	gid=
	read -r gid 2>/dev/null <"$path" || true
	[[ -n $gid && $gid != "$zero" ]] || continue
	populated=$((populated + 1))
	type="IB/RoCE v1" # what sysfs says, or an old kernel that says nothing
	read -r type 2>/dev/null <"$sys/gid_attrs/types/$i" || true
	ndev=
	read -r ndev 2>/dev/null <"$sys/gid_attrs/ndevs/$i" || true
	case $type in
	"RoCE v2") ;;
	*) [[ $link_layer == Ethernet ]] && type="RoCE v1" || type=IB ;;
	esac
	v4=$(v4_of "$gid")
	if [[ $type == IB ]]; then
		ip='-'
		text='[0-9a-f:]+'
	elif [[ -n $v4 ]]; then
		ip=${v4//./\\.}
		text="::ffff:$ip"
	else
		ip='[0-9a-f:]+'
		text='[0-9a-f:]+'
	fi
	rows+=("^ +$i  $type +${ndev:--} +$ip +$text\$")
done
echo "sysfs: $PP_DEV port $port, $link_layer, MTU $active_mtu/$max_mtu, $populated of $total GIDs populated"
if ((populated == 0)); then
	echo "FAIL: $PP_DEV port $port has no GID in sysfs: nothing to compare"
	exit 1
fi

first=
for tool in rc_pingpong ud_pingpong srq_pingpong xrc_pingpong; do
	[[ -x ${PP_BIN:?}/$tool/$tool ]] || continue
	bin=$(pp_bin "$tool")
	log=$PP_LOGS/$tool
	st=0
	PP_STEP_TIMEOUT=$show_timeout pp_client "$tool" "$log" "$bin" \
		--show-gids -d "$PP_DEV" || st=$?
	echo "--- $tool output"
	cat "$log"
	pp_expect_status "$st" 0 "$tool --show-gids"
	if [[ -n $first ]]; then
		if cmp -s "$PP_LOGS/$first" "$log"; then
			echo "ok: $tool prints what $first prints"
		else
			pp_fail "$tool and $first differ:"
			diff "$PP_LOGS/$first" "$log" | sed 's/^/    /' || true
		fi
		continue
	fi
	first=$tool
	pp_expect_grep "^$PP_DEV port $port: active, $link_layer, LID 0x[0-9a-f]{4}, active MTU $active_mtu, max MTU $max_mtu, $populated of $total GIDs populated\$" \
		"$log" "port line"
	for row in "${rows[@]}"; do
		pp_expect_grep "$row" "$log" "GID row $row"
	done
	n=$(grep -Ec '^ +[0-9]+  ' "$log" || true)
	if ((n == populated)); then
		echo "ok: $n GID rows, one per populated entry"
	else
		pp_fail "$n GID rows, expected $populated"
	fi
done
if [[ -z $first ]]; then
	echo "FAIL: no tool built in $PP_BIN"
	exit 1
fi

# The same, as JSON (--show-gids --json): one document, the same port and
# GIDs.
bin=$(pp_bin "$first")
st=0
PP_STEP_TIMEOUT=$show_timeout pp_client json "$PP_LOGS/json" "$bin" --show-gids \
	--json -d "$PP_DEV" -i "$port" || st=$?
pp_expect_status "$st" 0 "$first --show-gids --json"
if python3 - "$PP_LOGS/json" <<EOF; then
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
d = json.loads(lines[0])
assert d["schema"] == 1
(p,) = d["ports"]
assert p["device"] == "$PP_DEV" and p["port"] == $port, p
assert p["active_mtu"] == $active_mtu and p["max_mtu"] == $max_mtu, p
assert p["link_layer"] == "$link_layer", p
assert p["gid_tbl_len"] == $total, p
assert len(p["gids"]) == $populated, p["gids"]
for g in p["gids"]:
    assert sorted(g) == ["gid", "index", "ip", "netdev", "type"], g
if "$link_layer" == "Ethernet":
    assert any(g["type"] == "RoCE v2" and g["ip"] for g in p["gids"]), p["gids"]
EOF
	echo "ok: --json: port, MTUs and $populated GIDs as in sysfs"
else
	pp_fail "--show-gids --json does not match sysfs: $(cut -c1-300 "$PP_LOGS/json")"
fi

# Every device, when -d is not given.
st=0
PP_STEP_TIMEOUT=$show_timeout pp_client all "$PP_LOGS/all" "$bin" --show-gids || st=$?
pp_expect_status "$st" 0 "$first --show-gids (every device)"
pp_expect_grep "^$PP_DEV port $port: " "$PP_LOGS/all" "$PP_DEV listed"

# An unknown device: one line, the devices that exist, a failure status.
st=0
PP_STEP_TIMEOUT=$show_timeout pp_client unknown "$PP_LOGS/unknown" "$bin" --show-gids \
	-d nosuchdev0 || st=$?
cat "$PP_LOGS/unknown"
pp_expect_status "$st" 1 "-d nosuchdev0"
pp_expect_grep "^$first: device nosuchdev0 not found \\(devices here: .*$PP_DEV" \
	"$PP_LOGS/unknown" "unknown device named, devices listed"
n=$(wc -l <"$PP_LOGS/unknown")
if ((n == 1)); then
	echo "ok: one line for the unknown device"
else
	pp_fail "$n lines for the unknown device, expected one"
fi
pp_finish
