#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# interop.sh TRANSPORT.ROLE: one of our tools with --rdma-core against the
# stock rdma-core tool (docs/interop.md).  TRANSPORT is rc, uc, ud or srq;
# ROLE is the role of OUR side: "client" (against a stock server) or
# "server" (against a stock client).  Both sides get the same -s, -n, -m,
# -q, -g and -c, as our printed parameter line asks.
#
# Expected: both exit 0; our side prints the parameter line with those
# options (-c among them), the stock result lines for all iterations and its
# latency summary; the QPNs cross over (our remote QPNs are the stock side's
# local ones and back).
#
# The data (-c), by role:
#   client  our client checks that every reply echoes its message (a
#           mismatch: exit 3 and a "does not echo" line); the stock server
#           checks the zero byte at each page of our last message ("invalid
#           data in page N" on its stdout, exit 0 all the same): both are
#           asserted.
#   server  our server checks every message of the stock client by the
#           stock rule (a mismatch: exit 3 and a "fails the stock -c check"
#           line): asserted; the stock client checks nothing.
# Without the stock tool the test fails: tests/install-deps.sh installs it.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

case=${1:?usage: interop.sh TRANSPORT.ROLE}
tr=${case%%.*} role=${case#*.}
iters=1000
pp_interop_pair "$tr" || {
	echo "FAIL: unknown transport '$tr' (rc, uc, ud or srq)"
	exit 1
}
[[ $role == client || $role == server ]] || {
	echo "FAIL: unknown role '$role' (client or server)"
	exit 1
}

pp_need_device
bin=$(pp_bin "$ours")
if ! command -v "$stock" >/dev/null; then
	echo "FAIL: $stock is not installed (Debian: ibverbs-utils; tests/install-deps.sh)"
	exit 1
fi

common=(-d "$PP_DEV" "${pp_gid_opt[@]}" -p "$PP_PORT" -n "$iters" -s "$size" -c)
ours_cmd=("$bin" "${common[@]}" "${ours_opts[@]}" --rdma-core)
stock_cmd=("$stock" "${common[@]}" "${stock_opts[@]}")
if [[ $role == client ]]; then
	srv=("${stock_cmd[@]}") cli=("${ours_cmd[@]}" "$PP_HOST")
	srv_log=stock cli_log=ours
else
	srv=("${ours_cmd[@]}") cli=("${stock_cmd[@]}" "$PP_HOST")
	srv_log=ours cli_log=stock
fi

pp_server server "$PP_LOGS/$srv_log" "${srv[@]}"
spid=$pp_pid
pp_wait_port "$PP_PORT" "$spid" || pp_fail "the server is not listening"
cst=0
pp_client client "$PP_LOGS/$cli_log" "${cli[@]}" || cst=$?
sst=0
pp_wait "$spid" || sst=$?

for side in ours stock; do
	echo "--- $side output"
	cat "$PP_LOGS/$side"
done
if [[ $role == client ]]; then
	pp_expect_status "$cst" 0 "our client"
	pp_expect_status "$sst" 0 "$stock server"
else
	pp_expect_status "$sst" 0 "our server"
	pp_expect_status "$cst" 0 "$stock client"
fi

ours_log=$PP_LOGS/ours stock_log=$PP_LOGS/stock
pp_expect_grep "^rdma-core mode: the peer must run: $stock .*-s $size -n $iters" \
	"$ours_log" "ours: the peer's parameter line"
pp_expect_grep "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" \
	"$ours_log" "ours: stock iters line"
pp_expect_grep "^$((2 * size * iters)) bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$" \
	"$ours_log" "ours: stock bytes line, both directions"
pp_expect_grep '^latency usec: n [0-9]+ min [0-9]+\.[0-9]{3} median' \
	"$ours_log" "ours: latency summary"
pp_expect_grep "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" \
	"$stock_log" "$stock: iters line"
pp_expect_grep "^rdma-core mode: the peer must run: $stock .* -c( |$)" \
	"$ours_log" "ours: -c on (our side checks the data)"
if grep -Eq 'does not echo|fails the stock -c check|mismatch' "$ours_log"; then
	pp_fail "our side found wrong data (-c)"
else
	echo "ok: our $role checked every message (-c) and found nothing wrong"
fi
if [[ $role == client ]]; then
	if grep -q 'invalid data' "$stock_log"; then
		pp_fail "$stock found invalid data (-c)"
	else
		echo "ok: $stock server reports no invalid data"
	fi
fi

# The QPNs must cross over: our remote ones are the stock side's local ones.
qpns() { sed -n "s/^  $2 address: .*QPN \(0x[0-9a-f]*\).*/\1/p" "$PP_LOGS/$1" | sort; }
if [[ -z $(qpns ours local) ]]; then
	pp_fail "our side printed no local address"
elif [[ $(qpns ours local) != "$(qpns stock remote)" ]]; then
	pp_fail "our local QPNs differ from $stock's remote ones"
elif [[ $(qpns ours remote) != "$(qpns stock local)" ]]; then
	pp_fail "our remote QPNs differ from $stock's local ones"
else
	echo "ok: QPNs cross over ($(qpns ours local | wc -l) QPs)"
fi
pp_finish
