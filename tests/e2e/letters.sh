#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# letters.sh: rdma-core v64's letters that need a device capability, on a
# device without them (Soft-RoCE: no On-Demand Paging, no completion
# timestamps, no device memory).  Each side checks its own device when it
# opens it: alone, with no peer, a server and a client with the letter must
# each exit 1 with one line naming the letter, the device and the missing
# capability, before any QP exists (--trace shows no "create" step) and
# before the network (the server never listens).  -N (the ibv_wr_* post
# API) works on rxe: runs of send, write, read and fetch-add with -c.  rdma-core's own
# ibv_rc_pingpong, when installed, confirms the premise: it refuses the
# same letters on the same device.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device

# check NAME TOOL LINE-REGEX OPTS...: one side of TOOL with OPTS, alone.
check() {
	local name=$1 tool=$2 want=$3 bin st=0 log n
	shift 3
	bin=$(pp_bin "$tool")
	log=$PP_LOGS/$name
	pp_client "$name" "$log" "$bin" -d "$PP_DEV" -p "$PP_PORT" -T 10 \
		--trace "$@" || st=$?
	echo "--- $name: $tool $*"
	pp_indent '    ' "$log"
	pp_expect_status "$st" 1 "$name"
	pp_expect_grep "^$tool: $want" "$log" "$name: names the capability"
	if grep -Eq 'allocate PD|create (CQ|QP)|created|connected to|accepted' "$log"; then
		pp_fail "$name: got past the device check"
	else
		echo "ok: $name stopped before any resource or socket"
	fi
	pp_expect_grep 'query device .*ODP general 0x0' "$log" \
		"$name: --trace shows the features read"
	n=$(grep -Evc '^(\[| )' "$log" || true)
	if ((n == 1)); then
		echo "ok: $name printed one line (besides --trace)"
	else
		pp_fail "$name printed $n lines besides --trace"
	fi
}

nodp="has no On-Demand Paging \\(IBV_ODP_SUPPORT not in odp_caps.general_caps\\)"
for side in server client; do
	host=()
	[[ $side == client ]] && host=("${pp_gid_opt[@]}" "$PP_HOST")
	check "rc.o.$side" rc_pingpong "-o/--odp: device $PP_DEV $nodp" \
		-o "${host[@]}"
	check "rc.O.$side" rc_pingpong "-O/--iodp: device $PP_DEV $nodp" \
		-O "${host[@]}"
	check "rc.P.$side" rc_pingpong "-o/--odp: device $PP_DEV $nodp" \
		-o -P "${host[@]}"
	check "rc.t.$side" rc_pingpong \
		"-t/--ts: device $PP_DEV has no completion timestamps \\(completion_timestamp_mask is 0\\)" \
		-t "${host[@]}"
	check "rc.j.$side" rc_pingpong \
		"-j/--dm: device $PP_DEV has no device memory \\(max_dm_size is 0\\)" \
		-j "${host[@]}"
	check "srq.o.$side" srq_pingpong "-o/--odp: device $PP_DEV $nodp" \
		-o "${host[@]}"
done

# -N works: both sides post with ibv_wr_*() on an extended QP, --trace says
# so, and the run passes -c (send; the one-sided operations' loops too).
port=$PP_PORT
for op in send write read fetch-add; do
	port=$((port + 1))
	pp_start_run "N.$op" "$(pp_bin rc_pingpong)" "$port" server -N --trace \
		-- -N --trace -c -n 500 --op "$op"
	sst=0 cst=0
	pp_wait "$pp_spid" || sst=$?
	pp_wait "$pp_cpid" || cst=$?
	pp_expect_status "$sst" 0 "-N --op $op server"
	pp_expect_status "$cst" 0 "-N --op $op client"
	for log in "$pp_slog" "$pp_clog"; do
		pp_expect_grep 'sends posted by ibv_wr_\*\(\) \(-N\)' "$log" \
			"-N --op $op $(basename "$log"): extended QP"
	done
	pp_expect_grep '^500 iters in ' "$pp_clog" "-N --op $op: 500 iterations"
done

# -P without ODP is refused by the parser, as rdma-core does.
st=0
pp_client P.alone "$PP_LOGS/P.alone" "$(pp_bin rc_pingpong)" -P || st=$?
pp_expect_status "$st" 2 "-P alone"
pp_expect_grep '^rc_pingpong: -P/--prefetch needs -o/--odp or -O/--iodp' \
	"$PP_LOGS/P.alone" "-P alone names what it needs"

# The premise, from rdma-core's own example on the same device.
if command -v ibv_rc_pingpong >/dev/null; then
	for letter in -o -t -j; do
		st=0
		pp_client "stock$letter" "$PP_LOGS/stock$letter" \
			ibv_rc_pingpong -d "$PP_DEV" -p "$PP_PORT" "$letter" || st=$?
		pp_indent '    ' "$PP_LOGS/stock$letter"
		if ((st != 0)) && grep -Eq "ODP capable|timestamp capable|dm allocation" \
			"$PP_LOGS/stock$letter"; then
			echo "ok: ibv_rc_pingpong $letter is refused on $PP_DEV too"
		else
			pp_fail "ibv_rc_pingpong $letter exited $st without its refusal: does $PP_DEV have it after all?"
		fi
	done
else
	echo "note: ibv_rc_pingpong is not installed; premise not cross-checked"
fi
pp_finish
