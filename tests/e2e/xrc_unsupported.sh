#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xrc_unsupported.sh: xrc_pingpong on a device without XRC (Soft-RoCE) must
# stop at once on both sides with one clear line, not hang or fail later.
#
# Each side checks its own device before it touches the network: the server
# never listens and the client never connects.  Each must exit 1 quickly,
# printing exactly one line that names the device, "XRC" and "not supported".
# "Quickly" is measured against a bare --help in the same guest, since on a
# loaded machine the emulated guest needs seconds just to start a process:
# at most 3 x that + 10 s, capped at 45 s, while a side that waited would
# take 60 s (-T 60, and the PP_STEP_TIMEOUT that stops the server).
# rdma-core's ibv_xsrq_pingpong, when installed, confirms the premise: the
# device really cannot open an XRC domain.  Last, the "device" case of the
# unit test test_xrc runs pp_res_create() for XRC on the device: it must fail
# at the domain with EOPNOTSUPP and release what it had.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
bin=$(pp_bin xrc_pingpong)

ibv_devinfo -v -d "$PP_DEV" >"$PP_LOGS/devinfo" 2>&1 || true
if grep -Eq '^[[:space:]]+XRC$' "$PP_LOGS/devinfo"; then
	echo "SKIP: $PP_DEV has XRC (this test is for devices without it)"
	exit 77
fi

declare -A status ms

# run_side NAME CMD...: run one side alone, bounded; its exit status and
# milliseconds go to status[NAME] and ms[NAME].
run_side() {
	local name=$1 t0
	shift
	t0=$(date +%s%N)
	status[$name]=0
	pp_client "$name" "$PP_LOGS/$name" "$@" || status[$name]=$?
	ms[$name]=$((($(date +%s%N) - t0) / 1000000))
}

run_side help "$bin" --help
run_side server "$bin" -d "$PP_DEV" -p "$PP_PORT" -T 60
run_side client "$bin" -d "$PP_DEV" -p "$PP_PORT" "${pp_gid_opt[@]}" \
	-T 60 -q 4 -n 10 "$PP_HOST"
limit_ms=$((ms[help] * 3 + 10000))
((limit_ms <= 45000)) || limit_ms=45000
echo "time of a bare --help: ${ms[help]} ms; each side may take $limit_ms ms"
for side in server client; do
	echo "--- $side output"
	cat "$PP_LOGS/$side"
done
pp_expect_status "${status[server]}" 1 server
pp_expect_status "${status[client]}" 1 client
for side in server client; do
	log=$PP_LOGS/$side
	pp_expect_grep "^xrc_pingpong: XRC: not supported by device $PP_DEV " \
		"$log" "$side: names $PP_DEV, XRC and 'not supported'"
	lines=$(wc -l <"$log")
	if ((lines == 1)); then
		echo "ok: $side printed one line"
	else
		pp_fail "$side printed $lines lines, expected 1"
	fi
	if ((ms[$side] <= limit_ms)); then
		echo "ok: $side stopped in ${ms[$side]} ms"
	else
		pp_fail "$side took ${ms[$side]} ms, expected at most $limit_ms ms"
	fi
done

# The premise, from rdma-core's own XRC example.
if command -v ibv_xsrq_pingpong >/dev/null; then
	xst=0
	pp_client stock "$PP_LOGS/stock" ibv_xsrq_pingpong -d "$PP_DEV" \
		-p "$PP_PORT" || xst=$?
	pp_indent '    ' "$PP_LOGS/stock"
	if ((xst != 0)) && grep -q 'XRC Domain' "$PP_LOGS/stock"; then
		echo "ok: ibv_xsrq_pingpong cannot open an XRC domain on $PP_DEV either"
	else
		pp_fail "ibv_xsrq_pingpong exited $xst without the XRC domain failure: does $PP_DEV have XRC after all?"
	fi
else
	echo "note: ibv_xsrq_pingpong is not installed; premise not cross-checked"
fi

# The resource path itself, up to the domain that rxe refuses.
unit=$PP_BIN/tests/unit/test_xrc
if [[ -x $unit ]]; then
	CK_RUN_CASE=device PP_DEV=$PP_DEV "$unit" >"$PP_LOGS/unit" 2>&1 || true
	pp_indent '    ' "$PP_LOGS/unit"
	pp_expect_grep '^100%: Checks: 1, Failures: 0, Errors: 0$' \
		"$PP_LOGS/unit" "pp_res_create(XRC) on $PP_DEV fails at the domain and cleans up"
else
	pp_fail "$unit is missing (build with tests)"
fi
pp_finish
