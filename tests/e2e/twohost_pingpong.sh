#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# twohost_pingpong.sh [ITERS]: our tools across two hosts (guest.sh --pair):
# the server on host A, the client on host B connecting to A's address, no
# -g on either side. RC, UC, UD (at 1024 bytes, the path MTU) and SRQ
# (16 QPs), with -c, polling and with -e.
#
# Expected for every case: both exit 0, both print the stock result lines
# for ITERS iterations (default 500) and the latency summary, and the
# address lines cross over between the hosts.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

iters=${1:-500}
pp_pair_need

cases=(
	"rc.poll rc_pingpong -s 4096"
	"rc.event rc_pingpong -s 4096 -e"
	"uc.poll rc_pingpong --uc -s 4096"
	"uc.event rc_pingpong --uc -s 4096 -e"
	"ud.poll ud_pingpong -s 1024"
	"ud.event ud_pingpong -s 1024 -e"
	"srq.poll srq_pingpong -q 16"
	"srq.event srq_pingpong -q 16 -e"
)
addrs() { sed -n "s/^  $2 address: *//p" "$PP_MEET/$1" | sort; }
for c in "${cases[@]}"; do
	read -r name tool opts <<<"$c"
	bin=$(pp_bin "$tool")
	pp_pair_next
	# shellcheck disable=SC2086 # $opts holds the client's options
	pp_pair_run "$name" "$bin" -d "$PP_DEV" -p "$pp_pair_port" -- \
		"$bin" -d "$PP_DEV" -p "$pp_pair_port" -n "$iters" -c $opts "$PP_ADDR_A"
	[[ $PP_ROLE == B ]] || continue
	pp_expect_status "$pp_sa" 0 "$name: server on A"
	pp_expect_status "$pp_sb" 0 "$name: client on B"
	for side in A B; do
		log=$PP_MEET/$name.$side
		pp_expect_grep "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" \
			"$log" "$name: host $side: stock iters line"
		pp_expect_grep '^latency usec: n [0-9]+ min [0-9]+\.[0-9]{3} median' \
			"$log" "$name: host $side: latency summary"
	done
	if [[ -z $(addrs "$name.B" local) ]]; then
		pp_fail "$name: the client printed no local address"
	elif [[ $(addrs "$name.B" local) != "$(addrs "$name.A" remote)" ||
		$(addrs "$name.A" local) != "$(addrs "$name.B" remote)" ]]; then
		pp_fail "$name: the address lines of A and B do not cross over"
	else
		echo "ok: $name: address lines cross over between the hosts"
	fi
done
pp_finish
