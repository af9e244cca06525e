#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# twohost_mtu.sh: two hosts whose netdevs differ in MTU (guest.sh --pair).
# Host A's eth0 keeps MTU 1500 (rxe active MTU 1024), host B's is raised to
# 4200 (active 4096). The server runs on A, the client on B.
#
#   default    rc, uc, ud and srq with no -m: both sides exit 0 and print
#              "path MTU 1024 (server active 1024, client active 4096)"
#   -m 1024    the line says where it came from: "(-m 1024; server ...)"
#   -m 4096    refused by both sides (exit 1): the two MTUs and the fix,
#              "use -m 1024 or less, or raise the server's netdev MTU"
#   UD -s 2048 refused by both sides (exit 1), naming the MTU 1024
#   4200/4200  with A raised too: -m 4096 -s 64K -c runs (rc) at 4096
#
# Both MTUs are set back to 1500 at the end.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_pair_need
# active MTU of port 1 (sysfs has none): "1024"
active_mtu() {
	ibv_devinfo -d "$PP_DEV" -i 1 | sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
}

# set_mtu MTU ACTIVE: set eth0's MTU and wait until rxe follows.
set_mtu() {
	local i
	ip link set eth0 mtu "$1" || pp_fail "host $PP_ROLE: cannot set eth0 mtu $1"
	for ((i = 0; i < 50; i++)); do
		[[ $(active_mtu) != "$2" ]] || break
		sleep 0.2
	done
	echo "host $PP_ROLE: eth0 mtu $1, rxe active MTU $(active_mtu)"
	[[ $(active_mtu) == "$2" ]] ||
		pp_fail "host $PP_ROLE: active MTU did not become $2"
}
pp_on_exit 'ip link set eth0 mtu 1500'
if [[ $PP_ROLE == A ]]; then
	set_mtu 1500 1024
else
	set_mtu 4200 4096
fi
pp_tell "mtu.$PP_ROLE"
pp_hear "mtu.$pp_peer" >/dev/null

# run NAME TOOL CLIENT-OPTIONS...: one case, server on A with -d and -p only.
run() {
	local name=$1 bin
	bin=$(pp_bin "$2")
	shift 2
	pp_pair_next
	pp_pair_run "$name" "$bin" -d "$PP_DEV" -p "$pp_pair_port" -T 10 -- \
		"$bin" -d "$PP_DEV" -p "$pp_pair_port" -T 10 "$@" "$PP_ADDR_A"
}
on_b() { [[ $PP_ROLE == B ]]; }
both() { # both PATTERN WHAT
	local side
	for side in A B; do
		pp_expect_grep "$1" "$PP_MEET/$name.$side" "$name: host $side: $2"
	done
}

for c in "rc rc_pingpong -s 4096" "uc rc_pingpong --uc -s 4096" \
	"ud ud_pingpong -s 1024" "srq srq_pingpong -q 4"; do
	read -r name tool opts <<<"$c"
	name=default.$name
	# shellcheck disable=SC2086 # $opts holds the client's options
	run "$name" "$tool" -n 100 -c $opts
	on_b || continue
	pp_expect_status "$pp_sa" 0 "$name: server on A"
	pp_expect_status "$pp_sb" 0 "$name: client on B"
	both '(^| )path MTU 1024 \(server active 1024, client active 4096\)' \
		"path MTU 1024 and where it came from"
done

name=m1024
run "$name" rc_pingpong -n 100 -m 1024 -c
if on_b; then
	pp_expect_status "$pp_sa" 0 "$name: server on A"
	pp_expect_status "$pp_sb" 0 "$name: client on B"
	both '(^| )path MTU 1024 \(-m 1024; server active 1024, client active 4096\)' \
		"path MTU 1024 from -m"
fi

name=m4096
run "$name" rc_pingpong -n 10 -m 4096
if on_b; then
	pp_expect_status "$pp_sa" 1 "$name: server on A"
	pp_expect_status "$pp_sb" 1 "$name: client on B"
	both 'MTU: client asks 4096, server port active MTU 1024' "names both MTUs"
	both "use -m 1024 or less, or raise the server's netdev MTU \(RoCE needs about 4200 bytes for 4096\)" \
		"names the fix"
fi

name=ud2048
run "$name" ud_pingpong -n 10 -s 2048
if on_b; then
	pp_expect_status "$pp_sa" 1 "$name: server on A"
	pp_expect_status "$pp_sb" 1 "$name: client on B"
	both '2048 is larger than the MTU 1024 .*use -s 1024 or less' \
		"refuses 2048 naming 1024"
fi

# Both at 4200: the full 4096.
pp_tell "done.$PP_ROLE"
pp_hear "done.$pp_peer" >/dev/null
[[ $PP_ROLE == B ]] || set_mtu 4200 4096
pp_tell "mtu4200.$PP_ROLE"
pp_hear "mtu4200.$pp_peer" >/dev/null
name=m4096.both4200
run "$name" rc_pingpong -n 100 -m 4096 -s 64K -c
if on_b; then
	pp_expect_status "$pp_sa" 0 "$name: server on A"
	pp_expect_status "$pp_sb" 0 "$name: client on B"
	both '(^| )path MTU 4096 \(-m 4096; server active 4096, client active 4096\)' \
		"path MTU 4096"
	both '^100 iters in ' "100 iterations of 64 KiB"
fi
set_mtu 1500 1024
pp_finish
