#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run test scripts where an RDMA device exists.
#
# Usage: tests/softroce/guest.sh [--timeout SECONDS] SCRIPT [ARGS...]
#        tests/softroce/guest.sh [--timeout SECONDS] --start DIR
#        tests/softroce/guest.sh --stop DIR
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
#
# SCRIPT's output is printed here and its exit status is ours. When the test
# bed itself fails, one "softroce: <what failed>" line is printed and the
# status is 1, never 77: a broken bed must fail tests, not skip them. See
# docs/testing.md.
set -euo pipefail

prog=softroce
timeout=300
mode=run   # run, start or stop
dir=       # state directory of a shared guest (--start, --stop)
here=$(dirname "$(realpath -- "${BASH_SOURCE[0]}")")
cache=${PP_SOFTROCE_CACHE:-/var/cache/pp-softroce}
# Top-level modules; their dependencies are resolved with modprobe.
# crc32_generic is needed by "rdma link add" and is not a declared dependency.
modules=(virtio_pci 9pnet_virtio 9p crc32_generic rdma_rxe ib_uverbs veth)

die() {
	echo "$prog: $*"
	exit 1
}

usage() {
	echo "usage: $0 [--timeout SECONDS] SCRIPT [ARGS...]" >&2
	echo "       $0 [--timeout SECONDS] --start DIR | --stop DIR" >&2
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
if [[ $mode == run ]]; then
	(($# >= 1)) || usage
	script=$(realpath -- "$1")
	shift
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

if [[ ${PP_FORCE_VM:-0} != 1 ]] && dev=$(host_device); then
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
		echo 'export PP_DEV=rxe0 PP_GID=1 PP_HOST=127.0.0.1'
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
	mv -T "$1" "$old" 2>/dev/null && rm -rf "$old"
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

# stop_guest: power off the shared guest of $dir, kill QEMU if it does not
# stop within 30 s, remove the state. Status 1 if it was already gone.
stop_guest() {
	local pid='' i
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
	while [[ ! -e $job/status ]]; do
		qemu_alive "$dir" "$pid" || gone "exited while running $script"
		((SECONDS - start < timeout)) || break
		sleep 0.1
	done
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
	stop_guest
	exit
fi
if [[ $mode == run && -n ${PP_GUEST_DIR:-} && -e $PP_GUEST_DIR/qemu.pid ]]; then
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
mount -t 9p -o trans=virtio,version=9p2000.L,ro hostroot /mnt ||
	fail "cannot mount the host root over 9p"
mount -t proc proc /mnt/proc
mount -t sysfs sys /mnt/sys
mount -t devtmpfs dev /mnt/dev
mkdir -p /hosttmp
mount --bind /mnt/tmp /hosttmp
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

# boot_qemu SHARE CONSOLE [PREFIX...]: start QEMU in the background, PID in
# $qemu_pid.
boot_qemu() {
	local share=$1 console=$2
	shift 2
	"$@" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m 1024 -smp 2 \
		-nographic -no-reboot -nic none \
		-kernel "$entry/vmlinuz" -initrd "$entry/initrd.img" \
		-append "console=ttyS0 quiet panic=-1" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
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

# --start: boot a shared guest in the background, in its own session (CTest
# must not wait for it nor kill it with the setup test), and wait until it
# is ready. A guest left by an interrupted run is stopped first.
if [[ $mode == start ]]; then
	[[ ! -e $dir/qemu.pid ]] || stop_guest >/dev/null || true
	rm -rf "$dir"
	mkdir -p "$dir" || die "cannot create $dir"
	prepare_share "$dir/share"
	# A forgotten guest powers itself off.
	echo "${PP_GUEST_IDLE:-900}" >"$dir/share/idle"
	boot_qemu "$dir/share" "$dir/console.log" setsid
	echo "$qemu_pid" >"$dir/qemu.pid"
	start=$SECONDS
	failure=
	until [[ -e $dir/share/ready ]]; do
		if ! kill -0 "$qemu_pid" 2>/dev/null; then
			failure=$(boot_failure "$dir/console.log")
			break
		elif ((SECONDS - start >= timeout)); then
			failure="the guest was not ready within --timeout $timeout s (QEMU killed)"
			break
		fi
		sleep 0.2
	done
	if [[ -z $failure ]]; then
		echo "$prog: shared guest ready in $((SECONDS - start)) s (QEMU pid $qemu_pid, state in $dir)"
		exit 0
	fi
	kill -KILL "$qemu_pid" 2>/dev/null || true
	echo "$prog: $failure"
	console_tail "$dir/console.log"
	rm -rf "$dir"
	exit 1
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
