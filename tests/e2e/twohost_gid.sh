#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# twohost_gid.sh: the automatic GID choice on hosts with several addresses
# (guest.sh --pair). Both hosts get a VLAN interface eth0.100 with its own
# subnet (10.99.2.0/24) besides eth0 (10.99.1.0/24); host A also has IPv6
# global addresses (fd00:99:1::1 on eth0, fd00:99:2::1 on eth0.100) that B
# lacks at first. Each side computes from sysfs the index of the RoCE v2
# GID of the local address its TCP connection uses, on that netdev.
#
#   vlan4      B connects to 10.99.2.1: on both sides, with no -g, the GID
#              of the local 10.99.2.x on eth0.100, "the local address of
#              this connection" (today's code takes eth0's IPv4 GID: the
#              defect of issue 14); --json gives the same "gid_index"
#   vlan4.g    -g given by hand (eth0's IPv4 GID) wins on both sides
#   vlan6      B gets IPv6 too; B connects to fd00:99:2::1: the IPv6 GID on
#              eth0.100 on both sides
#   eth6       B connects to fd00:99:1::1: the IPv6 GID on eth0
#
# Every case runs RC with -c and must pass. The VLAN and addresses are
# removed at the end.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_pair_need
x=1
[[ $PP_ROLE == A ]] || x=2
bin=$(pp_bin rc_pingpong)

pp_on_exit "ip -6 addr del fd00:99:1::$x/64 dev eth0"
pp_pair_vlan
add6() { # add6 PREFIX NETDEV
	ip -6 addr add "$1$x/64" dev "$2" nodad
	pp_wait_gid "$1$x" "$2" >/dev/null || pp_fail "host $PP_ROLE: no GID for $1$x on $2"
}
if [[ $PP_ROLE == A ]]; then
	add6 fd00:99:1:: eth0
	add6 fd00:99:2:: eth0.100
fi
echo "host $PP_ROLE: GIDs of $PP_DEV port 1:"
pp_show_gids
pp_tell "setup.$PP_ROLE"
pp_hear "setup.$pp_peer" >/dev/null

# run NAME LOCAL-IP NETDEV TARGET [OPTIONS...]: RC across the hosts, the
# client connecting to TARGET; each side tells the other the GID index of
# LOCAL-IP (its own address on that connection) on NETDEV, from sysfs.
run() {
	local name=$1 ip=$2 dev=$3 target=$4 n
	shift 4
	n=$(pp_gid_of "$ip" "$dev")
	pp_tell "$name.gid.$PP_ROLE" "$n"
	pp_pair_next
	pp_pair_run "$name" "$bin" -d "$PP_DEV" -p "$pp_pair_port" "$@" -- \
		"$bin" -d "$PP_DEV" -p "$pp_pair_port" -n 100 -c "$@" "$target"
	gid_a=$(pp_hear "$name.gid.A") gid_b=$(pp_hear "$name.gid.B")
}
# check NAME FAMILY A-IP B-IP NETDEV [JSON]: both sides chose automatically
# the GID of their own address on NETDEV and said why.
check() {
	local name=$1 fam=$2 ip side n
	[[ $PP_ROLE == B ]] || return 0
	pp_expect_status "$pp_sa" 0 "$name: server on A"
	pp_expect_status "$pp_sb" 0 "$name: client on B"
	for side in A B; do
		if [[ $side == A ]]; then ip=$3 n=$gid_a; else ip=$4 n=$gid_b; fi
		[[ -n $n ]] || {
			pp_fail "$name: host $side has no GID for $ip on $5"
			continue
		}
		[[ $fam == IPv6 ]] || ip=::ffff:$ip
		if [[ -n ${6:-} ]]; then
			pp_expect_grep "\"gid_index\": *${n}([^0-9]|$)" "$PP_MEET/$name.$side" \
				"$name: host $side: --json gives gid_index $n ($ip on $5)"
		else
			pp_expect_grep "GID index $n: RoCE v2, $fam ${ip//./\\.} on ${5//./\\.}, the local address of this connection" \
				"$PP_MEET/$name.$side" "$name: host $side: GID $n, its address on this connection"
		fi
	done
}

mine=10.99.2.$x
run vlan4 "$mine" eth0.100 10.99.2.1
check vlan4 IPv4 10.99.2.1 10.99.2.2 eth0.100
run vlan4.json "$mine" eth0.100 10.99.2.1 --json
check vlan4.json IPv4 10.99.2.1 10.99.2.2 eth0.100 json

# -g by hand wins: eth0's IPv4 GID although the connection is on the VLAN.
g=$(pp_gid_of "10.99.1.$x" eth0)
run vlan4.g "10.99.1.$x" eth0 10.99.2.1 -g "$g"
if [[ $PP_ROLE == B ]]; then
	pp_expect_status "$pp_sa" 0 "vlan4.g: server on A"
	pp_expect_status "$pp_sb" 0 "vlan4.g: client on B"
	for side in A B; do
		if [[ $side == A ]]; then n=$gid_a ip=10.99.1.1; else n=$gid_b ip=10.99.1.2; fi
		pp_expect_grep "^  GID index $n: RoCE v2, .*${ip//./\\.}([^0-9]|$)" \
			"$PP_MEET/vlan4.g.$side" "vlan4.g: host $side: -g $n wins"
		if grep -q 'chosen automatically' "$PP_MEET/vlan4.g.$side"; then
			pp_fail "vlan4.g: host $side says 'chosen automatically' with -g"
		fi
	done
fi

# B gets IPv6 too.
pp_tell "v6.$PP_ROLE"
pp_hear "v6.$pp_peer" >/dev/null
if [[ $PP_ROLE == B ]]; then
	add6 fd00:99:1:: eth0
	add6 fd00:99:2:: eth0.100
fi
pp_tell "v6up.$PP_ROLE"
pp_hear "v6up.$pp_peer" >/dev/null
run vlan6 "fd00:99:2::$x" eth0.100 fd00:99:2::1
check vlan6 IPv6 fd00:99:2::1 fd00:99:2::2 eth0.100
run eth6 "fd00:99:1::$x" eth0 fd00:99:1::1
check eth6 IPv6 fd00:99:1::1 fd00:99:1::2 eth0
pp_finish
