#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The whole test suite, from a fresh machine: install what is missing, check
# the formatting, build with warnings as errors, and run every CTest test
# (unit, then e2e in a Soft-RoCE guest when the host has no RDMA device).
#
# Usage: bash tests/run-all.sh [CTEST-ARGS...]   e.g. -L unit, -R rc.poll
# With no arguments it also builds the tools once as a user without Check
# would (tests/nocheck.sh), and runs valgrind on the unit suites, the fuzzers
# (PP_FUZZ_SECONDS each, default 10) and the sanitizer build (PP_QUICK=1
# skips those three).
# Environment: PP_BUILD_DIR (default: build-all), PP_WERROR (default: ON).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${PP_BUILD_DIR:-$top/build-all}
cd "$top"

# stage NAME CMD...: run CMD, then say how long it took (the CI's budget).
stage() {
	local t0=$SECONDS name=$1
	shift
	"$@"
	echo "run-all: $name took $((SECONDS - t0)) s"
}

stage install-deps bash tests/install-deps.sh
# The formatting check always runs: install-deps.sh installs clang-format.
if ! command -v clang-format >/dev/null; then
	echo "run-all: clang-format not found: install it (tests/install-deps.sh)" >&2
	exit 1
fi
bad=$(git ls-files '*.c' '*.h' | while read -r f; do
	clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"
done)
if [[ -n $bad ]]; then
	echo "run-all: not clang-formatted (run clang-format -i): $bad" >&2
	exit 1
fi
t0=$SECONDS
cmake -S . -B "$build" -DPP_WERROR="${PP_WERROR:-ON}" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
echo "run-all: build took $((SECONDS - t0)) s"

# With no ctest arguments (the full run, as in CI): the robustness checks
# first, so that ctest's summary is the last thing printed.  Each prints one
# summary line and fails the run on any finding (docs/dev/robustness.md).
if (($# == 0)); then
	stage nocheck bash tests/nocheck.sh
fi
if (($# == 0)) && [[ ${PP_QUICK:-0} != 1 ]]; then
	PP_BUILD_DIR=$build stage valgrind bash tests/valgrind.sh
	stage fuzz bash tests/fuzz/run.sh "${PP_FUZZ_SECONDS:-10}"
	# The sanitized e2e tests boot the one-guest bed of the ctest run
	# below, which keeps it (PP_GUEST_REUSE): one boot for both. Its e2e
	# tests power it off; a run that stops before them, here.
	guest=$(realpath -m -- "$build")/softroce-guest
	trap '[[ ! -e $guest/qemu.pid ]] || "$top/tests/softroce/guest.sh" --stop "$guest" >/dev/null 2>&1 || true' EXIT
	PP_SANITIZE_GUEST=$guest stage sanitize bash tests/sanitize.sh
	export PP_GUEST_REUSE=1
fi
cd "$build"
ctest -j2 --output-on-failure "$@"
