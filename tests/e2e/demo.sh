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

# rdma_addr: the first IPv4 address of a network device behind a GID of
# $PP_DEV port 1. The client connects to it, as a user on a real host
# connects to the server's address on the RDMA network, so both sides print
# the GID rule users meet there: the local address of this connection.
rdma_addr() {
	local f ndev addr
	for f in /sys/class/infiniband/"$PP_DEV"/ports/1/gid_attrs/ndevs/*; do
		ndev=$(cat "$f" 2>/dev/null) || continue
		[[ -n $ndev ]] || continue
		addr=$(ip -4 -o addr show dev "$ndev" 2>/dev/null |
			awk '{ sub("/.*", "", $4); print $4; exit }')
		if [[ -n $addr ]]; then
			echo "$addr"
			return 0
		fi
	done
	return 1
}
host=$(rdma_addr) || host=$PP_HOST
# In a virtual machine (the QEMU guest of the test bed) the cycle counter
# may drift against CLOCK_MONOTONIC, and a run timed by it ends with a
# warning a new user cannot act on: time the demo by CLOCK_MONOTONIC there
# (docs/output.md, "Which lines a run prints").
if grep -qw hypervisor /proc/cpuinfo 2>/dev/null; then
	export PP_CLOCK=monotonic
	echo "a virtual machine: the runs are timed by CLOCK_MONOTONIC (PP_CLOCK=monotonic)"
fi
echo "RDMA device $PP_DEV: $(ibv_devinfo -d "$PP_DEV" 2>/dev/null |
	grep -Eo 'link_layer:.*|active_mtu:.*' | tr -s '\t ' ' ' | paste -sd,)"
pp_server server "$PP_LOGS/server" "$bin" -d "$PP_DEV" -p "$PP_PORT"
spid=$pp_pid
pp_wait_port "$PP_PORT" "$spid" || pp_fail "the server is not listening"
cst=0
# No -g: both sides choose their GID and print why (README).
pp_client client "$PP_LOGS/client" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
	"$@" "$host" || cst=$?
sst=0
pp_wait "$spid" || sst=$?
echo
echo "=== server: $bin -d $PP_DEV -p $PP_PORT (exit $sst)"
cat "$PP_LOGS/server"
echo
echo "=== client: $bin -d $PP_DEV -p $PP_PORT $* $host (exit $cst)"
cat "$PP_LOGS/client"
pp_expect_status "$sst" 0 server
pp_expect_status "$cst" 0 client
pp_finish
