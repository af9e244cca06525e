#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# twohost_ops.sh: the one-sided operations (--op) across two hosts
# (guest.sh --pair): the server on host A adopts the operation, the client
# on host B connects to A's address.  With -c, polling: write at 1 B and
# 1 MiB (many packets), write-imm at 4 KiB, read at 1 B and 1 MiB,
# fetch-add, UC write; without -c, the lean loops of write (both sides) and
# read at 1 B; then a wrong rkey on the client's write (the
# PP_TEST_BAD_RKEY test hook): both hosts name the rkey in a remote access
# error.  The other sizes, cmp-swap, -e and the read's wrong rkey run on
# one host (ops.sh): across two hosts they take the same code paths.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_pair_need
bin=$(pp_bin rc_pingpong)

cases=(
	"write.1 200 -c --op write -s 1"
	"write.1M 10 -c --op write -s 1M"
	"write-imm.4096 200 -c --op write-imm -s 4096"
	"read.1 200 -c --op read -s 1"
	"read.1M 10 -c --op read -s 1M"
	"fetch-add 200 -c --op fetch-add"
	"uc.write 200 -c --uc --op write -s 4096"
	"write.fast.1 200 --op write -s 1"
	"read.fast.1 200 --op read -s 1"
)
for c in "${cases[@]}"; do
	read -r name iters opts <<<"$c"
	pp_pair_next
	# shellcheck disable=SC2086 # $opts holds the client's options
	pp_pair_run "$name" "$bin" -d "$PP_DEV" -p "$pp_pair_port" -- \
		"$bin" -d "$PP_DEV" -p "$pp_pair_port" -n "$iters" $opts "$PP_ADDR_A"
	[[ $PP_ROLE == B ]] || continue
	pp_expect_status "$pp_sa" 0 "$name: server on A"
	pp_expect_status "$pp_sb" 0 "$name: client on B"
	for side in A B; do
		pp_expect_grep "^$iters iters in [0-9.]+ seconds" \
			"$PP_MEET/$name.$side" "$name: host $side: stock iters line"
	done
	pp_expect_grep "^latency usec: n $iters min " "$PP_MEET/$name.B" \
		"$name: host B: one sample per iteration"
	# a write's server measures from its write to the next one's arrival
	[[ $name != write.* ]] ||
		pp_expect_grep "^latency usec: n $((iters - 1)) min " \
			"$PP_MEET/$name.A" "$name: host A: a sample per write back"
done

for op in write; do
	name=rkey.$op
	pp_pair_next
	pp_pair_run "$name" "$bin" -d "$PP_DEV" -p "$pp_pair_port" -- \
		env PP_TEST_BAD_RKEY=1 "$bin" -d "$PP_DEV" -p "$pp_pair_port" \
		-n 20 --op "$op" "$PP_ADDR_A"
	[[ $PP_ROLE == B ]] || continue
	pp_expect_status "$pp_sa" 1 "$name: server on A"
	pp_expect_status "$pp_sb" 1 "$name: client on B"
	pp_expect_grep "(write|read|fetch-add) completion failed .*remote access error.*the peer refused the $op at rkey 0x[0-9a-f]+" \
		"$PP_MEET/$name.B" "$name: host B names the rkey"
	pp_expect_grep 'client: .*remote access error.*rkey 0x[0-9a-f]+' \
		"$PP_MEET/$name.A" "$name: host A reports the client's line"
done
pp_finish
