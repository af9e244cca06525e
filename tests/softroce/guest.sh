#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run test scripts where an RDMA device exists.
#
# Usage: tests/softroce/guest.sh [--pair | --hosts N] [--timeout SECONDS] SCRIPT [ARGS...]
#        tests/softroce/guest.sh [--pair | --hosts N] [--timeout SECONDS] --start DIR
#        tests/softroce/guest.sh [--pair | --hosts N] --stop DIR
#
# If the host has an RDMA device with an ACTIVE port (and PP_FORCE_VM is not
# 1), SCRIPT runs right here. Otherwise Debian's stock kernel boots in QEMU
# (software emulation), with the host's root file system as the guest's,
# read-only over 9p, a Soft-RoCE device rxe0 on a veth pair, and SCRIPT runs
# in it with PP_DEV=rxe0 PP_GID=1 PP_HOST=127.0.0.1.
#
# The guest is booted for SCRIPT alone, or shared: --start DIR boots one in
# the background (state in DIR) and returns once rxe0 is up; while
# PP_GUEST_DIR names DIR, SCRIPT runs in that guest, one job at a time;
# --stop DIR powers it off. With a real device --start/--stop do nothing.
# With PP_GUEST_REUSE=1, --start keeps a guest that already runs in DIR.
#
# --pair: two hosts. Two guests, A and B, each with its own kernel, virtio
# NIC eth0 (10.99.1.1/24 and 10.99.1.2/24) and rxe0 on it, joined by one
# emulated Ethernet segment (QEMU's UDP socket netdev over the loopback).
# SCRIPT runs on both at once, with PP_ROLE=A or B, PP_ADDR_A, PP_ADDR_B,
# PP_HOST=PP_ADDR_A, PP_PORT and PP_MEET, a directory both guests see (see
# tests/e2e/lib.sh); PP_GUEST_PAIR names the state directory of a shared
# pair. With PP_HOST_A and PP_HOST_B set, the two sides run on those real
# hosts over ssh instead (docs/dev/testing.md).
#
# --hosts N: N hosts (2 to 9) and a real Slurm. N guests A, B, C, ... with
# host names node01, node02, ..., each with its own kernel, eth0
# (10.99.5.1/24, .2, ...) and rxe0 on it, all on one emulated Ethernet
# segment (QEMU's multicast socket netdev, a hub), and a second NIC, eth1
# (10.99.6.1/24, .2, ...; MTU 9000, or PP_RAIL1_MTU, or PP_RAIL1_MTU_<ROLE>
# for one host) with rxe1 on it, on a second hub with no path to the first
# (two rails); munged on every guest,
# slurmctld on A, slurmd on every guest (slurm.conf named by SLURM_CONF).
# SCRIPT runs on all of them at once, as for --pair, with PP_ROLE, PP_HOSTS
# (the roles: A B C ...), PP_ADDR_<ROLE>, PP_NODE_<ROLE> (the host name),
# PP_ADDR1_<ROLE> (its eth1), PP_HOST=PP_ADDR_A, PP_PORT and PP_MEET;
# PP_GUEST_MESH names the state directory of a shared bed.
#
# SCRIPT's output is printed here and its exit status is ours. When the test
# bed itself fails, one "softroce: <what failed>" line is printed and the
# status is 1, never 77: a broken bed must fail tests, not skip them. See
# docs/dev/testing.md.
set -euo pipefail

prog=softroce
timeout=300
mode=run   # run, start or stop
dir=       # state directory of a shared guest (--start, --stop)
here=$(dirname "$(realpath -- "${BASH_SOURCE[0]}")")
cache=${PP_SOFTROCE_CACHE:-/var/cache/pp-softroce}
# Top-level modules; their dependencies are resolved with modprobe.
# crc32_generic is needed by "rdma link add" and is not a declared dependency.
# virtio_net (after failover, net_failover) is the two-host NIC; sch_netem
# (loss), 8021q (VLANs), and sch_prio, cls_u32 and act_gact (dropping one
# protocol's packets) serve the two-host cases.
modules=(virtio_pci 9pnet_virtio 9p crc32_generic failover net_failover
	virtio_net rdma_rxe ib_uverbs veth sch_netem 8021q sch_prio cls_u32
	act_gact)
pair=0     # --pair: two guests
hosts=0    # --hosts N: N guests and Slurm
job_env='export PP_DEV=rxe0 PP_GID=1 PP_HOST=127.0.0.1'
pair_addr_a=10.99.1.1
pair_addr_b=10.99.1.2
roles=(A B C D E F G H I) # the hosts of a pair or a bed, in order

die() {
	echo "$prog: $*"
	exit 1
}

usage() {
	echo "usage: $0 [--pair | --hosts N] [--timeout SECONDS] SCRIPT [ARGS...]" >&2
	echo "       $0 [--pair | --hosts N] [--timeout SECONDS] --start DIR | --stop DIR" >&2
	exit 2
}

while (($#)); do
	case $1 in
	--timeout)
		(($# >= 2)) || usage
		timeout=$2
		shift 2
		;;
	--timeout=*)
		timeout=${1#*=}
		shift
		;;
	--pair)
		pair=1
		shift
		;;
	--hosts)
		(($# >= 2)) || usage
		hosts=$2
		shift 2
		;;
	--start | --stop)
		(($# >= 2)) || usage
		mode=${1#--}
		dir=$(realpath -m -- "$2")
		shift 2
		;;
	--)
		shift
		break
		;;
	-*) usage ;;
	*) break ;;
	esac
done
[[ $timeout =~ ^[1-9][0-9]*$ ]] || usage
if [[ $hosts != 0 ]]; then
	[[ $hosts =~ ^[2-9]$ ]] || die "--hosts $hosts: give 2 to 9 hosts"
	((!pair)) || die "--pair and --hosts: give one of them"
	roles=("${roles[@]:0:hosts}")
	pair=1 # N hosts are a pair with more roles
else
	roles=(A B)
fi
if [[ $mode == run ]]; then
	(($# >= 1)) || usage
	script=$(realpath -- "$1")
	shift
	script_args=("$@")
	[[ -f $script ]] || die "no such test script: $script"
	if [[ -x $script ]]; then
		cmd=("$script" "$@")
	else
		cmd=(bash "$script" "$@")
	fi
else
	(($# == 0)) || usage
fi

# A real RDMA device on the host: run the script directly.
host_device() {
	local state
	for state in /sys/class/infiniband/*/ports/*/state; do
		[[ -r $state ]] || continue
		if grep -q ACTIVE "$state"; then
			basename "$(dirname "$(dirname "$(dirname "$state")")")"
			return 0
		fi
	done
	return 1
}

# pair_status STATUS...: print the status of a job of a pair or a bed from
# its sides' statuses: 0 when all passed, 1 when any failed, else 77
# (skipped). pair_exit STATUS...: exit with it.
pair_status() {
	local st all=0
	for st; do
		if ((st != 0 && st != 77)); then
			echo 1
			return
		fi
		all=$((all | st))
	done
	echo $((all ? 77 : 0))
}

pair_exit() {
	exit "$(pair_status "$@")"
}

# Two real hosts (--pair with PP_HOST_A and PP_HOST_B): SCRIPT runs on both
# over ssh, from the same working directory, as root or a user who may use
# the RDMA device. The tree, the build and the script must be at the same
# paths on both hosts, and PP_MEET_DIR (default: .pp-meet in the working
# directory) a directory both see (NFS, sshfs). PP_ADDR_A and PP_ADDR_B are
# the hosts' addresses on the RDMA network (default: PP_HOST_A, PP_HOST_B);
# PP_DEV_A and PP_DEV_B their devices (default: the first).
run_ssh_pair() {
	local id meet out role host dev env sa=0 sb=0 pa pb var
	id=$(date +%s%N).$$
	meet=$(realpath -m -- "${PP_MEET_DIR:-$PWD/.pp-meet}")/$id
	mkdir -p "$meet" || die "cannot create $meet"
	out=$(mktemp -d "${TMPDIR:-/tmp}/pp-pair-out.XXXXXX")
	export PP_PORT=${PP_PORT:-$((20000 + RANDOM % 20000))}
	for role in A B; do
		host=PP_HOST_$role dev=PP_DEV_$role
		env=()
		while IFS= read -r var; do
			case $var in
			PP_HOST_? | PP_DEV_? | PP_MEET_DIR | PP_GUEST_* | PP_GID) ;;
			*) env+=("$var=${!var}") ;;
			esac
		done < <(compgen -e | grep '^PP_' || true)
		env+=("PP_ROLE=$role" "PP_ADDR_A=${PP_ADDR_A:-$PP_HOST_A}"
			"PP_ADDR_B=${PP_ADDR_B:-$PP_HOST_B}"
			"PP_HOST=${PP_ADDR_A:-$PP_HOST_A}" "PP_MEET=$meet")
		[[ -z ${!dev:-} ]] || env+=("PP_DEV=${!dev}")
		timeout -k 10 "$timeout" ssh -o BatchMode=yes "${!host}" \
			"cd $(printf %q "$PWD") && env $(printf '%q ' "${env[@]}" "${cmd[@]}")" \
			</dev/null >"$out/$role" 2>&1 &
		if [[ $role == A ]]; then pa=$!; else pb=$!; fi
	done
	wait "$pa" || sa=$?
	wait "$pb" || sb=$?
	for role in A B; do
		host=PP_HOST_$role
		echo "=== host $role (${!host})"
		cat "$out/$role"
	done
	rm -rf "$out" "$meet"
	pair_exit "$sa" "$sb"
}

if ((pair && !hosts)) && [[ -n ${PP_HOST_A:-} && -n ${PP_HOST_B:-} ]]; then
	if [[ $mode != run ]]; then
		echo "$prog: two real hosts (PP_HOST_A, PP_HOST_B), no guests to $mode"
		exit 0
	fi
	run_ssh_pair
fi
if ((!pair)) && [[ ${PP_FORCE_VM:-0} != 1 ]] && dev=$(host_device); then
	if [[ $mode != run ]]; then
		echo "$prog: RDMA device $dev on the host, no guest to $mode"
		exit 0
	fi
	export PP_DEV=${PP_DEV:-$dev} PP_HOST=${PP_HOST:-127.0.0.1}
	status=0
	timeout -k 10 "$timeout" "${cmd[@]}" || status=$?
	((status != 124)) || echo "$prog: $script timed out after $timeout s"
	exit "$status"
fi

# --- Jobs and the shared guest ---------------------------------------------

# The guest side of a job is tests/softroce/guest-stage2.sh (see there for
# the files of the share). A shared guest's state directory DIR holds
# qemu.pid, console.log, lock (held by the submitter of the current job) and
# share/, the guest's writable 9p share.

console_tail() {
	echo "--- last lines of the guest console:"
	tail -n 20 "$1" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g; s/\r//g' | awk 1
}

# qemu_alive DIR PID: PID is the QEMU of the shared guest in DIR.
qemu_alive() {
	[[ $2 =~ ^[0-9]+$ ]] && kill -0 "$2" 2>/dev/null &&
		grep -qzF -- "path=$1/share," "/proc/$2/cmdline" 2>/dev/null
}

# write_job JOBS LIMIT: queue the job "${cmd[@]}" in the directory JOBS, to
# run at most LIMIT seconds; print the job's directory. It is renamed into
# place complete, so the guest never sees half of it.
write_job() {
	local jobs=$1 limit=$2 id var
	id=$(date +%s%N).$$
	mkdir -p "$jobs/.new.$id"
	echo "$limit" >"$jobs/.new.$id/limit"
	{
		# PP_* from the caller, then the device.
		while IFS= read -r var; do
			case $var in
			PP_DEV | PP_GID | PP_HOST | PP_FORCE_VM | PP_SOFTROCE_CACHE | PP_GUEST_*) ;;
			*) printf 'export %s=%q\n' "$var" "${!var}" ;;
			esac
		done < <(compgen -e | grep '^PP_' || true)
		echo "$job_env"
		echo 'export HOME=/tmp TMPDIR=/tmp LANG=C.UTF-8'
		printf 'PP_CWD=%q\n' "$PWD"
		printf 'PP_CMD=(%s)\n' "$(printf '%q ' "${cmd[@]}")"
		# The guest's /tmp is a tmpfs: the host /tmp entries the job needs.
		echo "PP_TMPKEEP=($(tmpkeep | tr '\n' ' '))"
	} >"$jobs/.new.$id/env"
	mv -T "$jobs/.new.$id" "$jobs/$id"
	echo "$jobs/$id"
}

tmpkeep() {
	local path
	for path in "$PWD" "$script" "${PP_BIN:-}"; do
		[[ $path == /tmp/?* ]] || continue
		path=${path#/tmp/}
		printf '%q\n' "${path%%/*}"
	done | sort -u
}

# drop_job JOB: remove a finished JOB, renaming it first so that the guest,
# which looks for jobs/* with env and no status, never sees half of it.
drop_job() {
	local old=${1%/*}/.old.${1##*/}
	# env first: a guest that reaches the directory through an open
	# descriptor must never see a job with env and without status
	mv -T "$1" "$old" 2>/dev/null && rm -f "$old/env" && rm -rf "$old"
}

# job_result JOB: print the output of a finished JOB and exit with its status
# (1 with a "softroce:" line if the guest killed it).
job_result() {
	local status
	[[ ! -e $1/output ]] || cat "$1/output"
	status=$(cat "$1/status")
	if [[ -e $1/killed ]]; then
		echo "$prog: $script $(cat "$1/killed")"
		exit 1
	fi
	[[ $status =~ ^[0-9]+$ ]] || die "bad status from the guest: $status"
	exit "$status"
}

# stop_guest DIR: power off the shared guest of DIR, kill QEMU if it does not
# stop within 30 s, remove the state. Status 1 if it was already gone.
stop_guest() {
	local dir=$1 pid='' i
	[[ -e $dir/qemu.pid ]] || {
		rm -rf "$dir"
		return 0
	}
	read -r pid <"$dir/qemu.pid" || true
	if ! qemu_alive "$dir" "$pid"; then
		echo "$prog: the shared guest in $dir was already gone"
		[[ ! -e $dir/console.log ]] || console_tail "$dir/console.log"
		rm -rf "$dir"
		return 1
	fi
	: >"$dir/share/stop"
	for ((i = 0; i < 300; i++)); do
		qemu_alive "$dir" "$pid" || break
		sleep 0.1
	done
	if qemu_alive "$dir" "$pid"; then
		echo "$prog: the shared guest did not power off within 30 s: QEMU killed"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -rf "$dir"
}

# submit_job DIR: run "${cmd[@]}" in the shared guest of DIR, bounded by
# --timeout (the guest gets 5 s less, to answer in time).
submit_job() {
	local dir=$1 share=$1/share pid='' start=$SECONDS i j limit
	gone() {
		[[ -z ${job:-} || ! -e $job/output ]] || cat "$job/output"
		if [[ -n ${pair_meet:-} && -e $pair_meet/poweroff-$pair_role ]]; then
			echo "$prog: host $pair_role powered off, as the test asked"
			exit 0
		fi
		echo "$prog: the shared guest is gone: its QEMU (pid ${pid:-?}) $* (state in $dir)"
		[[ ! -e $dir/console.log ]] || console_tail "$dir/console.log"
		exit 1
	}
	read -r pid <"$dir/qemu.pid" || true
	qemu_alive "$dir" "$pid" || gone "is not running"
	exec 8>>"$dir/lock"
	flock -w "$timeout" 8 ||
		die "the shared guest in $dir stayed busy for --timeout $timeout s"
	# Jobs left by submitters that were killed: cancel, or drop if done.
	for j in "$share"/jobs/*; do
		[[ -d $j ]] || continue
		if [[ -e $j/status ]]; then
			drop_job "$j"
		else
			: >"$j/cancel"
		fi
	done
	limit=$((timeout - (SECONDS - start)))
	limit=$((limit > 10 ? limit - 5 : limit))
	job=$(write_job "$share/jobs" "$limit")
	trap '[[ -e $job/status ]] || : >"$job/cancel" 2>/dev/null || true' EXIT
	trap 'exit 130' INT TERM
	local queued=${EPOCHREALTIME/./} picked='' took=0 ms
	while [[ ! -e $job/status ]]; do
		[[ -n $picked || ! -e $job/output ]] || picked=${EPOCHREALTIME/./}
		qemu_alive "$dir" "$pid" || gone "exited while running $script"
		((SECONDS - start < timeout)) || break
		sleep 0.1
	done
	# Where a slow job's time went, when not in the job itself: the guest
	# started it late, or its status came late.
	if [[ -e $job/status ]]; then
		ms=$(((${EPOCHREALTIME/./} - queued) / 1000))
		read -r took <"$job/took" 2>/dev/null || took=0
		picked=$(((${picked:-$queued} - queued) / 1000))
		if ((picked > 5000 || ms - picked - took > 5000)); then
			echo "$prog: the job took $ms ms here: started by the guest after $picked ms, ran $took ms there" >&2
		fi
	fi
	if [[ ! -e $job/status ]]; then
		# The guest did not stop the job at its limit: ask once more.
		: >"$job/cancel"
		for ((i = 0; i < 150; i++)); do
			[[ ! -e $job/status ]] || break
			qemu_alive "$dir" "$pid" || gone "exited while running $script"
			sleep 0.1
		done
	fi
	if [[ ! -e $job/status ]]; then
		kill -KILL "$pid" 2>/dev/null || true
		[[ ! -e $job/output ]] || cat "$job/output"
		die "$script timed out after $timeout s and the shared guest did not cancel it: QEMU killed"
	fi
	trap - EXIT
	# The result is read before the job is removed; job_result exits.
	trap 'drop_job "$job"' EXIT
	job_result "$job"
}

if [[ $mode == stop ]]; then
	if ((pair)); then
		st=0
		for role in "${roles[@]}"; do
			if [[ -e $dir/off-$role ]]; then
				echo "$prog: host $role is off already (a test powered it off)"
				rm -rf "${dir:?}/${role,,}"
				continue
			fi
			stop_guest "$dir/${role,,}" || st=1
		done
		rm -rf "$dir"
		exit "$st"
	fi
	stop_guest "$dir"
	exit
fi
if ((!pair)) && [[ $mode == run && -n ${PP_GUEST_DIR:-} && -e $PP_GUEST_DIR/qemu.pid ]]; then
	submit_job "$(realpath -m -- "$PP_GUEST_DIR")"
fi

# --- Kernel, modules and initramfs, built once per kernel version ---------

# The initramfs /init: load the modules, mount the host root, chroot into it
# and run the stage-2 script that the host put into the shared directory.
# Runs under busybox sh.
read -r -d '' guest_init <<'EOF' || true
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
fail() {
	echo "PP-GUEST-FAIL=$*"
	sync
	reboot -f
}
mount -t proc proc /proc
mount -t sysfs sys /sys
while read -r mod; do
	insmod "/modules/$mod" || fail "cannot load module $mod"
done </modules/order
# The host root twice: hostroot cached (cache=loose: the guest keeps what it
# read of the system's binaries and libraries, which do not change while it
# runs), hostfresh uncached. Every top-level directory but /usr and /etc
# (the projects, their builds, /tmp, ...) comes from hostfresh, so that a
# job sees a file as the host has it now: a binary rebuilt between two jobs.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 hostroot /mnt ||
	fail "cannot mount the host root over 9p"
mkdir -p /fresh
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 hostfresh /fresh ||
	fail "cannot mount the host root over 9p (uncached)"
for d in /fresh/*; do
	case ${d#/fresh/} in
	usr | etc | proc | sys | dev | run | tmp) continue ;;
	esac
	if [ -d "$d" ] && [ ! -L "$d" ]; then
		mount --bind "$d" "/mnt/${d#/fresh/}" || fail "cannot bind $d"
	fi
done
mount -t proc proc /mnt/proc
mount -t sysfs sys /mnt/sys
mount -t devtmpfs dev /mnt/dev
mkdir -p /hosttmp
mount --bind /fresh/tmp /hosttmp
mount -t tmpfs -o mode=1777 tmp /mnt/tmp
mount -t tmpfs -o mode=755 run /mnt/run
mkdir -p /mnt/run/pp-softroce
mount -t 9p -o trans=virtio,version=9p2000.L ppshare /mnt/run/pp-softroce ||
	fail "cannot mount the shared result directory over 9p"
# Keep the host's /tmp entries that the test needs (cwd, script, PP_BIN).
while read -r name; do
	if [ -d "/hosttmp/$name" ]; then
		mkdir -p "/mnt/tmp/$name"
	else
		touch "/mnt/tmp/$name"
	fi
	mount --bind "/hosttmp/$name" "/mnt/tmp/$name"
done </mnt/run/pp-softroce/tmpkeep
chroot /mnt /bin/bash /run/pp-softroce/stage2.sh
sync
reboot -f
EOF

# A cache entry is $cache/<kernel version>/<stamp>: the stamp changes with
# the initramfs contents, so editing this file never uses a stale one.
stamp=$(printf '%s\n' "$guest_init" "${modules[@]}" | sha256sum | cut -c1-12)

resolve_kernel() {
	local pkg
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
	if [[ -n $pkg ]]; then
		echo "${pkg#linux-image-}"
	else
		# No apt lists (offline?): use the newest kernel already cached.
		find "$cache" -mindepth 3 -maxdepth 3 -path "*/$stamp/initrd.img" \
			2>/dev/null | awk -F/ '{ print $(NF - 2) }' | sort -V | tail -n 1
	fi
}

# Build $entry/{vmlinuz,initrd.img} in a temporary directory, then rename it
# into place, so a cache entry is complete or absent.
build_cache() {
	local tmp log root mod n=0
	mkdir -p "$cache/$kver"
	tmp=$(mktemp -d "$cache/$kver/.build.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	log=$tmp/build.log
	root=$tmp/unpacked
	mkdir -p "$root" "$tmp/initramfs"/{bin,dev,proc,sys,mnt,modules}
	echo "$prog: building guest kernel cache $entry (once)" >&2
	if ! (cd "$tmp" && apt-get download -qq "linux-image-$kver") >"$log" 2>&1; then
		echo "$prog: cannot download linux-image-$kver"
		tail -n 5 "$log"
		exit 1
	fi
	dpkg-deb --fsys-tarfile "$tmp"/linux-image-*.deb |
		tar -x -C "$root" ./boot ./lib/modules ||
		die "cannot unpack linux-image-$kver"
	depmod -b "$root" "$kver"
	cp "$root/boot/vmlinuz-$kver" "$tmp/vmlinuz"
	while read -r mod; do
		n=$((n + 1))
		cp "$mod" "$tmp/initramfs/modules/$(printf %02d "$n")-${mod##*/}"
	done < <(modprobe -d "$root" -S "$kver" --show-depends -a "${modules[@]}" |
		awk '$1 == "insmod" && !seen[$2]++ { print $2 }')
	((n > 0)) || die "no modules found in linux-image-$kver"
	(cd "$tmp/initramfs/modules" && ls -- *.ko) >"$tmp/order"
	mv "$tmp/order" "$tmp/initramfs/modules/order"
	cp /bin/busybox "$tmp/initramfs/bin/busybox"
	printf '%s\n' "$guest_init" >"$tmp/initramfs/init"
	chmod +x "$tmp/initramfs/init"
	(cd "$tmp/initramfs" && find . | cpio -o -H newc -R 0:0 --quiet) |
		gzip -1 >"$tmp/initrd.img"
	rm -rf "$root" "$tmp/initramfs" "$tmp"/*.deb "$log"
	chmod 755 "$tmp"
	mv -T "$tmp" "$entry"
	trap - EXIT
}

mkdir -p "$cache" || die "cannot create the cache directory $cache"
kver=$(resolve_kernel)
[[ -n $kver ]] ||
	die "cannot resolve linux-image-amd64 (run apt-get update or tests/install-deps.sh)"
entry=$cache/$kver/$stamp
if [[ ! -e $entry/initrd.img ]]; then
	exec 9>"$cache/.lock"
	flock 9
	[[ -e $entry/initrd.img ]] || build_cache
	exec 9>&-
fi

# --- Booting a guest ------------------------------------------------------

# prepare_share DIR: the guest's writable share, with stage 2 in it.
prepare_share() {
	mkdir -p "$1/jobs"
	cp "$here/guest-stage2.sh" "$1/stage2.sh"
	# Host /tmp entries for the init to bind at boot (jobs bind their own).
	: >"$1/tmpkeep"
}

# boot_qemu SHARE CONSOLE [setsid] [QEMU-ARGS...]: start QEMU in the
# background, PID in $qemu_pid. QEMU-ARGS default to -smp 2 -nic none; the
# guest has $guest_mem MiB.
guest_mem=1024
boot_qemu() {
	local share=$1 console=$2 prefix=()
	shift 2
	[[ ${1:-} != setsid ]] || {
		prefix=(setsid)
		shift
	}
	(($#)) || set -- -smp 2 -nic none
	"${prefix[@]}" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m "$guest_mem" "$@" \
		-nographic -no-reboot \
		-kernel "$entry/vmlinuz" -initrd "$entry/initrd.img" \
		-append "console=ttyS0 quiet panic=-1" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path=/,mount_tag=hostfresh,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$share,mount_tag=ppshare,security_model=none" \
		</dev/null >"$console" 2>&1 &
	qemu_pid=$!
}

# boot_failure CONSOLE: why the guest stopped without a result.
boot_failure() {
	local failure
	failure=$(sed -n 's/^PP-GUEST-FAIL=//p' "$1" | tr -d '\r' | head -n 1)
	echo "${failure:-the guest did not boot or did not report a status}"
}

# boot_guest DIR [ROLE]: boot a shared guest in the background, state in
# DIR, in its own session (CTest must not wait for it nor kill it with the
# setup test). A guest left in DIR by an interrupted run is stopped first.
# ROLE A, B, ...: that host of the pair or bed whose state directory is
# DIR/.. (hosts, meet/; ports for a pair, mcast and slurm for a bed).
boot_guest() {
	local dir=$1 role=${2:-} up=${1%/*} p1 p2 n mac netdev qemu_args rail1=()
	[[ ! -e $dir/qemu.pid ]] || stop_guest "$dir" >/dev/null || true
	rm -rf "$dir"
	mkdir -p "$dir" || die "cannot create $dir"
	prepare_share "$dir/share"
	# A forgotten guest powers itself off.
	echo "${PP_GUEST_IDLE:-900}" >"$dir/share/idle"
	qemu_args=(-smp 2 -nic none)
	if [[ -n $role ]]; then
		n=$(($(printf %d "'$role") - 64)) # A is 1
		if [[ -e $up/mcast ]]; then
			# A bed: every guest on the multicast hub, and its
			# second NIC on a second hub (another group and port:
			# no path between the two).
			read -r p1 p2 <"$up/mcast"
			mac=52:54:00:99:04:0$n
			netdev=socket,id=n0,mcast=239.255.77.1:$p1,localaddr=127.0.0.1
			rail1=(-netdev "socket,id=n1,mcast=239.255.77.2:$p2,localaddr=127.0.0.1"
				-device "virtio-net-pci,netdev=n1,mac=52:54:00:99:06:0$n")
			guest_mem=768
			[[ ! -e $up/slurm ]] || cp -r "$up/slurm" "$dir/share/slurm"
		else
			# A pair: A binds P1 and sends to P2, B the other way round.
			read -r p1 p2 <"$up/ports"
			mac=52:54:00:99:01:0$n
			[[ $role == A ]] || read -r p2 p1 <"$up/ports"
			netdev=socket,id=n0,udp=127.0.0.1:$p2,localaddr=127.0.0.1:$p1
		fi
		echo "$role" >"$dir/share/role"
		cp "$up/hosts" "$dir/share/hosts"
		# One vCPU each: two or more guests on a 2-core machine.
		qemu_args=(-smp 1 -netdev "$netdev"
			-device "virtio-net-pci,netdev=n0,mac=$mac" "${rail1[@]}"
			-virtfs "local,path=$up/meet,mount_tag=ppmeet,security_model=none")
	fi
	boot_qemu "$dir/share" "$dir/console.log" setsid "${qemu_args[@]}"
	echo "$qemu_pid" >"$dir/qemu.pid"
}

# wait_ready DIR...: wait until the guests of DIR... are ready (rxe0 up; for
# a pair, the peer answers ARP). Otherwise print why and the console tails,
# kill them and return 1.
wait_ready() {
	local start=$SECONDS d pid failure='' pending
	while :; do
		pending=0
		for d; do
			[[ ! -e $d/share/ready ]] || continue
			pending=1
			read -r pid <"$d/qemu.pid" || true
			if ! kill -0 "$pid" 2>/dev/null; then
				failure=$(boot_failure "$d/console.log")
				(($# == 1)) || failure="guest ${d##*/}: $failure"
				break 2
			fi
		done
		((pending)) || return 0
		if ((SECONDS - start >= timeout)); then
			failure="the guest was not ready within --timeout $timeout s (QEMU killed)"
			break
		fi
		sleep 0.2
	done
	echo "$prog: $failure"
	for d; do
		read -r pid <"$d/qemu.pid" || true
		kill -KILL "$pid" 2>/dev/null || true
		(($# == 1)) || echo "--- guest ${d##*/}"
		console_tail "$d/console.log"
	done
	return 1
}

# free_udp_port: a random UDP port that nothing on the host has bound
# (random, so that concurrent runs do not collide).
free_udp_port() {
	local p i
	for ((i = 0; i < 200; i++)); do
		p=$((20000 + RANDOM % 40000))
		if [[ -z $(ss -Hlun "sport = :$p") ]]; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# slurm_files HOSTS DIR: the Slurm configuration of a bed whose hosts are
# the lines "ROLE ADDR NAME" of HOSTS, into DIR: slurm.conf and cgroup.conf
# (stage 2 copies them to /run/slurm, named by SLURM_CONF), munge.key (the
# one key of every guest). slurmctld runs on the first host; each node
# claims 4 CPUs on its one vCPU (config_overrides), so that "srun -n 16"
# fits on 4 guests.
slurm_files() {
	local role addr name first=''
	mkdir -p "$2"
	{
		cat <<-'EOF'
			# Written by tests/softroce/guest.sh --hosts for its guests.
			ClusterName=ppbed
			AuthType=auth/munge
			CredType=cred/munge
			SlurmUser=root
			SlurmdUser=root
			StateSaveLocation=/run/slurm/state
			SlurmdSpoolDir=/run/slurm/spool
			SlurmctldPidFile=/run/slurm/slurmctld.pid
			SlurmdPidFile=/run/slurm/slurmd.pid
			SlurmctldLogFile=/run/slurm/slurmctld.log
			SlurmdLogFile=/run/slurm/slurmd.log
			ProctrackType=proctrack/linuxproc
			TaskPlugin=task/none
			MpiDefault=none
			SwitchType=switch/none
			ReturnToService=2
			SlurmdParameters=config_overrides
			AccountingStorageType=accounting_storage/none
			JobAcctGatherType=jobacct_gather/none
			JobCompType=jobcomp/none
			SchedulerType=sched/builtin
			SelectType=select/cons_tres
			SelectTypeParameters=CR_CPU
			# Emulated guests answer slowly when busy: a connection
			# may take 15 s (default 2 s), a message 30 s (default 10).
			TCPTimeout=15
			MessageTimeout=30
			# A guest powered off by a test is DOWN within 20 s.
			SlurmdTimeout=20
			InactiveLimit=0
			KillWait=5
			MinJobAge=30
		EOF
		while read -r role addr name _; do
			if [[ -z $first ]]; then
				first=$name
				echo "SlurmctldHost=$name($addr)"
			fi
			echo "NodeName=$name NodeAddr=$addr CPUs=4 State=UNKNOWN"
		done <"$1"
		echo "PartitionName=bed Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
	} >"$2/slurm.conf"
	printf '%s\n' CgroupPlugin=cgroup/v2 IgnoreSystemd=yes >"$2/cgroup.conf"
	head -c 1024 /dev/urandom >"$2/munge.key"
	chmod 400 "$2/munge.key"
}

# submit_pair DIR: run "${cmd[@]}" on every host of the shared pair (or
# bed) in DIR, at once, as jobs with PP_ROLE=A, B, ...; print each host's
# output in turn; the status is 0 if all passed, 77 if none failed and one
# skipped, else 1. A host that the script powered off (it wrote
# PP_MEET/poweroff-ROLE first) counts as passed, and is booted again before
# the next job on the bed (so that the last test leaves it off). A pair
# test that failed with the link between the guests dead (pair_link) runs
# once more on the pair booted again, its status then that run's, unless
# the test takes links down itself (twohost_faults.sh: a dead link may be
# its own failure, so it fails); each run's statuses are printed.
no_rerun=(twohost_faults.sh)
submit_pair() {
	local pdir=$1 attempt sts=() st n i ran
	mapfile -t roles < <(awk '{ print $1 }' "$pdir/hosts")
	for attempt in 1 2; do
		pair_once "$pdir"
		ran=
		for i in "${!roles[@]}"; do
			ran+="${ran:+, }host ${roles[i]} exited ${sts[i]}"
		done
		echo "$prog: run $attempt of $(basename "$script"): $ran"
		st=$(pair_status "${sts[@]}")
		((st == 1 && !hosts)) || break
		pair_link "$pdir" && break
		for n in "${no_rerun[@]}"; do
			if [[ $(basename "$script") == "$n" ]]; then
				echo "$prog: $n takes links down itself: no second run, it fails"
				pair_back=0
			fi
		done
		if ((attempt == 1 && pair_back)); then
			echo "$prog: running $script once more, on the pair booted again (the first run failed: $ran)"
			continue
		fi
		st=1
	done
	exit "$st"
}

# submit_all DIR OUT ENV: run "${cmd[@]}" as a job on every host of the
# pair or bed in DIR at once, with job_env ENV (@ROLE@ in it: A, B, ...);
# their outputs in OUT/A, OUT/B, ...; sets sts, their exit statuses.
submit_all() {
	local pdir=$1 out=$2 template=$3 role pids=() i
	for role in "${roles[@]}"; do
		(
			pair_role=$role
			job_env=${template//@ROLE@/$role}
			submit_job "$pdir/${role,,}"
		) >"$out/$role" 2>&1 &
		pids+=($!)
	done
	sts=()
	for i in "${!pids[@]}"; do
		sts[i]=0
		wait "${pids[i]}" || sts[i]=$?
	done
}

# host_checks MEET: the checks a script left for the host in MEET/host-checks
# (tests/e2e/lib.sh, pp_host_check), run here once every guest is done, in
# MEET, in turn; each line is a command. Python and rsvg-convert take seconds
# to start in an emulated guest and milliseconds here. Returns 1 if a check
# exited non-zero or printed a FAIL line.
host_checks() {
	local meet=$1 line st=0 out
	[[ -s $meet/host-checks ]] || return 0
	echo "=== checks on the host"
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		out=$(cd "$meet" && bash -c "$line" 2>&1) || st=1
		printf '%s\n' "$out"
		! grep -q '^FAIL' <<<"$out" || st=1
	done <"$meet/host-checks"
	return "$st"
}

# boot_off DIR: boot again the hosts of the pair or bed in DIR that a test
# powered off (DIR/off-ROLE, left by pair_once). Returns 1 if one did not
# come back.
boot_off() {
	local pdir=$1 role t0
	for role in "${roles[@]}"; do
		[[ -e $pdir/off-$role ]] || continue
		t0=$SECONDS
		boot_guest "$pdir/${role,,}" "$role"
		if ! wait_ready "$pdir/${role,,}"; then
			echo "$prog: host $role did not boot again after its power-off"
			return 1
		fi
		rm -f "$pdir/off-$role"
		echo "$prog: host $role booted again in $((SECONDS - t0)) s (an earlier test powered it off)"
	done
}

# pair_once DIR: one run of the script on every host (submit_pair); sets
# sts, the exit statuses of A's, B's, ... side.
pair_once() {
	local pdir=$1 id pair_meet out role t0 env role_addr name
	id=$(date +%s%N).$$
	pair_meet=$pdir/meet/$id # submit_job: a host may power itself off
	mkdir -p "$pair_meet"
	out=$(mktemp -d "${TMPDIR:-/tmp}/pp-pair-out.XXXXXX")
	# Both sides must agree on the exchange port.
	export PP_PORT=${PP_PORT:-$((20000 + RANDOM % 20000))}
	env="export PP_DEV=rxe0 PP_ROLE=@ROLE@ PP_MEET=/run/pp-meet/$id"
	while read -r role role_addr name addr1 _; do
		env+=" PP_ADDR_$role=$role_addr"
		[[ -z $name ]] || env+=" PP_NODE_$role=$name"
		[[ -z $addr1 ]] || env+=" PP_ADDR1_$role=$addr1"
	done <"$pdir/hosts"
	env+=" PP_HOST=$(awk '{ print $2; exit }' "$pdir/hosts")"
	boot_off "$pdir" || {
		sts=()
		for role in "${roles[@]}"; do sts+=(1); done
		rm -rf "$out" "$pair_meet"
		return
	}
	if ((hosts)); then
		env+=" PP_HOSTS='${roles[*]}' SLURM_CONF=/run/slurm/slurm.conf"
	fi
	submit_all "$pdir" "$out" "$env; unset PP_GID"
	for role in "${roles[@]}"; do
		echo "=== host $role"
		cat "$out/$role"
	done
	rm -rf "$out"
	host_checks "$pair_meet" || sts[0]=1
	for role in "${roles[@]}"; do
		[[ ! -e $pair_meet/poweroff-$role ]] || : >"$pdir/off-$role"
	done
	rm -rf "$pair_meet"
}

# pair_link DIR: after a failed pair test, does the emulated link between
# the two guests still carry anything (pair-link.sh on both: each asks for
# the other's MAC)? If not, say so (a failure of the bed, not of the tools),
# with what each side's eth0 says, and boot both guests again: pair_back is
# 1 if they came back. Returns 1 then.
pair_back=0
pair_link() {
	local pdir=$1 role out cmd script sts
	cmd=(bash "$here/pair-link.sh")
	script=$here/pair-link.sh
	out=$(mktemp -d "${TMPDIR:-/tmp}/pp-pair-link.XXXXXX")
	boot_off "$pdir" || true # a host the failed test powered off
	submit_all "$pdir" "$out" "export PP_ROLE=@ROLE@ PP_ADDR_A=$pair_addr_a PP_ADDR_B=$pair_addr_b"
	if ((sts[0] == 0 && sts[1] == 0)); then
		rm -rf "$out"
		return 0
	fi
	echo "$prog: the emulated link between the two guests is dead after this test (no ARP reply between them): a failure of the test bed, not of the tools; booting both guests again"
	sed 's/^/  /' "$out/A" "$out/B"
	rm -rf "$out"
	for role in A B; do
		stop_guest "$pdir/${role,,}" >/dev/null 2>&1 || true
		boot_guest "$pdir/${role,,}" "$role"
	done
	pair_back=0
	if wait_ready "$pdir/a" "$pdir/b"; then
		echo "$prog: both guests booted again, the link works"
		pair_back=1
	else
		echo "$prog: the pair did not come back"
	fi
	return 1
}

# --start: boot a shared guest (--pair: both hosts at once) and wait until
# it is ready.
if [[ $mode == start ]]; then
	start=$SECONDS
	if ((pair)); then
		dirs=()
		for role in "${roles[@]}"; do
			dirs+=("$dir/${role,,}")
			[[ ! -e $dir/${role,,}/qemu.pid ]] ||
				stop_guest "$dir/${role,,}" >/dev/null || true
		done
		rm -rf "$dir"
		mkdir -p "$dir/meet" || die "cannot create $dir"
		if ((hosts)); then
			if ! p1=$(free_udp_port) || ! p2=$(free_udp_port) || [[ $p1 == "$p2" ]]; then
				die "no two free UDP ports on the loopback"
			fi
			echo "$p1 $p2" >"$dir/mcast"
			what="bed of $hosts hosts with Slurm ready"
			link="multicast 239.255.77.1:$p1 and 239.255.77.2:$p2"
			# ROLE ADDR NAME ADDR1 MTU1: eth0's address, the host
			# name, eth1's address and MTU
			for i in "${!roles[@]}"; do
				mtu1=PP_RAIL1_MTU_${roles[i]}
				mtu1=${!mtu1:-${PP_RAIL1_MTU:-9000}}
				[[ $mtu1 =~ ^[1-9][0-9]{2,4}$ ]] ||
					die "PP_RAIL1_MTU(_${roles[i]})=$mtu1: give an MTU in bytes"
				printf '%s 10.99.5.%d node%02d 10.99.6.%d %d\n' "${roles[i]}" \
					$((i + 1)) $((i + 1)) $((i + 1)) "$mtu1"
			done >"$dir/hosts"
			slurm_files "$dir/hosts" "$dir/slurm"
		else
			if ! p1=$(free_udp_port) || ! p2=$(free_udp_port) || [[ $p1 == "$p2" ]]; then
				die "no free UDP port pair on the loopback"
			fi
			echo "$p1 $p2" >"$dir/ports"
			printf 'A %s\nB %s\n' "$pair_addr_a" "$pair_addr_b" >"$dir/hosts"
			what="pair ready"
			link="UDP ports $p1/$p2"
		fi
		for role in "${roles[@]}"; do
			boot_guest "$dir/${role,,}" "$role"
		done
		if wait_ready "${dirs[@]}"; then
			echo "$prog: shared $what in $((SECONDS - start)) s ($link, state in $dir)"
			exit 0
		fi
		rm -rf "$dir"
		exit 1
	fi
	# PP_GUEST_REUSE=1 (tests/run-all.sh: the sanitize stage booted it for
	# the same run): a guest that runs in DIR, ready, with this tree's stage
	# 2 and not asked to stop, is kept rather than booted again.
	if [[ ${PP_GUEST_REUSE:-} == 1 && -e $dir/share/ready && ! -e $dir/share/stop ]] &&
		read -r pid 2>/dev/null <"$dir/qemu.pid" && qemu_alive "$dir" "$pid" &&
		cmp -s "$here/guest-stage2.sh" "$dir/share/stage2.sh"; then
		echo "$prog: shared guest already up, kept (PP_GUEST_REUSE; QEMU pid $pid, state in $dir)"
		exit 0
	fi
	boot_guest "$dir"
	if wait_ready "$dir"; then
		echo "$prog: shared guest ready in $((SECONDS - start)) s (QEMU pid $qemu_pid, state in $dir)"
		exit 0
	fi
	rm -rf "$dir"
	exit 1
fi

# Two or N hosts: in the shared pair or bed, or in one booted for this
# script alone.
if ((pair)); then
	shared=PP_GUEST_PAIR kind=(--pair)
	((!hosts)) || shared=PP_GUEST_MESH kind=(--hosts "$hosts")
	if [[ -n ${!shared:-} && -e ${!shared}/a/qemu.pid ]]; then
		submit_pair "$(realpath -m -- "${!shared}")"
	fi
	p=$(mktemp -d "${TMPDIR:-/tmp}/pp-pair.XXXXXX")
	"$here/guest.sh" "${kind[@]}" --timeout "$timeout" --start "$p/pair" || {
		rm -rf "$p"
		exit 1
	}
	st=0
	env "$shared=$p/pair" "$here/guest.sh" "${kind[@]}" --timeout "$timeout" \
		"$script" "${script_args[@]}" || st=$?
	"$here/guest.sh" "${kind[@]}" --stop "$p/pair" || st=1
	rm -rf "$p"
	exit "$st"
fi

# --- One guest for one script ----------------------------------------------

run=$(mktemp -d "${TMPDIR:-/tmp}/pp-softroce.XXXXXX")
qemu_pid=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[[ -z $qemu_pid ]] || kill -KILL "$qemu_pid" 2>/dev/null || true
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

prepare_share "$run"
tmpkeep >"$run/tmpkeep"
# The script gets what is left after boot and set-up (about 10 s).
job=$(write_job "$run/jobs" $((timeout > 60 ? timeout - 30 : timeout)))
: >"$run/stop"

console=$run/console.log
start=$SECONDS
qemu_status=0
boot_qemu "$run" "$console"
# Enforce the bound from here: kill QEMU, whatever the guest is doing.
while kill -0 "$qemu_pid" 2>/dev/null && ((SECONDS - start < timeout)); do
	sleep 0.2
done
if kill -0 "$qemu_pid" 2>/dev/null; then
	kill -KILL "$qemu_pid"
	wait "$qemu_pid" 2>/dev/null || true
	qemu_pid=
	failure="the guest did not finish within --timeout $timeout s (QEMU killed)"
else
	wait "$qemu_pid" || qemu_status=$?
	qemu_pid=
	failure=
fi

[[ -n $failure || ! -s $job/status ]] || job_result "$job"
[[ -z $failure || ! -e $job/output ]] || cat "$job/output"
if [[ -z $failure ]]; then
	if ((qemu_status != 0)); then
		failure="QEMU failed with status $qemu_status"
	else
		failure=$(boot_failure "$console")
	fi
fi
echo "$prog: $failure"
console_tail "$console"
exit 1
