#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# held_check.sh TOOL [OPTS...]: on a lossy transport (UD; UC: rc_pingpong
# --uc), -c checks each message as it came, even when later messages land
# while it is being checked.
#
# The server runs under gdb, with a breakpoint on pp_pattern_check: at its
# first check (of the client's first message) it is held 2.5 s, longer than
# the client's per-iteration deadline (1 s: -T 20).  The client gives up on
# that message and sends the next ones, which land while the server is in
# its check.  Each posted receive has its own buffer (pp_res_attr's
# buf_per_recv), so the message under check stays as it came: no data
# mismatch, the late iterations counted as lost, both sides exit 1 with the
# lost lines.  With one buffer that every receive shares, the later message
# overwrote it: "data mismatch in message 2433 from the client at byte 521"
# (CI, e2e.ud.late, when its SIGSTOP came in the middle of a check).
#
# The breakpoint also shows that the server does check: it is hit.
set -euo pipefail
PP_STEP_TIMEOUT=${PP_STEP_TIMEOUT:-120}
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

tool=${1:?usage: held_check.sh TOOL [OPTS...]}
shift
iters=200
pp_need_device
bin=$(pp_bin "$tool")
if ! command -v gdb >/dev/null; then
	echo "FAIL: no gdb, which holds the server in its check (run tests/install-deps.sh)"
	exit 1
fi

slog=$PP_LOGS/server clog=$PP_LOGS/client
sst=0 cst=0
# $_exitcode: gdb exits with the tool's status
# shellcheck disable=SC2016
pp_server server "$slog" gdb -q -nx -batch \
	-ex 'break pp_pattern_check' -ex run -ex delete \
	-ex 'shell sleep 2.5' -ex continue -ex 'quit $_exitcode' \
	--args "$bin" -d "$PP_DEV" -p "$PP_PORT" -T 20 "$@"
spid=$pp_pid
pp_wait_port "$PP_PORT" "$spid" || pp_fail "the server is not listening"
pp_server client "$clog" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
	"${pp_gid_opt[@]}" -n "$iters" -c -T 20 "$@" "$PP_HOST"
cpid=$pp_pid
pp_wait "$cpid" || cst=$?
pp_wait "$spid" || sst=$?
for side in server client; do
	echo "--- $side output"
	cat "$PP_LOGS/$side"
done

pp_expect_grep '^Breakpoint 1(\.[0-9]+)?, .*pp_pattern_check' "$slog" \
	"the server was held in its check of a message"
lost=$(sed -n "s/^$tool: lost \\([0-9]*\\) of .*/\\1/p" "$clog")
if [[ -z $lost ]] || ((lost < 1 || lost > 10)); then
	pp_fail "the client lost ${lost:-no} iterations, expected 1..10: it must give up on the held one and send on"
else
	echo "ok: the client gave up on $lost iterations while the server was held"
fi
if grep 'data mismatch' "$clog" "$slog"; then
	pp_fail "a message that came later overwrote the one under check"
else
	echo "ok: no data mismatch on either side"
fi
pp_expect_status "$sst" 1 "server"
pp_expect_status "$cst" 1 "client"
pp_expect_grep "^$tool: client: lost ${lost:-N} of $iters iterations$" \
	"$slog" "the server reports the client's lost iterations"
pp_finish
