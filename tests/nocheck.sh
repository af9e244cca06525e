#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The build a user without Check gets: configure with pkg-config seeing
# libibverbs but not check, build the four tools, and install them.  Fails
# unless CMake says the unit tests are left out, the tools build, and
# `cmake --install` puts the tools, README.md, LICENSE and the docs in place.
#
# Usage: bash tests/nocheck.sh   (build dir: PP_NOCHECK_DIR, default build-nocheck)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${PP_NOCHECK_DIR:-$top/build-nocheck}
pcdir=$(pkg-config --variable=pcfiledir libibverbs)
fail() {
	echo "nocheck: $*" >&2
	exit 1
}

rm -rf "$build"
mkdir -p "$build/pc"
# libibverbs.pc and what it requires, without check.pc.
for pc in libibverbs libnl-3.0 libnl-route-3.0; do
	[[ -e $pcdir/$pc.pc ]] && ln -s "$pcdir/$pc.pc" "$build/pc/"
done
PKG_CONFIG_LIBDIR=$build/pc PKG_CONFIG_PATH= \
	cmake -S "$top" -B "$build" -DPP_WERROR="${PP_WERROR:-ON}" >"$build/configure.log" 2>&1 ||
	fail "configure failed without Check: $(tail -n 3 "$build/configure.log")"
grep -q "Check not found: the unit tests are not built" "$build/configure.log" ||
	fail "configure did not say that the unit tests are left out"
cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1 ||
	fail "build failed without Check: $(tail -n 3 "$build/build.log")"
DESTDIR=$build/root cmake --install "$build" --prefix /usr >"$build/install.log" 2>&1 ||
	fail "install failed: $(tail -n 3 "$build/install.log")"
for f in bin/rc_pingpong bin/ud_pingpong bin/srq_pingpong bin/xrc_pingpong \
	share/doc/pingpong/README.md share/doc/pingpong/LICENSE \
	share/doc/pingpong/docs/measurement.md; do
	[[ -e $build/root/usr/$f ]] || fail "cmake --install did not install $f"
done
echo "nocheck: the four tools build and install without Check"
