#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Install every Debian package the project needs to build, to run its tests
# (including the Soft-RoCE test bed in tests/softroce/) and to compare with
# rdma-core's reference tools. Idempotent and quiet: when everything is
# installed it does nothing and prints nothing.
set -euo pipefail

packages=(
	# build
	cmake gcc make pkg-config libibverbs-dev ibverbs-providers check
	# Soft-RoCE test bed (the guest kernel is fetched by tests/softroce/guest.sh)
	qemu-system-x86 busybox-static cpio kmod iproute2
	# e2e.*.held_check holds a tool in its data check; memcheck of the unit
	# tests (tests/valgrind.sh), callgrind (tests/bench/icount.sh,
	# unit.cgsplit); e2e.measure.clock counts the clock's system calls
	gdb valgrind strace
	# the N-host bed (guest.sh --hosts N): Slurm and munge run in the guests;
	# e2e.mesh.* render --mesh-svg pictures with rsvg-convert
	slurmd slurmctld slurm-client munge librsvg2-bin
	# reference tools and interop peers
	ibverbs-utils perftest
	# the e2e scripts' JSON and interval checks, unit.test_json's second
	# validator; the formatting check of tests/run-all.sh; the mesh
	# simulation (sim.*); GNU time for tests/bench/mesh-scale.sh
	python3 clang-format time
	# sim.prom: promtool checks the --mesh-prom file, and node_exporter's
	# textfile collector serves it (the test runs the binary itself)
	prometheus prometheus-node-exporter
	# man pages (docs/CMakeLists.txt builds them when pandoc is present)
	pandoc
	# packages (cmake/Packaging.cmake, tests/package/package.sh): Depends
	# from dpkg-shlibdeps, the .rpm built by rpmbuild and installed by rpm;
	# man -l renders an installed page
	dpkg-dev rpm man-db
)

missing=()
for pkg in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[[ $status == "install ok installed" ]] || missing+=("$pkg")
done
((${#missing[@]} == 0)) && exit 0

sudo=()
((EUID == 0)) || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
# Packages with a service (node_exporter, prometheus, slurmd, munge) must not
# start one that outlives the install: policy-rc.d says no to every start
# (invoke-rc.d and deb-systemd-invoke ask it), unless the machine has one.
policy=/usr/sbin/policy-rc.d
own_policy=
if [[ ! -e $policy ]]; then
	printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
	"${sudo[@]}" chmod 755 "$policy"
	own_policy=1
fi
trap 'rm -f "$log"; [[ -z $own_policy ]] || "${sudo[@]}" rm -f "$policy"' EXIT
if ! "${sudo[@]}" apt-get update -qq >"$log" 2>&1 ||
	! "${sudo[@]}" apt-get install -qq -y --no-install-recommends \
		"${missing[@]}" >"$log" 2>&1; then
	echo "install-deps: apt-get failed to install ${missing[*]}: $(tail -n 1 "$log")" >&2
	exit 1
fi
