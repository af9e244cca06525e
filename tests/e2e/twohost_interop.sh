#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# twohost_interop.sh: our tools in --rdma-core mode against rdma-core's
# stock ibv_{rc,uc,ud,srq}_pingpong across two hosts (guest.sh --pair), in
# both roles: a stock server on host A with our client on host B, and our
# server on A with a stock client on B (docs/interop.md). Both sides get the
# same -s, -n, -m, -q and -c, and -g: the index of the host's own IPv4 GID
# on eth0, read from sysfs (the stock tools have no automatic choice).
#
# Expected: both exit 0, ours prints the stock result lines for all
# iterations and the peer's command line with -c, and the QPNs cross over.
# The data (-c), by role, as in interop.sh: our client checks that every
# reply echoes its message, and the stock server checks our messages
# ("invalid data in page N"); our server checks every message of the stock
# client by the stock rule, and the stock client checks nothing.  Our
# side's check fails its run (exit 3, a line naming the message and byte);
# the stock server's is a line only: both are asserted where they run.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

iters=${1:-500}
pp_pair_need
mine=$PP_ADDR_A
[[ $PP_ROLE == A ]] || mine=$PP_ADDR_B
gid=$(pp_gid_of "$mine" eth0)
[[ -n $gid ]] || {
	echo "FAIL: no RoCE v2 GID of $mine on eth0"
	exit 1
}
echo "host $PP_ROLE: GID index $gid is $mine on eth0"
if ! command -v ibv_rc_pingpong >/dev/null; then
	echo "FAIL: ibv_rc_pingpong is not installed (tests/install-deps.sh: ibverbs-utils)"
	exit 1
fi

qpns() { sed -n "s/^  $2 address: .*QPN \(0x[0-9a-f]*\).*/\1/p" "$1" | sort; }
for tr in rc uc ud srq; do
	pp_interop_pair "$tr"
	bin=$(pp_bin "$ours")
	for role in client server; do
		name=$tr.ours-$role
		pp_pair_next
		common=(-d "$PP_DEV" -g "$gid" -p "$pp_pair_port" -n "$iters" -s "$size" -c)
		ours_cmd=("$bin" "${common[@]}" "${ours_opts[@]}" --rdma-core)
		stock_cmd=("$stock" "${common[@]}" "${stock_opts[@]}")
		if [[ $role == client ]]; then
			pp_pair_run "$name" "${stock_cmd[@]}" -- "${ours_cmd[@]}" "$PP_ADDR_A"
			ours_log=$PP_MEET/$name.B stock_log=$PP_MEET/$name.A
		else
			pp_pair_run "$name" "${ours_cmd[@]}" -- "${stock_cmd[@]}" "$PP_ADDR_A"
			ours_log=$PP_MEET/$name.A stock_log=$PP_MEET/$name.B
		fi
		[[ $PP_ROLE == B ]] || continue
		pp_expect_status "$pp_sa" 0 "$name: server on A"
		pp_expect_status "$pp_sb" 0 "$name: client on B"
		pp_expect_grep "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" \
			"$ours_log" "$name: ours: stock iters line"
		pp_expect_grep "^$((2 * size * iters)) bytes in [0-9.]+ seconds" \
			"$ours_log" "$name: ours: stock bytes line, both directions"
		pp_expect_grep "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" \
			"$stock_log" "$name: $stock: iters line"
		pp_expect_grep "^rdma-core mode: the peer must run: $stock .* -c( |$)" \
			"$ours_log" "$name: ours: -c on (our side checks the data)"
		if grep -Eq 'does not echo|fails the stock -c check|mismatch' "$ours_log"; then
			pp_fail "$name: our $role found wrong data (-c)"
		fi
		if [[ $role == client ]] && grep -q 'invalid data' "$stock_log"; then
			pp_fail "$name: $stock server found invalid data (-c)"
		fi
		if [[ -z $(qpns "$ours_log" local) ]]; then
			pp_fail "$name: our side printed no local address"
		elif [[ $(qpns "$ours_log" local) != "$(qpns "$stock_log" remote)" ||
			$(qpns "$ours_log" remote) != "$(qpns "$stock_log" local)" ]]; then
			pp_fail "$name: the QPNs do not cross over between the hosts"
		else
			echo "ok: $name: QPNs cross over between the hosts"
		fi
	done
done
pp_finish
