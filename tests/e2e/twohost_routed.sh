#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# twohost_routed.sh: routed RoCE v2 between two hosts on different subnets
# (guest.sh --pair), with an IP router between them.
#
# The router is a network namespace in host B, forwarding between two
# segments: the emulated wire, as VLAN 200 (A's eth0.200 10.99.4.1/24, the
# router's eth0.200 10.99.4.254), and a veth pair inside B (the router's vr1
# 10.99.3.254/24, B's vr0 10.99.3.2/24 with its own rxe1). A third guest
# would cost another boot, a third vCPU on a 2-core machine and a second
# emulated segment; the namespace costs nothing and every packet between A
# and B still crosses a real kernel forwarding path that decrements the TTL.
#
# The server runs on A (-g: the GID of 10.99.4.1 on eth0.200, from sysfs),
# the client on B (-d rxe1, its only IPv4 GID chosen automatically).
#   rc, uc, ud (1024 B) and srq (16 QPs) with -c pass with the default hop
#   limit.  With --hop-limit 1 on both sides rc passes too: on RoCE the
#   kernel sets a connected QP's GRH hop limit from the route at RTR
#   (ib_core's ib_resolve_eth_dmac()), and --trace shows the value in use.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_pair_need
ns=pprouter
if [[ $PP_ROLE == A ]]; then
	pp_on_exit 'ip link del eth0.200'
	ip link add link eth0 name eth0.200 type vlan id 200
	ip addr add 10.99.4.1/24 dev eth0.200
	ip link set eth0.200 up
	ip route add 10.99.3.0/24 via 10.99.4.254 dev eth0.200
	gid=$(pp_wait_gid 10.99.4.1 eth0.200) || pp_fail "host A: no GID for 10.99.4.1 on eth0.200"
	dev=$PP_DEV opt=(-g "${gid:-1}")
	echo "host A: 10.99.4.1 on eth0.200 is GID index $gid"
else
	pp_on_exit 'rdma link del rxe1'
	pp_on_exit "ip netns del $ns"
	pp_on_exit 'ip link del vr0'
	ip netns add "$ns"
	ip link add link eth0 name eth0.200 type vlan id 200
	ip link set eth0.200 netns "$ns"
	ip link add vr0 type veth peer name vr1
	ip link set vr1 netns "$ns"
	ip -n "$ns" addr add 10.99.4.254/24 dev eth0.200
	ip -n "$ns" addr add 10.99.3.254/24 dev vr1
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0.200 up
	ip -n "$ns" link set vr1 up
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1
	ip addr add 10.99.3.2/24 dev vr0
	ip link set vr0 up
	ip route add 10.99.4.0/24 via 10.99.3.254 dev vr0
	rdma link add rxe1 type rxe netdev vr0
	PP_DEV=rxe1
	pp_wait_gid 10.99.3.2 vr0 >/dev/null || pp_fail "host B: no GID for 10.99.3.2 on rxe1"
	dev=rxe1 opt=()
	ip -n "$ns" addr
fi
pp_tell "routed.$PP_ROLE"
pp_hear "routed.$pp_peer" >/dev/null

for c in "rc rc_pingpong -s 4096" "uc rc_pingpong --uc -s 4096" \
	"ud ud_pingpong -s 1024" "srq srq_pingpong -q 16" \
	"hop1 rc_pingpong -s 4096 --hop-limit 1 --trace"; do
	read -r name tool opts <<<"$c"
	bin=$(pp_bin "$tool")
	sopts=()
	[[ $name != hop1 ]] || sopts=(--hop-limit 1 -T 10)
	pp_pair_next
	# shellcheck disable=SC2086 # $opts holds the client's options
	pp_pair_run "$name" "$bin" -d "$dev" "${opt[@]}" -p "$pp_pair_port" "${sopts[@]}" -- \
		"$bin" -d "$dev" "${opt[@]}" -p "$pp_pair_port" -n 200 -c -T 10 $opts 10.99.4.1
	[[ $PP_ROLE == B ]] || continue
	if [[ $name == hop1 ]]; then
		# On RoCE the kernel sets the GRH hop limit of a connected QP
		# from the route at RTR, whatever the QP asked: through the
		# router the run passes, and --trace shows the hop limit in use.
		pp_expect_grep 'hop limit in use ([2-9]|[1-9][0-9]+) \(asked 1\): the kernel set it from the route \(RoCE\)$' \
			"$PP_MEET/$name.B" "routed rc --hop-limit 1: the trace shows the kernel's hop limit"
	fi
	pp_expect_status "$pp_sa" 0 "routed $name: server on A"
	pp_expect_status "$pp_sb" 0 "routed $name: client on B"
	pp_expect_grep '^200 iters in ' "$PP_MEET/$name.B" "routed $name: 200 iterations"
done
[[ $PP_ROLE == A ]] || ip netns exec "$ns" cat /proc/net/snmp | awk '/^Ip:/' | sed 's/^/    router /'
pp_finish
