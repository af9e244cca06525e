#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bringup.sh CASE: checking a NIC and learning QP bring-up (docs/bringup.md).
#
#   auto-gid  no -g on either side: rc, uc, ud and srq all run, and each side
#             prints the GID it chose and why, and the path MTU
#   bad-gid   -g 7 (an empty entry): one line naming the populated indexes,
#             exit 1, before any connection; -g 5000: a usage error
#   mtu       -m 4096 on a port whose active MTU is 1024: both sides name
#             both values and the fix, and exit 1
#   trace     --trace shows INIT, RTR and RTS with their attributes and
#             masks (the GRH with the client's --hop-limit, --tclass and
#             --flow-label), the handshake messages, and the time of
#             each step; the server traces only with its own --trace, and
#             then shows the client's GRH fields adopted, in its parameters
#             and its RTR
#   netdev-down  a VLAN on the rxe netdev, with an address, taken down: its
#             RoCE v2 GID stays in the table (seen on Debian 12's kernel);
#             a client with -g on it fails at RTR (Network is unreachable),
#             and its line says the GID's netdev is down and what to do; the
#             server's RTR toward that address cannot resolve a MAC (its line
#             says so, or relays the client's)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
case_=$1

# run_pair TOOL SERVER-ARGS -- CLIENT-ARGS: sets sst and cst.
run_pair() {
	local tool=$1 bin sargs=() cargs=()
	shift
	pp_split "$@"
	sargs=("${pp_before[@]}") cargs=("${pp_after[@]}")
	bin=$(pp_bin "$tool")
	PP_PORT=$((PP_PORT + 1))
	pp_server server "$PP_LOGS/server" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
		"${sargs[@]}"
	local spid=$pp_pid
	pp_wait_port "$PP_PORT" "$spid" || pp_fail "$tool server not listening"
	cst=0
	pp_client client "$PP_LOGS/client" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
		"${cargs[@]}" "$PP_HOST" || cst=$?
	sst=0
	pp_wait "$spid" || sst=$?
	for side in server client; do
		sed "s/^/    $side: /" "$PP_LOGS/$side"
	done
}

case $case_ in
auto-gid)
	for t in "rc_pingpong" "rc_pingpong --uc" "ud_pingpong -s 1024" \
		"srq_pingpong -q 4"; do
		read -r tool extra <<<"$t"
		# shellcheck disable=SC2086 # $extra holds the client's options
		run_pair "$tool" -- -n 200 -c $extra
		pp_expect_status "$sst" 0 "$t server (no -g)"
		pp_expect_status "$cst" 0 "$t client (no -g)"
		for side in server client; do
			pp_expect_grep '^  GID index [0-9]+: RoCE v2, IPv4 .*, IPv4 like this connection, whose local address [0-9.]+ is on no GID of this port \(chosen automatically; -g to choose\)$' \
				"$PP_LOGS/$side" "$t $side: GID chosen and explained"
			pp_expect_grep '^200 iters in ' "$PP_LOGS/$side" \
				"$t $side: 200 iterations"
			pp_expect_grep '^  path MTU 1024 \(server active 1024, client active 1024\)$' \
				"$PP_LOGS/$side" "$t $side: the path MTU and both active MTUs"
		done
	done
	;;
bad-gid)
	bin=$(pp_bin rc_pingpong)
	st=0
	pp_client client "$PP_LOGS/client" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
		-g 7 -T 2 "$PP_HOST" || st=$?
	cat "$PP_LOGS/client"
	pp_expect_status "$st" 1 "client with -g 7"
	pp_expect_grep '^rc_pingpong: GID index 7 of [a-z0-9_]+:1 is empty; populated: 0, 1 \(see --show-gids\)$' \
		"$PP_LOGS/client" "the error lists the populated indexes"
	[[ $(wc -l <"$PP_LOGS/client") == 1 ]] ||
		pp_fail "more than one line for a bad GID index"
	# sgid_index is 8 bits in verbs: the command line refuses more.
	st=0
	pp_client client "$PP_LOGS/client" "$bin" -d "$PP_DEV" -g 5000 \
		"$PP_HOST" || st=$?
	cat "$PP_LOGS/client"
	pp_expect_status "$st" 2 "client with -g 5000"
	pp_expect_grep '^rc_pingpong: -g/--gid-idx 5000 is out of range: allowed 0\.\.255$' \
		"$PP_LOGS/client" "-g 5000 is a usage error naming the bounds"
	;;
mtu)
	run_pair rc_pingpong -- "${pp_gid_opt[@]}" -m 4096 -n 10
	pp_expect_status "$sst" 1 "server, client asking -m 4096"
	pp_expect_status "$cst" 1 "client with -m 4096"
	for side in server client; do
		pp_expect_grep 'MTU: .*4096.*1024' "$PP_LOGS/$side" \
			"$side names 4096 and the active MTU 1024"
		pp_expect_grep 'use -m 1024 or less, or raise the (client|server).s netdev MTU \(RoCE needs about 4200 bytes for 4096\)' \
			"$PP_LOGS/$side" "$side names the fix"
	done
	;;
trace)
	# the GRH fields are negotiated: the server adopts the client's
	run_pair rc_pingpong -- "${pp_gid_opt[@]}" -n 10 --trace \
		--hop-limit 5 --tclass 32 --flow-label 0x12345
	pp_expect_status "$sst" 0 server
	pp_expect_status "$cst" 0 "client with --trace"
	log=$PP_LOGS/client
	for step in INIT RTR RTS; do
		pp_expect_grep "^\[ *[0-9]+\.[0-9]{3} ms \+[0-9]+\.[0-9]{3}\] modify QP 0x[0-9a-f]{6} to $step$" \
			"$log" "trace: the $step transition, timed"
	done
	pp_expect_grep '^    qp_state +RTR$' "$log" "trace: RTR state"
	pp_expect_grep '^    path_mtu +1024 bytes' "$log" "trace: path MTU"
	pp_expect_grep '^    dest_qp_num +0x[0-9a-f]{6}$' "$log" "trace: dest QPN"
	pp_expect_grep '^    rq_psn +0x[0-9a-f]{6}$' "$log" "trace: receive PSN"
	pp_expect_grep '^    ah_attr.grh.sgid_index +[0-9]+$' "$log" "trace: GID index"
	pp_expect_grep '^    ah_attr.grh.hop_limit +5$' "$log" "trace: hop limit"
	# on RoCE the kernel sets it from the route (64 here, over the loopback)
	pp_expect_grep '\]   hop limit in use [0-9]+ \(asked 5\)' \
		"$log" "trace: the hop limit the kernel set"
	pp_expect_grep '^    ah_attr.grh.traffic_class +32$' "$log" \
		"trace: traffic class"
	pp_expect_grep '^    ah_attr.grh.flow_label +0x12345$' "$log" \
		"trace: flow label"
	pp_expect_grep '\] parameters: operation send, size [0-9]+, .*, hop limit 5, traffic class 32, P_Key 0xffff, flow label 74565, ' \
		"$log" "trace: the agreed parameters"
	pp_expect_grep '^    timeout +14 \(4.096 us' "$log" "trace: timeout"
	pp_expect_grep '^    retry_cnt +7$' "$log" "trace: retry count"
	pp_expect_grep '^    mask +IBV_QP_STATE\|IBV_QP_AV\|' "$log" "trace: RTR mask"
	pp_expect_grep '\] (sent|received) HELLO \([0-9]+ bytes\)$' "$log" \
		"trace: handshake messages"
	pp_expect_grep '\] register MR of [0-9]+ bytes' "$log" "trace: MR"
	pp_expect_grep '\] open device ' "$log" "trace: open device"
	if grep -q 'modify QP' "$PP_LOGS/server"; then
		pp_fail "the server traced without --trace"
	fi
	# the server's own trace: what it adopted from the HELLO and put in
	# its RTR and RTS (it has none of these options itself)
	run_pair rc_pingpong --trace -- "${pp_gid_opt[@]}" -n 10 \
		--hop-limit 5 --tclass 32 --flow-label 0x12345 \
		-u 12 --retry-count 5 --rnr-retry 6
	pp_expect_status "$sst" 0 "server with --trace"
	pp_expect_status "$cst" 0 "client, the server with --trace"
	log=$PP_LOGS/server
	pp_expect_grep '\] parameters: operation send, size [0-9]+, .*, hop limit 5, traffic class 32, P_Key 0xffff, flow label 74565, ' \
		"$log" "server trace: the agreed parameters, the client's"
	pp_expect_grep "^\[ *[0-9]+\.[0-9]{3} ms \+[0-9]+\.[0-9]{3}\] modify QP 0x[0-9a-f]{6} to RTR$" \
		"$log" "server trace: the RTR transition"
	pp_expect_grep '^    ah_attr.grh.hop_limit +5$' "$log" \
		"server trace: the client's hop limit in its RTR"
	pp_expect_grep '^    ah_attr.grh.traffic_class +32$' "$log" \
		"server trace: the client's traffic class in its RTR"
	pp_expect_grep '^    ah_attr.grh.flow_label +0x12345$' "$log" \
		"server trace: the client's flow label in its RTR"
	pp_expect_grep '\] parameters: .*, QP timeout 12, retry count 5, RNR retry 6, ' \
		"$log" "server trace: the client's QP timeout and retries agreed"
	pp_expect_grep '^    timeout +12 \(4.096 us \* 2\^12 = ' "$log" \
		"server trace: the client's QP timeout in its RTS"
	pp_expect_grep '^    retry_cnt +5$' "$log" \
		"server trace: the client's retry count in its RTS"
	pp_expect_grep '^    rnr_retry +6$' "$log" \
		"server trace: the client's RNR retry in its RTS"
	pp_expect_grep '\] (sent|received) HELLO \([0-9]+ bytes\)$' "$log" \
		"server trace: handshake messages"
	;;
netdev-down)
	PATH=$PATH:/usr/sbin:/sbin
	port=/sys/class/infiniband/$PP_DEV/ports/1
	read -r nd <"$port/gid_attrs/ndevs/1"
	vl=$nd.100
	pp_on_exit "ip link del $vl"
	ip link add link "$nd" name "$vl" type vlan id 100
	ip addr add 10.99.3.1/24 dev "$vl"
	ip link set "$vl" up
	n=$(pp_wait_gid 10.99.3.1 "$vl") || pp_fail "no GID for 10.99.3.1 on $vl"
	ip link set "$vl" down
	sleep 0.5
	n=$(pp_gid_of 10.99.3.1 "$vl")
	if [[ -z $n ]]; then
		pp_fail "the GID of 10.99.3.1 left the table when $vl went down: this case needs another way to make RTR meet a down netdev"
		pp_show_gids
		pp_finish
	fi
	echo "GID index $n: 10.99.3.1 on $vl, which is down"
	run_pair rc_pingpong -- -g "$n" -n 10 -T 10
	pp_expect_status "$cst" 1 "client with -g $n (on $vl, down)"
	pp_expect_status "$sst" 1 "server"
	pp_expect_grep "^rc_pingpong: modify QP 0x[0-9a-f]{6} to RTR failed: [^(]+ \(GID index $n is on $vl, which is down: bring it up \(ip link set $vl up\) or choose the GID of an interface that is up \(--show-gids\)\)\$" \
		"$PP_LOGS/client" "client: RTR failed, and the line says the GID's netdev is down"
	pp_expect_grep "^rc_pingpong: (modify QP 0x[0-9a-f]{6} to RTR failed: Connection timed out \(the kernel could not resolve the peer's GID to a MAC address in time|client: modify QP 0x[0-9a-f]{6} to RTR failed: .*which is down)" \
		"$PP_LOGS/server" "server: its RTR could not resolve the client's address, or it relays the client's line"
	;;
*)
	echo "FAIL: unknown case $case_"
	exit 1
	;;
esac
pp_finish
