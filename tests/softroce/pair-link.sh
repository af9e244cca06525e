#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# pair-link.sh: run by guest.sh on both hosts of the pair after a pair test
# failed: does the other host still answer ARP over eth0? Exit 0 if it does
# within 5 s; else print what eth0 and the neighbour table say and exit 1.
set -u
PATH=$PATH:/usr/sbin:/sbin
peer=${PP_ADDR_B:?PP_ADDR_B: the address of host B}
[[ ${PP_ROLE:-} == A ]] || peer=${PP_ADDR_A:?PP_ADDR_A: the address of host A}
# a fresh resolution: an old entry would answer for a dead link
ip neigh flush to "$peer" dev eth0 2>/dev/null || true
for _ in $(seq 25); do
	{ echo >"/dev/udp/$peer/9"; } 2>/dev/null || true
	ip neigh show "$peer" dev eth0 | grep -Eq 'REACHABLE|STALE|DELAY' && exit 0
	sleep 0.2
done
echo "host ${PP_ROLE:-?}: no ARP reply from $peer over eth0 within 5 s"
ip -s link show eth0 | sed 's/^/  /'
ip neigh show dev eth0 | sed 's/^/  /'
dmesg | grep -v 'speed is unknown' | tail -n 10 | sed 's/^/  /'
exit 1
