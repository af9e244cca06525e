# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# Stage 2 of the Soft-RoCE guest, started by the initramfs /init of
# tests/softroce/guest.sh: the host's bash, chrooted into the host's root
# file system, with the writable 9p share (the host's run or state directory)
# on /run/pp-softroce. It sets up rxe0, writes "ready" into the share, then
# runs jobs one at a time until asked to stop:
#
#   jobs/ID/         a job, renamed into place by the host once complete
#     limit          seconds it may run
#     env            exports, PP_CWD, PP_CMD=(...), PP_TMPKEEP=(...)
#     cancel         written by the host: kill the job now
#     output         written here: the job's stdout and stderr
#     killed         written here if the job was killed: why
#     status         written here, last: its exit status
#   stop             power off once no job is pending
#   idle             power off after this many seconds without a job
#
# After each job every process but init and this loop is killed, so nothing
# a job leaves behind (servers in their own process groups...) can disturb
# the next one. Console lines PP-GUEST-FAIL=... and PP-GUEST-STATUS=... are
# for the host.
set -u
share=/run/pp-softroce

fail() {
	echo "PP-GUEST-FAIL=$*"
	exit 1
}

# --- Soft-RoCE -------------------------------------------------------------

ip link set lo up || fail "cannot bring up lo"
# The tests' servers listen on TCP ports 20000-41999 (lib.sh's PP_PORT and
# the ports after it); the kernel's own ports for outgoing connections start
# above them, so that no client's connection, or its TIME_WAIT, holds the
# port of a server started next (its bind would fail: address in use).
echo "42000 60999" >/proc/sys/net/ipv4/ip_local_port_range ||
	fail "cannot set net.ipv4.ip_local_port_range"
peers=() peers1=()
[[ ! -r $share/role ]] || read -r role <"$share/role"
if [[ -n ${role:-} ]]; then
	# Host A, B, ... of a pair (guest.sh --pair) or a bed (--hosts N):
	# rxe0 on the virtio NIC, and the directory all hosts see on
	# /run/pp-meet. The share's "hosts" has a line "ROLE ADDR [NAME
	# [ADDR1 MTU1]]" per host; with names, they are the host names
	# (hostname, /etc/hosts); with ADDR1, the host has a second NIC, eth1,
	# on a second segment (a bed's second rail): that address and MTU,
	# and rxe1 on it.
	etc_hosts=$'127.0.0.1	localhost
'
	while read -r r addr name addr1 mtu1; do
		if [[ $r == "$role" ]]; then
			mine=$addr myname=$name mine1=$addr1 mymtu1=$mtu1
		else
			peers+=("$addr")
			[[ -z $addr1 ]] || peers1+=("$addr1")
		fi
		[[ -z $name ]] || etc_hosts+="$addr"$'	'"$name $r"$'
'
	done <"$share/hosts"
	[[ -n ${mine:-} ]] || fail "host $role is not in the bed's list of hosts"
	if [[ -n $myname ]]; then
		hostname "$myname" || fail "cannot set the host name $myname"
		printf '%s' "$etc_hosts" >/run/hosts
		mount --bind /run/hosts /etc/hosts || fail "cannot bind /run/hosts on /etc/hosts"
	fi
	netdev=eth0
	[[ -e /sys/class/net/eth0 ]] || fail "host $role has no eth0 (virtio_net)"
	if ! { ip addr add "$mine/24" dev eth0 && ip link set eth0 up; }; then
		fail "cannot configure eth0 on host $role"
	fi
	if [[ -n $mine1 ]]; then
		[[ -e /sys/class/net/eth1 ]] || fail "host $role has no eth1 (its second NIC)"
		if ! { ip link set eth1 mtu "$mymtu1" && ip addr add "$mine1/24" dev eth1 &&
			ip link set eth1 up; }; then
			fail "cannot configure eth1 (mtu $mymtu1, $mine1) on host $role"
		fi
	fi
	mkdir -p /run/pp-meet
	mount -t 9p -o trans=virtio,version=9p2000.L ppmeet /run/pp-meet ||
		fail "cannot mount the pair's meeting directory over 9p"
else
	netdev=va
	ip link add va type veth peer name vb || fail "cannot create veth pair va/vb"
	if ! { ip addr add 10.99.0.1/24 dev va && ip addr add 10.99.0.2/24 dev vb &&
		ip link set va up && ip link set vb up; }; then
		fail "cannot configure veth va/vb"
	fi
fi
# rxe_up RXE NETDEV: rdma link add RXE on NETDEV, then wait (at most 10 s)
# until its port 1 is ACTIVE with the IPv4-mapped GID at index 1.
rxe_up() {
	local out port=/sys/class/infiniband/$1/ports/1
	out=$(timeout 30 rdma link add "$1" type rxe netdev "$2" 2>&1) ||
		fail "rdma link add $1 type rxe netdev $2 failed: $out"
	for _ in $(seq 100); do
		grep -q ACTIVE "$port/state" 2>/dev/null &&
			grep -q ffff "$port/gids/1" 2>/dev/null && break
		sleep 0.1
	done
	grep -q ACTIVE "$port/state" || fail "$1 port 1 is not ACTIVE: $(cat "$port/state")"
	grep -q ffff "$port/gids/1" || fail "$1 has no IPv4 GID at index 1"
}

# reach NETDEV PEER...: the peers boot at the same time: wait (about 120 s
# each at most) until each answers ARP on NETDEV, prodded by a UDP datagram
# to the discard port.
reach() {
	local dev=$1 peer
	shift
	for peer; do
		for _ in $(seq 600); do
			ip neigh show "$peer" dev "$dev" | grep -Eq 'REACHABLE|STALE|DELAY' && break
			echo >"/dev/udp/$peer/9" 2>/dev/null || true
			sleep 0.2
		done
		ip neigh show "$peer" dev "$dev" | grep -Eq 'REACHABLE|STALE|DELAY' ||
			fail "host $role ($mine) cannot reach host $peer over $dev"
	done
}

rxe_up rxe0 $netdev
[[ -z ${mine1:-} ]] || rxe_up rxe1 eth1
reach eth0 "${peers[@]}"
reach eth1 "${peers1[@]}"

# --- Slurm (guest.sh --hosts) ----------------------------------------------

# The daemons outlive the jobs: sweep spares them.
daemons=()

# slurm_up: munged, slurmctld on host A, slurmd; the configuration and the
# munge key come in the share's slurm/. Returns once this host's node is
# idle (at most 120 s).
slurm_up() {
	local c=/sys/fs/cgroup ctl ctls state=''
	export SLURM_CONF=/run/slurm/slurm.conf PATH=$PATH:/usr/sbin:/sbin
	mkdir -p /run/munge /run/slurm/state /run/slurm/spool
	if ! cp "$share/slurm/slurm.conf" "$share/slurm/cgroup.conf" /run/slurm/ ||
		! install -m 400 "$share/slurm/munge.key" /run/munge/munge.key; then
		fail "cannot copy the Slurm configuration to /run"
	fi
	munged -F --force --key-file=/run/munge/munge.key \
		--socket=/run/munge/munge.socket.2 --pid-file=/run/munge/munged.pid \
		--log-file=/run/munge/munged.log --seed-file=/run/munge/munged.seed \
		</dev/null >/run/munge/munged.out 2>&1 &
	daemons+=($!)
	# slurmd needs cgroup v2 with the controllers enabled, and no systemd
	# (cgroup.conf: IgnoreSystemd).
	mount -t cgroup2 none $c || fail "cannot mount cgroup2 on $c"
	mkdir -p $c/system.slice
	read -r -a ctls <$c/cgroup.controllers
	for ctl in "${ctls[@]}"; do
		echo "+$ctl" >$c/cgroup.subtree_control
		echo "+$ctl" >$c/system.slice/cgroup.subtree_control
	done 2>/dev/null
	if [[ $role == A ]]; then
		slurmctld -D </dev/null >/run/slurm/slurmctld.out 2>&1 &
		daemons+=($!)
	fi
	slurmd -D -N "$myname" </dev/null >/run/slurm/slurmd.out 2>&1 &
	daemons+=($!)
	for _ in $(seq 120); do
		state=$(sinfo -h -n "$myname" -o %T 2>/dev/null)
		[[ $state != idle ]] || return 0
		sleep 1
	done
	fail "Slurm node $myname (host $role) not idle within 120 s (sinfo: ${state:-no answer}; slurmd: $(tail -n 1 /run/slurm/slurmd.log 2>/dev/null))"
}
[[ ! -d $share/slurm ]] || slurm_up
echo ready >"$share/ready"

# --- Jobs ------------------------------------------------------------------

# nap SECONDS: sleep without forking (read times out on an idle FIFO).
mkfifo /run/pp-nap || fail "cannot create /run/pp-nap"
exec 3<>/run/pp-nap
nap() {
	read -r -t "$1" -u 3 _ || true
}

# sweep: SIGKILL every user process except init, this shell, the daemons
# and Slurm's steps (kernel threads have no exe). A step's slurmstepd
# (reparented to init) and the tasks under it belong to a job that another
# host's srun runs: this host's job may end while that step is launching
# here, and Slurm ends its steps itself.
sweep() {
	local p q line
	local -A parent=() comm=()
	for p in /proc/[0-9]*/stat; do
		# a process may end between the glob and the read
		read -r line 2>/dev/null <"$p" || continue
		q=${line%% *}
		comm[$q]=${line#*\(}
		comm[$q]=${comm[$q]%\)*}
		line=${line##*\) }
		line=${line#* }
		parent[$q]=${line%% *}
	done
	for p in "${!parent[@]}"; do
		((p == 1 || p == $$)) && continue
		[[ " ${daemons[*]} " != *" $p "* ]] || continue
		for ((q = p; q > 1; q = ${parent[$q]:-0})); do
			# a parent that ended after the listing: no name
			[[ ${comm[$q]:-} != slurmstepd ]] || continue 2
		done
		[[ -e /proc/$p/exe ]] && kill -KILL "$p" 2>/dev/null
	done
	return 0
}

# bind_tmp NAME...: the guest's /tmp is a tmpfs; bind the host's /tmp/NAME
# (cwd, script, PP_BIN of a job) into it. init still sees the host's /tmp
# on /hosttmp.
bind_tmp() {
	local name src
	for name; do
		src=/proc/1/root/hosttmp/$name
		[[ -e $src ]] || continue
		grep -q " /tmp/$name " /proc/self/mountinfo && continue
		if [[ -d $src ]]; then
			mkdir -p "/tmp/$name"
		else
			: >"/tmp/$name"
		fi
		mount --bind "$src" "/tmp/$name"
	done
}

# run_job DIR: run one job, bounded by its limit and its cancel file. The
# job's own subshell writes its status to tmpfs when the command ends: the
# loop neither waits for it nor polls the 9p share more than once a second.
# That file is emptied and written with builtins (one write of a few bytes:
# not empty means complete): rm and mv took 0.1-0.15 s each in the guest.
run_job() {
	local job=$1 limit=60 start status=124 reason='' n=0 t0=$EPOCHREALTIME
	local done=/run/pp-job.status
	read -r limit <"$job/limit" || true
	: >"$done"
	printf 'PP-GUEST-PICK job %s at %s\n' "${job##*/}" "$(</proc/uptime)"
	if [[ -e $job/cancel ]]; then
		reason="cancelled by the host before it started"
		: >"$job/output"
	else
		(
			PP_TMPKEEP=()
			# shellcheck source=/dev/null # written by guest.sh
			. "$job/env"
			bind_tmp "${PP_TMPKEEP[@]}"
			if cd "$PP_CWD"; then
				st=0
				"${PP_CMD[@]}" || st=$?
			else
				st=1
			fi
			echo "$st" >"$done"
		) </dev/null >"$job/output" 2>&1 &
		start=$SECONDS
		while [[ ! -s $done ]]; do
			if ((n++ % 10 == 0)) && [[ -e $job/cancel ]]; then
				reason="cancelled by the host"
			elif ((SECONDS - start >= limit)); then
				reason="timed out after $limit s in the guest"
			fi
			[[ -z $reason ]] || break
			nap 0.1
		done
		[[ -n $reason ]] || read -r status <"$done" || status=1
		sweep
	fi
	[[ -z $reason ]] || echo "$reason" >"$job/killed"
	t0=$(((${EPOCHREALTIME/./} - ${t0/./}) / 1000))
	echo "$t0" >"$job/took" # ms, for the host's account of a slow job
	echo "$status" >"$job/status.new" && mv "$job/status.new" "$job/status"
	printf 'PP-GUEST-STATUS=%s (job %s, %d.%03d s)\n' "$status" "${job##*/}" \
		$((t0 / 1000)) $((t0 % 1000))
}

idle=0
[[ ! -r $share/idle ]] || read -r idle <"$share/idle" || true
last=$SECONDS
# The last job run, never run again: once it has its status the host renames
# its directory and removes it, and a lookup through the directory this
# guest still holds open can find its env after its status is gone (QEMU's
# 9p reaches a directory by descriptor, not by name): that job ran again,
# found nothing, and held the guest for a minute (its limit's default).
done_job=
while :; do
	job=
	for j in "$share"/jobs/*; do
		[[ ${j##*/} != "$done_job" ]] || continue
		if [[ -e $j/env && ! -e $j/status ]]; then
			job=$j
			break
		fi
	done
	if [[ -n $job ]]; then
		run_job "$job"
		done_job=${job##*/}
		last=$SECONDS
	elif [[ -e $share/stop ]]; then
		break
	elif ((idle > 0 && SECONDS - last >= idle)); then
		echo "PP-GUEST-IDLE: no job for $idle s, powering off"
		break
	else
		nap 0.2
	fi
done
