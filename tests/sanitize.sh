#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build with AddressSanitizer (and LeakSanitizer) and UndefinedBehaviorSanitizer
# in build-asan, with warnings as errors, then run every unit test and a few
# e2e tests with the sanitized binaries.  Any sanitizer report fails a test:
# ASan and LSan exit non-zero, UBSan aborts (-fno-sanitize-recover=all).
#
# The e2e tests run in the Soft-RoCE guest (tests/softroce/guest.sh), which
# passes on only PP_* variables: there the sanitizers run with their defaults,
# which include detect_leaks=1. With PP_SANITIZE_GUEST=DIR (tests/run-all.sh)
# they run in a shared guest with its state in DIR, which is left running
# for the next user (the run's ctest, with PP_GUEST_REUSE=1).
#
# Usage: bash tests/sanitize.sh
# Environment: PP_ASAN_BUILD_DIR (default: build-asan at the top);
#   PP_SANITIZE_E2E: CTest regex of the e2e tests to run ("" for none).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${PP_ASAN_BUILD_DIR:-$top/build-asan}
e2e=${PP_SANITIZE_E2E-'^e2e\.(rc\.poll\.4096|uc\.event\.4096)$'}

bash "$top/tests/install-deps.sh"
mkdir -p "$build"
log=$build/sanitize.log
guest=${PP_SANITIZE_GUEST:-}
if ! { cmake -S "$top" -B "$build" -DPP_ASAN=ON -DPP_UBSAN=ON \
	-DPP_WERROR=ON -DPP_E2E_GUEST_DIR="${guest:-$build/softroce-guest}" &&
	cmake --build "$build" -j"$(nproc)"; } >"$log" 2>&1; then
	echo "sanitize: build failed, see $log:" >&2
	grep -E 'error|Error' "$log" | head -n 20 >&2
	exit 1
fi

export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# run_ctest WHAT CTEST-ARGS...: quiet unless a test fails; counts in $summary.
summary=()
run_ctest() {
	local what=$1 out
	shift
	out=$build/sanitize-$what.log
	if ! (cd "$build" && ctest --output-on-failure "$@") >"$out" 2>&1; then
		grep -E '^ *[0-9]+/[0-9]+ Test' "$out" | grep -v ' Passed ' >&2 || true
		echo "sanitize: $what tests failed, see $out" >&2
		exit 1
	fi
	summary+=("$what: $(grep -E 'tests passed' "$out" | sed 's/, 0 tests failed//')")
	if grep -q 'Not Run\|Skipped' "$out"; then
		summary+=("($(grep -c '\*\*\*Skipped\|Not Run' "$out") skipped)")
	fi
}

# The mesh simulation at 1,024 ranks is a minute each without sanitizers:
# the sanitized rank 0 runs only its small cases (sim.stray, sim.emfile).
# The unit suites' "scale" cases (1,024 ranks: the same code as their core
# cases, with more of it) take 40 s under ASan, and run in the plain build;
# valgrind.sh leaves them out as well.
CK_EXCLUDE_TAGS=scale run_ctest unit -j2 -L unit -LE script \
	-E '^sim[.](all_join|slow_rank|absent_dead|foreign)$'
keep=() # a shared guest: booted, and left running (no fixture cleanup)
[[ -z $guest ]] || keep=(-FC softroce_guest)
[[ -z $e2e ]] || run_ctest e2e -R "$e2e" "${keep[@]}"
echo "sanitize: ASan+LSan+UBSan ${summary[*]}"
