#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# corrupt.sh CASE...: -c catches one wrong byte end to end.  The
# PP_TEST_CORRUPT=ITER:OFFSET test hook (docs/dev/testing.md) in one side's
# environment puts one wrong byte into message ITER: the sender flips byte
# OFFSET of a send or write after filling it; for read and the atomics the
# requester (the client) flips that byte of what came back, before its
# check.  On one host, or across two (guest.sh --pair: the server on A, the
# client on B).
#
#   send         the client's message 5: the server exits 3 with "data
#                mismatch in message 5 from the client at byte 100", the
#                client exits 1 with that line relayed ("server: ...")
#   send.server  the server's reply 5: the client exits 3 naming the reply
#                from the server, the server exits 1 with the relay
#   write        RDMA Write 5 of the client: the server exits 3 naming the
#                write and byte 100, the client relays it
#   read         RDMA Read 5: the client exits 3 naming the read and byte
#                100 of the server's buffer, the server relays it
#   fetch-add, cmp-swap  atomic 5 (byte 3 of the word it returned): the
#                client exits 3 naming the atomic and both values, the
#                server relays it
#   fetch-add.lean, cmp-swap.lean  the same without -c: an atomic's value
#                is checked -c or not, here by the lean loop's check
#                (pp_run_fast.c) where -c takes the general loop's
# With no CASE: all of them.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pair=0
[[ -z ${PP_ROLE:-} ]] || pair=1
if ((pair)); then
	pp_pair_need
else
	pp_need_device
fi
bin=$(pp_bin rc_pingpong)
port=$PP_PORT
iter=5

# CASE | HOOKED SIDE | CLIENT OPTIONS | DETECTING SIDE | ITS LINE
cases=(
	"send|client|-s 4096|server|data mismatch in message $iter from the client at byte 100: expected 0x[0-9a-f]{2}, got 0x[0-9a-f]{2}"
	"send.server|server|-s 4096|client|data mismatch in message $iter from the server at byte 100: expected 0x[0-9a-f]{2}, got 0x[0-9a-f]{2}"
	"write|client|--op write -s 4096|server|data mismatch in the RDMA Write $iter from the client at byte 100: expected 0x[0-9a-f]{2}, got 0x[0-9a-f]{2}"
	"read|client|--op read -s 4096|client|data mismatch in RDMA Read $iter of the server's buffer at byte 100: expected 0x[0-9a-f]{2}, got 0x[0-9a-f]{2}"
	"fetch-add|client|--op fetch-add|client|fetch-add $iter returned [0-9]+, expected [0-9]+ \\(fetch-and-add k finds k times the addend\\)"
	"cmp-swap|client|--op cmp-swap|client|cmp-swap $iter returned [0-9]+, expected [0-9]+ \\(each compare-and-swap finds the value the one before it swapped in\\)"
	"fetch-add.lean|client|--op fetch-add|client|fetch-add $iter returned [0-9]+, expected [0-9]+ \\(fetch-and-add k finds k times the addend\\)"
	"cmp-swap.lean|client|--op cmp-swap|client|cmp-swap $iter returned [0-9]+, expected [0-9]+ \\(each compare-and-swap finds the value the one before it swapped in\\)"
)
off_of() { [[ $1 == fetch-add* || $1 == cmp-swap* ]] && echo 3 || echo 100; }

# one CASE HOOKED COPTS DETECTOR RE
one() {
	local name=$1 hooked=$2 copts=$3 det=$4 re=$5 hook slog clog sst cst
	local other dst ost
	local -a chk=(-c) # .lean: without it
	[[ $name != *.lean ]] || chk=()
	hook=PP_TEST_CORRUPT=$iter:$(off_of "$name")
	senv=(env) cenv=(env)
	if [[ $hooked == server ]]; then senv+=("$hook"); else cenv+=("$hook"); fi
	echo "=== $name ($hook on the $hooked)"
	if ((pair)); then
		pp_pair_next
		# shellcheck disable=SC2086 # $copts holds the client's options
		pp_pair_run "$name" "${senv[@]}" "$bin" -d "$PP_DEV" -p "$pp_pair_port" -- \
			"${cenv[@]}" "$bin" -d "$PP_DEV" -p "$pp_pair_port" -n 20 "${chk[@]}" $copts "$PP_ADDR_A"
		[[ $PP_ROLE == B ]] || return 0
		slog=$PP_MEET/$name.A clog=$PP_MEET/$name.B sst=$pp_sa cst=$pp_sb
	else
		port=$((port + 1))
		slog=$PP_LOGS/$name.server clog=$PP_LOGS/$name.client
		pp_server "$name server" "$slog" "${senv[@]}" "$bin" -d "$PP_DEV" -p "$port"
		local spid=$pp_pid
		pp_wait_port "$port" "$spid" || pp_fail "$name: the server is not listening"
		cst=0
		# shellcheck disable=SC2086 # $copts holds the client's options
		pp_client "$name client" "$clog" "${cenv[@]}" "$bin" -d "$PP_DEV" -p "$port" \
			"${pp_gid_opt[@]}" -n 20 "${chk[@]}" $copts "$PP_HOST" || cst=$?
		sst=0
		pp_wait "$spid" || sst=$?
		for side in server client; do
			echo "--- $name: $side output"
			pp_indent '    ' "$PP_LOGS/$name.$side"
		done
	fi
	if [[ $det == server ]]; then
		dst=$sst ost=$cst dlog=$slog olog=$clog other=client
	else
		dst=$cst ost=$sst dlog=$clog olog=$slog other=server
	fi
	pp_expect_status "$dst" 3 "$name: the $det (it found the wrong byte)"
	pp_expect_status "$ost" 1 "$name: the $other (the peer's failure)"
	pp_expect_grep "^rc_pingpong: $re\$" "$dlog" \
		"$name: the $det names the iteration and the byte"
	pp_expect_grep "^rc_pingpong: $det: $re\$" "$olog" \
		"$name: the $other relays the $det's line"
}

want=("$@")
for c in "${cases[@]}"; do
	IFS='|' read -r name hooked copts det re <<<"$c"
	if ((${#want[@]})); then
		[[ " ${want[*]} " == *" $name "* ]] || continue
	fi
	one "$name" "$hooked" "$copts" "$det" "$re"
done
pp_finish
