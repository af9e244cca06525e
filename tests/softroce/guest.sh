#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run one test script where an RDMA device exists.
#
# Usage: tests/softroce/guest.sh [--timeout SECONDS] SCRIPT [ARGS...]
#
# If the host has an RDMA device with an ACTIVE port (and PP_FORCE_VM is not
# 1), SCRIPT runs right here. Otherwise Debian's stock kernel boots in QEMU
# (software emulation), with the host's root file system as the guest's,
# read-only over 9p, a Soft-RoCE device rxe0 on a veth pair, and SCRIPT runs
# in it with PP_DEV=rxe0 PP_GID=1 PP_HOST=127.0.0.1. SCRIPT's output is
# printed here and its exit status is ours. When the test bed itself fails,
# one "softroce: <what failed>" line is printed and the status is 1, never
# 77: a broken bed must fail tests, not skip them. See docs/testing.md.
set -euo pipefail

prog=softroce
timeout=300
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
	--)
		shift
		break
		;;
	-*) usage ;;
	*) break ;;
	esac
done
(($# >= 1)) || usage
[[ $timeout =~ ^[1-9][0-9]*$ ]] || usage

script=$(realpath -- "$1")
shift
[[ -f $script ]] || die "no such test script: $script"
if [[ -x $script ]]; then
	cmd=("$script" "$@")
else
	cmd=(bash "$script" "$@")
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
	export PP_DEV=${PP_DEV:-$dev} PP_HOST=${PP_HOST:-127.0.0.1}
	status=0
	timeout -k 10 "$timeout" "${cmd[@]}" || status=$?
	((status != 124)) || echo "$prog: $script timed out after $timeout s"
	exit "$status"
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

# Stage 2, run by the host's bash in the chroot: Soft-RoCE set-up, then the
# test script, as described by the env file the host wrote.
read -r -d '' guest_stage2 <<'EOF' || true
set -u
share=/run/pp-softroce
fail() {
	echo "PP-GUEST-FAIL=$*"
	exit 1
}
ip link set lo up || fail "cannot bring up lo"
ip link add va type veth peer name vb || fail "cannot create veth pair va/vb"
ip addr add 10.99.0.1/24 dev va && ip addr add 10.99.0.2/24 dev vb &&
	ip link set va up && ip link set vb up || fail "cannot configure veth va/vb"
out=$(timeout 30 rdma link add rxe0 type rxe netdev va 2>&1) ||
	fail "rdma link add rxe0 type rxe netdev va failed: $out"
port=/sys/class/infiniband/rxe0/ports/1
for _ in $(seq 100); do
	grep -q ACTIVE "$port/state" 2>/dev/null &&
		grep -q ffff "$port/gids/1" 2>/dev/null && break
	sleep 0.1
done
grep -q ACTIVE "$port/state" || fail "rxe0 port 1 is not ACTIVE: $(cat "$port/state")"
grep -q ffff "$port/gids/1" || fail "rxe0 has no IPv4 GID at index 1"
. "$share/env"
cd "$PP_CWD" || fail "cannot cd to $PP_CWD"
timeout -k 5 "$pp_timeout" "${PP_CMD[@]}" >"$share/output" 2>&1
status=$?
echo "$status" >"$share/status"
echo "PP-GUEST-STATUS=$status"
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

# --- One run ---------------------------------------------------------------

run=$(mktemp -d "${TMPDIR:-/tmp}/pp-softroce.XXXXXX")
qemu_pid=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[[ -z $qemu_pid ]] || kill -KILL "$qemu_pid" 2>/dev/null || true
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Environment of the script: PP_* from the caller, then the device.
{
	while IFS= read -r var; do
		case $var in
		PP_DEV | PP_GID | PP_HOST | PP_FORCE_VM | PP_SOFTROCE_CACHE) ;;
		*) printf 'export %s=%q\n' "$var" "${!var}" ;;
		esac
	done < <(compgen -e | grep '^PP_' || true)
	echo 'export PP_DEV=rxe0 PP_GID=1 PP_HOST=127.0.0.1'
	echo 'export HOME=/tmp TMPDIR=/tmp LANG=C.UTF-8'
	# The script gets what is left after boot and set-up (about 10 s).
	echo "pp_timeout=$((timeout > 60 ? timeout - 30 : timeout))"
	printf 'PP_CWD=%q\n' "$PWD"
	printf 'PP_CMD=(%s)\n' "$(printf '%q ' "${cmd[@]}")"
} >"$run/env"
printf '%s\n' "$guest_stage2" >"$run/stage2.sh"
# The guest's /tmp is a tmpfs: re-expose the host /tmp entries we need.
for path in "$PWD" "$script" "${PP_BIN:-}"; do
	[[ $path == /tmp/?* ]] || continue
	path=${path#/tmp/}
	echo "${path%%/*}"
done | sort -u >"$run/tmpkeep"

console=$run/console.log
start=$SECONDS
qemu_status=0
qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m 1024 -smp 2 \
	-nographic -no-reboot -nic none \
	-kernel "$entry/vmlinuz" -initrd "$entry/initrd.img" \
	-append "console=ttyS0 quiet panic=-1" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$run,mount_tag=ppshare,security_model=none" \
	</dev/null >"$console" 2>&1 &
qemu_pid=$!
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

[[ ! -e $run/output ]] || cat "$run/output"
if [[ -z $failure && -s $run/status ]]; then
	exit "$(cat "$run/status")"
fi
if [[ -z $failure ]]; then
	failure=$(sed -n 's/^PP-GUEST-FAIL=//p' "$console" | tr -d '\r' | head -n 1)
fi
if [[ -z $failure ]]; then
	if ((qemu_status != 0)); then
		failure="QEMU failed with status $qemu_status"
	else
		failure="the guest did not boot or did not report a status"
	fi
fi
echo "$prog: $failure"
echo "--- last lines of the guest console:"
tail -n 20 "$console" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g; s/\r//g' | awk 1
exit 1
