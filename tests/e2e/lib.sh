# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034 # pp_* variables are for the caller
#
# Helpers for end-to-end test scripts, sourced by them. The scripts run where
# an RDMA device exists: in the Soft-RoCE guest (tests/softroce/guest.sh) or
# on a host with a real NIC. See docs/dev/testing.md.
#
# Environment:
#   PP_BIN   build directory holding the binaries ($PP_BIN/rc_pingpong/...)
#   PP_DEV   RDMA device (default: the first in /sys/class/infiniband)
#   PP_GID   GID index, needed on RoCE (default: none)
#   PP_HOST  address the client connects to (default: 127.0.0.1)
#   PP_PORT  TCP port of the exchange (default: a random one)
#   PP_STEP_TIMEOUT  bound in seconds on every process (default: 60)
#
# Two hosts (tests/softroce/guest.sh --pair): the same script runs on both.
#   PP_ROLE  A (the server side) or B (the client side)
#   PP_ADDR_A, PP_ADDR_B  the hosts' addresses (in the Soft-RoCE pair: eth0,
#            10.99.1.1 and 10.99.1.2)
#   PP_MEET  a directory both sides see: they meet there (pp_tell, pp_hear)
#
# N hosts and Slurm (tests/softroce/guest.sh --hosts N): the same script
# runs on every host, with PP_ROLE (A, B, ...), PP_HOSTS (every role),
# PP_ADDR_<ROLE>, PP_NODE_<ROLE> (host and Slurm node names),
# PP_ADDR1_<ROLE> (the address of its second NIC, eth1, with rxe1: the
# second rail), PP_MEET and SLURM_CONF; host A runs slurmctld
# (pp_mesh_need).
#
# This file owns the EXIT trap: it kills leftover processes and removes
# $PP_LOGS, the directory for the logs of this run.

PP_HOST=${PP_HOST:-127.0.0.1}
PP_PORT=${PP_PORT:-$((20000 + RANDOM % 20000))}
PP_STEP_TIMEOUT=${PP_STEP_TIMEOUT:-60}
# The bed's emulated CPU has no constant_tsc and its kernel's clocksource is
# hpet: left to themselves the tools would time with CLOCK_MONOTONIC and run
# the general loops only. The tests run what a host with an invariant TSC
# runs, the cycle counter and the lean loops; measure.sh's clock case
# unsets it and checks the fallback.
export PP_CLOCK=${PP_CLOCK-cycles}
PP_LOGS=$(mktemp -d "${TMPDIR:-/tmp}/pp-e2e.XXXXXX")
pp_failed=0
pp_gid_opt=() # "-g $PP_GID" when PP_GID is set
pp_pid=       # PID of the last pp_server
pp_t0=${EPOCHREALTIME/./} # the script's start, in microseconds

# pp_at: the seconds since the script started ("12.3 s"), for the log lines
# that say where a slow test spends its time.
pp_at() {
	local us=$((${EPOCHREALTIME/./} - pp_t0))
	printf '%d.%d s' $((us / 1000000)) $((us % 1000000 / 100000))
}

pp_exit_hooks=() # commands pp_cleanup runs first (pp_on_exit)

# pp_on_exit CMD: run CMD (a string, eval'ed) when the script exits, before
# the processes are killed: for undoing changes to the host (links, MTUs).
pp_on_exit() {
	pp_exit_hooks+=("$1")
}

pp_cleanup() {
	local pid hook
	for hook in "${pp_exit_hooks[@]}"; do
		eval "$hook" >/dev/null 2>&1 || true
	done
	for pid in $(jobs -p); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	rm -rf "$PP_LOGS"
	# Tell the other host that this side has ended (pp_hear stops waiting).
	[[ -z ${PP_MEET:-} || -z ${PP_ROLE:-} ]] || : >"$PP_MEET/ended-$PP_ROLE" 2>/dev/null || true
}
trap pp_cleanup EXIT

# pp_need_device: exit 77 (skip) if there is no RDMA device at all, 1 if
# PP_DEV names one that does not exist.
# (A glob, not ls and head: a process costs 0.1 s in an emulated guest.)
pp_need_device() {
	local devs=(/sys/class/infiniband/*)
	if [[ ! -e ${devs[0]} ]]; then
		echo "SKIP: no RDMA device (/sys/class/infiniband is empty)"
		exit 77
	fi
	devs=("${devs[@]##*/}")
	PP_DEV=${PP_DEV:-${devs[0]}}
	if [[ ! -e /sys/class/infiniband/$PP_DEV ]]; then
		echo "FAIL: PP_DEV=$PP_DEV is not an RDMA device here (have: ${devs[*]})"
		exit 1
	fi
	[[ -z ${PP_GID:-} ]] || pp_gid_opt=(-g "$PP_GID")
}

# pp_bin NAME: print the path of the project's tool NAME, exit 1 if missing.
pp_bin() {
	local path=${PP_BIN:?PP_BIN must name the build directory}/$1/$1
	if [[ ! -x $path ]]; then
		echo "FAIL: $path is missing (build the project first)" >&2
		exit 1
	fi
	echo "$path"
}

# pp_server NAME LOGFILE CMD...: start CMD in the background, bounded; its
# PID is left in $pp_pid.
pp_server() {
	local name=$1 log=$2
	shift 2
	echo "start $name at $(pp_at): $*"
	timeout -k 5 "$PP_STEP_TIMEOUT" "$@" >"$log" 2>&1 &
	pp_pid=$!
}

# pp_tool_pid PID: the tool under the timeout wrapper that pp_server or
# pp_start_run started as PID. Signal the tool, never the wrapper: timeout
# passes a signal on to the tool and then to its whole process group, so
# the tool would get it twice, and a second SIGINT ends it at once (130).
pp_tool_pid() {
	pgrep -P "$1"
}

# pp_signal_tool SIG PID: send SIG to the tool under wrapper PID, once.
pp_signal_tool() {
	kill -"$1" "$(pp_tool_pid "$2")"
}

# pp_listening PORT: status 0 if a TCP socket listens on PORT here (this
# network namespace), from /proc/net/tcp and tcp6 read in bash, as ss
# -ltn would say without its process.
pp_listening() {
	local hex f x addr st
	printf -v hex ':%04X' "$1"
	for f in /proc/net/tcp /proc/net/tcp6; do
		[[ -r $f ]] || continue
		while read -r x addr x st x; do
			[[ $st == 0A && $addr == *"$hex" ]] && return 0
		done <"$f"
	done
	return 1
}

# pp_wait_port PORT PID: wait until something listens on TCP PORT; returns
# 1 if PID exits first or after PP_STEP_TIMEOUT seconds.
pp_wait_port() {
	local port=$1 pid=$2 i
	for ((i = 0; i < PP_STEP_TIMEOUT * 20; i++)); do
		pp_listening "$port" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# pp_client NAME LOGFILE CMD...: run CMD in the foreground, bounded; returns
# its exit status (124 on timeout).
pp_client() {
	local name=$1 log=$2 status=0
	shift 2
	echo "run $name at $(pp_at): $*"
	timeout -k 5 "$PP_STEP_TIMEOUT" "$@" >"$log" 2>&1 || status=$?
	echo "end $name at $(pp_at): status $status"
	return "$status"
}

# pp_wait PID: wait for a background process; returns its exit status.
pp_wait() {
	local status=0
	wait "$1" || status=$?
	echo "waited for $1 until $(pp_at): status $status"
	return "$status"
}

# pp_wait_line REGEX FILE [SECONDS]: wait (default at most 20 s) until a
# line of FILE matches REGEX; bash builtins only, so that it notices within
# about 10 ms.
pp_wait_line() {
	local i line
	for ((i = 0; i < ${3:-20} * 100; i++)); do
		# FILE may not exist yet: a background process's log is created
		# when its shell gets to the redirection
		if [[ -e $2 ]]; then
			while IFS= read -r line; do
				[[ $line =~ $1 ]] && return 0
			done <"$2"
		fi
		sleep 0.01
	done
	return 1
}

# pp_now_ms: the wall clock in milliseconds.
pp_now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

# pp_split ARGS...: ARGS split at their first "--": pp_before holds what
# comes before it, pp_after what comes after (all of ARGS and nothing when
# there is no "--"). The callers' "SERVER-OPTS... -- CLIENT-ARGS...".
pp_split() {
	pp_before=() pp_after=()
	while (($#)) && [[ $1 != -- ]]; do
		pp_before+=("$1")
		shift
	done
	(($#)) && shift
	pp_after=("$@")
}

# pp_start_run NAME BIN PORT WATCH [SERVER_OPTS...] -- CLIENT_OPTS...: start
# a server of BIN on PORT (-d, -p and SERVER_OPTS) and a client of it (-d,
# -p, the GID option and CLIENT_OPTS), logging to $PP_LOGS/server.NAME and
# $PP_LOGS/client.NAME, both in the background; then wait until the run has
# started: the address lines in WATCH's log (server or client).  Leaves
# pp_spid, pp_cpid, pp_slog and pp_clog.  A side that does not get there is
# a failure (pp_fail), and the caller goes on to collect what there is.
pp_start_run() {
	local name=$1 bin=$2 port=$3 watch=$4 sopts=()
	shift 4
	pp_split "$@"
	sopts=("${pp_before[@]}")
	set -- "${pp_after[@]}"
	pp_slog=$PP_LOGS/server.$name pp_clog=$PP_LOGS/client.$name
	pp_server server "$pp_slog" "$bin" -d "$PP_DEV" -p "$port" "${sopts[@]}"
	pp_spid=$pp_pid
	pp_wait_port "$port" "$pp_spid" ||
		pp_fail "$name: the server is not listening"
	pp_server client "$pp_clog" "$bin" -d "$PP_DEV" -p "$port" \
		"${pp_gid_opt[@]}" "$@" "$PP_HOST"
	pp_cpid=$pp_pid
	local wlog=$pp_slog
	[[ $watch == server ]] || wlog=$pp_clog
	pp_wait_line '^  remote address' "$wlog" ||
		pp_fail "$name: the run did not start"
}

# pp_wait_timed PID...: wait for each PID in turn; leaves pp_status, the
# exit status of the last one, and pp_ms, the milliseconds the waiting took.
pp_wait_timed() {
	local t0 pid
	t0=$(pp_now_ms)
	for pid; do
		pp_status=0
		wait "$pid" || pp_status=$?
	done
	pp_ms=$(($(pp_now_ms) - t0))
}

# pp_expect_fast MS LIMIT_MS WHAT: WHAT ("the server ended") took MS ms,
# which must be under LIMIT_MS.
pp_expect_fast() {
	if (($1 < $2)); then
		echo "ok: $3 within $1 ms"
	else
		pp_fail "$3 after $1 ms, expected less than $2 ms"
	fi
}

# --- Two hosts -------------------------------------------------------------

pp_pair_port=${PP_PORT} # the TCP port of the current pp_pair_run case
pp_peer=                # the other role: B on A, A on B
pp_sa='' pp_sb=''       # exit status of the server (A), client (B)
pp_vlan_gid=            # pp_pair_vlan: the GID index of eth0.100's IPv4

# pp_pair_need: exit 1 unless this is one side of a two-host run.
pp_pair_need() {
	if [[ ${PP_ROLE:-} != [AB] || ! -d ${PP_MEET:-} || -z ${PP_ADDR_A:-} ||
		-z ${PP_ADDR_B:-} ]]; then
		echo "FAIL: a two-host test: run it with tests/softroce/guest.sh --pair"
		exit 1
	fi
	pp_peer=A
	[[ $PP_ROLE == B ]] || pp_peer=B
	# tc, sysctl: the guest's PATH may lack the sbin directories.
	PATH=$PATH:/usr/sbin:/sbin
	pp_need_device
}

# pp_tell NAME [TEXT]: tell the other host NAME (with TEXT): write it into
# $PP_MEET/NAME, renamed into place so that it is never seen half-written.
pp_tell() {
	printf '%s\n' "${2:-}" >"$PP_MEET/.$1.$PP_ROLE" &&
		mv -f "$PP_MEET/.$1.$PP_ROLE" "$PP_MEET/$1"
}

# pp_hear NAME [SECONDS]: wait (default PP_STEP_TIMEOUT + 10 s) until the
# other host tells NAME; print its text. Returns 1 (with a FAIL line) if the
# other host's script ends first or the time runs out.
pp_hear() {
	local i
	for ((i = 0; i < ${2:-$((PP_STEP_TIMEOUT + 10))} * 20; i++)); do
		if [[ -f $PP_MEET/$1 ]]; then
			cat "$PP_MEET/$1"
			return 0
		fi
		if [[ -e $PP_MEET/ended-$pp_peer ]]; then
			sleep 0.2
			[[ ! -e $PP_MEET/$1 ]] || continue
			pp_fail "host $pp_peer ended without telling '$1'" >&2
			return 1
		fi
		sleep 0.05
	done
	pp_fail "host $pp_peer did not tell '$1' in time" >&2
	return 1
}

# pp_pair_next: the next case's TCP port, in $pp_pair_port (both hosts
# count their cases in the same order).
pp_pair_next() {
	pp_pair_port=$((pp_pair_port + 1))
}

# pp_pair_run NAME SERVER-CMD... -- CLIENT-CMD...: one case across the two
# hosts. A runs SERVER-CMD in the background, waits until it listens on
# $pp_pair_port and tells B, which then runs CLIENT-CMD; each side waits for
# the other's result. Afterwards, on both hosts: $pp_sa and $pp_sb are the
# server's and the client's exit status, $PP_MEET/NAME.A and NAME.B their
# output (B prints both).
pp_pair_run() {
	local name=$1 args=() st=0 log=$PP_LOGS/$1.$PP_ROLE
	shift
	pp_split "$@"
	args=("${pp_before[@]}")
	set -- "${pp_after[@]}"
	if [[ $PP_ROLE == A ]]; then
		pp_server "$name server" "$log" "${args[@]}"
		local spid=$pp_pid
		pp_wait_port "$pp_pair_port" "$spid" ||
			pp_fail "$name: the server is not listening on $pp_pair_port"
		pp_tell "$name.listen"
		pp_wait "$spid" || st=$?
	else
		pp_hear "$name.listen" >/dev/null || true
		pp_client "$name client" "$log" "$@" || st=$?
	fi
	cp "$log" "$PP_MEET/$name.$PP_ROLE"
	pp_tell "$name.status.$PP_ROLE" "$st"
	if [[ $PP_ROLE == A ]]; then
		pp_sa=$st
		pp_sb=$(pp_hear "$name.status.B") || pp_sb=none
	else
		pp_sb=$st
		pp_sa=$(pp_hear "$name.status.A") || pp_sa=none
		local side
		for side in A B; do
			echo "--- $name: host $side output (exit $([[ $side == A ]] && echo "$pp_sa" || echo "$pp_sb"))"
			pp_indent '    ' "$PP_MEET/$name.$side" 2>/dev/null || true
		done
	fi
}

# --- N hosts and Slurm -----------------------------------------------------

pp_hosts=() # pp_mesh_need: the roles of the bed's hosts, A first
pp_nodes=() # and their host (and Slurm node) names

# pp_mesh_need: exit 1 unless this is one host of a bed of N hosts with
# Slurm.
pp_mesh_need() {
	local role var
	if [[ ${PP_ROLE:-} != [A-I] || -z ${PP_HOSTS:-} || ! -d ${PP_MEET:-} ||
		-z ${SLURM_CONF:-} ]]; then
		echo "FAIL: a test of N hosts: run it with tests/softroce/guest.sh --hosts N"
		exit 1
	fi
	read -r -a pp_hosts <<<"$PP_HOSTS"
	for role in "${pp_hosts[@]}"; do
		var=PP_NODE_$role
		pp_nodes+=("${!var}")
	done
	PATH=$PATH:/usr/sbin:/sbin
	pp_need_device
}

# pp_host_check CMD...: a check for the host to run once every guest of the
# bed is done (guest.sh: host_checks), in PP_MEET: arguments under PP_MEET
# are given relative to it. Its lines and its status are the test's: a
# non-zero exit or a FAIL line fails it. For checks that start programs
# that are slow to start in an emulated guest (python3, rsvg-convert).
pp_host_check() {
	local a args=()
	for a; do
		args+=("${a#"$PP_MEET"/}")
	done
	printf '%q ' "${args[@]}" >>"$PP_MEET/host-checks"
	echo >>"$PP_MEET/host-checks"
}

# pp_hear_from ROLE NAME [SECONDS]: pp_hear NAME, told by host ROLE.
pp_hear_from() {
	local pp_peer=$1
	shift
	pp_hear "$@"
}

# pp_gid_of IP NETDEV [DEV]: the index of the RoCE v2 GID of IP on NETDEV in
# port 1 of DEV (default $PP_DEV; from sysfs); nothing if there is none. One
# grep over the table (rxe has 1024 entries; a process per entry takes
# seconds in an emulated guest).
pp_gid_of() {
	local want port=/sys/class/infiniband/${3:-$PP_DEV}/ports/1 f n v a b c d
	if [[ $1 == *:* ]]; then
		want=$(python3 -c 'import ipaddress, sys
print(ipaddress.IPv6Address(sys.argv[1]).exploded)' "$1")
	else
		IFS=. read -r a b c d <<<"$1"
		want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
			"$a" "$b" "$c" "$d")
	fi
	# A here-string, not <(...): the guest has no /dev/fd.
	while IFS= read -r f; do
		[[ -n $f ]] || continue
		n=${f##*/}
		read -r v 2>/dev/null <"$port/gid_attrs/ndevs/$n" || continue
		[[ $v == "$2" ]] || continue
		read -r v 2>/dev/null <"$port/gid_attrs/types/$n" || continue
		[[ $v == "RoCE v2" ]] || continue
		echo "$n"
		return 0
	done <<<"$(grep -lx -- "$want" "$port"/gids/* 2>/dev/null)"
}

# pp_active_mtu [DEV]: the active MTU of port 1 of DEV (default $PP_DEV).
pp_active_mtu() {
	ibv_devinfo -d "${1:-$PP_DEV}" -i 1 |
		sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
}

# pp_netdev_mtu NETDEV MTU [DEV]: set NETDEV's MTU (the one it had is put
# back on exit) and wait (at most 5 s) until DEV (default $PP_DEV), the rxe
# device on NETDEV, follows: rxe's active MTU is the largest IB MTU (256 to
# 4096) that fits in the netdev's MTU less 80 bytes of headers, so 1500
# gives 1024, and 4200 or 9000 give 4096. A failure is a pp_fail; returns 1.
pp_netdev_mtu() {
	local nd=$1 mtu=$2 dev=${3:-$PP_DEV} old want=4096
	read -r old <"/sys/class/net/$nd/mtu" || {
		pp_fail "host ${PP_ROLE:-}: no netdev $nd"
		return 1
	}
	while ((want > 256 && want > mtu - 80)); do
		want=$((want / 2))
	done
	pp_on_exit "ip link set $nd mtu $old"
	ip link set "$nd" mtu "$mtu" || {
		pp_fail "host ${PP_ROLE:-}: cannot set $nd mtu $mtu"
		return 1
	}
	for _ in $(seq 50); do
		[[ $(pp_active_mtu "$dev") != "$want" ]] || break
		sleep 0.1
	done
	echo "host ${PP_ROLE:-}: $nd mtu $mtu, $dev active MTU $(pp_active_mtu "$dev")"
	[[ $(pp_active_mtu "$dev") == "$want" ]] || {
		pp_fail "host ${PP_ROLE:-}: $nd mtu $mtu, but $dev's active MTU is $(pp_active_mtu "$dev"), expected $want"
		return 1
	}
}

# pp_netem NETDEV DELAY [PEER]: delay what NETDEV sends by DELAY (netem's
# syntax: 100ms); with PEER, an IPv4 address, only what it sends to PEER
# (RoCE v2 is UDP/IP: a u32 filter on the destination address sends those
# packets to a band of a prio qdisc that holds the netem, the rest to
# prio's own bands, untouched). Removed on exit. A failure is a pp_fail;
# returns 1.
pp_netem() {
	local nd=$1 delay=$2 peer=${3:-}
	pp_on_exit "tc qdisc del dev $nd root"
	if [[ -z $peer ]]; then
		tc qdisc add dev "$nd" root netem delay "$delay"
	else
		# bands 4: the default priomap uses bands 1:1-1:3 only, so
		# 1:4 gets nothing but what the filter sends it
		tc qdisc add dev "$nd" root handle 1: prio bands 4 &&
			tc qdisc add dev "$nd" parent 1:4 handle 40: netem delay "$delay" &&
			tc filter add dev "$nd" parent 1: protocol ip prio 1 u32 \
				match ip dst "$peer/32" flowid 1:4
	fi || {
		pp_fail "host ${PP_ROLE:-}: cannot add netem delay $delay on $nd${peer:+ toward $peer}"
		return 1
	}
	tc qdisc show dev "$nd" | sed "s/^/    host ${PP_ROLE:-}: /"
	[[ -z $peer ]] || tc filter show dev "$nd" | sed "s/^/    host ${PP_ROLE:-}: /"
}

# pp_show_gids: print the populated GIDs of $PP_DEV port 1 with their
# netdevs and types (from sysfs).
pp_show_gids() {
	local port=/sys/class/infiniband/$PP_DEV/ports/1 line n nd ty
	grep -vxH 0000:0000:0000:0000:0000:0000:0000:0000 "$port"/gids/* 2>/dev/null |
		sort -t/ -k9n | while IFS= read -r line; do
		n=${line%%:*} n=${n##*/}
		nd='' ty=''
		read -r nd 2>/dev/null <"$port/gid_attrs/ndevs/$n" || true
		read -r ty 2>/dev/null <"$port/gid_attrs/types/$n" || true
		echo "  $n ${line#*:} $nd $ty"
	done
}

# pp_wait_gid IP NETDEV [SECONDS]: wait (default 20 s) until the GID of IP
# on NETDEV exists; print its index. Returns 1 if it does not appear.
pp_wait_gid() {
	local i n
	for ((i = 0; i < ${3:-20} * 10; i++)); do
		n=$(pp_gid_of "$1" "$2")
		if [[ -n $n ]]; then
			echo "$n"
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# pp_pair_vlan: VLAN 100 on eth0 (eth0.100) with 10.99.2.1 on A, 10.99.2.2
# on B, up, deleted on exit; waits for its IPv4 GID and sets $pp_vlan_gid to
# its index. (Not in a command substitution: the exit hook would be lost.)
pp_pair_vlan() {
	local x=1
	[[ $PP_ROLE == A ]] || x=2
	pp_on_exit 'ip link del eth0.100'
	ip link add link eth0 name eth0.100 type vlan id 100
	ip addr add "10.99.2.$x/24" dev eth0.100
	ip link set eth0.100 up
	pp_vlan_gid=$(pp_wait_gid "10.99.2.$x" eth0.100) ||
		pp_fail "host $PP_ROLE: no GID for 10.99.2.$x on eth0.100"
}

# pp_interop_pair TRANSPORT: our tool against rdma-core's for rc, uc, ud or
# srq: sets ours, stock, size, ours_opts and stock_opts (the options each
# needs to match the other; the stock tools negotiate nothing).  Returns 1
# for another transport.
pp_interop_pair() {
	size=4096 ours_opts=() stock_opts=(-m 1024)
	case $1 in
	rc) ours=rc_pingpong stock=ibv_rc_pingpong ;;
	uc) ours=rc_pingpong stock=ibv_uc_pingpong ours_opts=(--uc) ;;
	ud) ours=ud_pingpong stock=ibv_ud_pingpong size=1024 stock_opts=() ;;
	srq)
		ours=srq_pingpong stock=ibv_srq_pingpong
		ours_opts=(-q 16) stock_opts=(-m 1024 -q 16)
		;;
	*) return 1 ;;
	esac
}

pp_fail() {
	echo "FAIL: $*"
	pp_failed=1
}

# pp_expect_status ACTUAL EXPECTED WHAT
pp_expect_status() {
	if [[ $1 == "$2" ]]; then
		echo "ok: $3 exited with $1"
	else
		pp_fail "$3 exited with $1, expected $2"
	fi
}

# pp_short_log FILE: FILE's lines into the array pp_lines, status 0, when
# it can be read and has at most 256 of them; else status 1. In the
# emulated guest a process (grep, sed) costs 0.2-0.5 s to start and bash
# matches a line in about 0.3 ms: a short log is cheaper read in bash, a
# long one (a --trace of 64 QPs has thousands of lines) by grep or sed.
pp_lines=()
pp_short_log() {
	pp_lines=()
	[[ -r $1 ]] && mapfile -t -n 257 pp_lines <"$1" 2>/dev/null &&
		((${#pp_lines[@]} <= 256))
}

# pp_match PATTERN FILE: status 0 if a line of FILE matches the extended
# regex PATTERN, as grep -Eq: in bash for a short log (pp_short_log), else
# with grep itself, as for a PATTERN that is no regex to bash (status 2).
pp_match() {
	local re=$1 line st=0
	if ! pp_short_log "$2"; then
		grep -Eq -- "$re" "$2"
		return
	fi
	# shellcheck disable=SC2319 # the status of [[ ]]: 2 for a bad regex
	[[ '' =~ $re ]] || st=$?
	if ((st == 2)); then
		grep -Eq -- "$re" "$2"
		return
	fi
	for line in "${pp_lines[@]}"; do
		[[ $line =~ $re ]] && return 0
	done
	return 1
}

# pp_indent PREFIX FILE: FILE's lines with PREFIX before each (as sed
# 's/^/PREFIX/' FILE, with no process); nothing if FILE cannot be read.
pp_indent() {
	local line
	[[ -r $2 ]] || return 0
	while IFS= read -r line || [[ -n $line ]]; do
		printf '%s%s\n' "$1" "$line"
	done <"$2"
}

# pp_expect_grep PATTERN FILE WHAT: FILE must match the extended regex
# PATTERN; on failure the end of FILE is shown.
pp_expect_grep() {
	if pp_match "$1" "$2"; then
		echo "ok: $3"
	else
		pp_fail "$3: no match for '$1' in $(basename "$2"):"
		tail -n 20 "$2" | sed 's/^/    /'
	fi
}

# pp_finish: exit 0 if every expectation held, 1 otherwise.
pp_finish() {
	if ((pp_failed)); then
		echo "FAILED"
		exit 1
	fi
	echo "PASSED"
	exit 0
}
