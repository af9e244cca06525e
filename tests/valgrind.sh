#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run every unit test program under valgrind's memcheck; fail on any memory
# error or any definitely or indirectly lost block.  CK_FORK=no runs the Check
# tests in the one process valgrind watches, so its own exit status (99) says
# "memory error or leak".  (In fork mode valgrind follows each child too, but
# a leak only shows as "early exit with return value 99" of one test.)  Each
# program is bounded by timeout(1): Check's timeouts need fork mode.
#
# Usage: bash tests/valgrind.sh
# Environment: PP_BUILD_DIR (default: build-all at the top, as
#   tests/run-all.sh: a build there is reused, not redone).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${PP_BUILD_DIR:-$top/build-all}

bash "$top/tests/install-deps.sh" # valgrind among the rest
mkdir -p "$build"
log=$build/valgrind-build.log
if ! { cmake -S "$top" -B "$build" -DPP_WERROR="${PP_WERROR:-ON}" &&
	cmake --build "$build" -j"$(nproc)"; } >"$log" 2>&1; then
	echo "valgrind: build failed, see $log:" >&2
	grep -E 'error|Error' "$log" | head -n 20 >&2
	exit 1
fi

# The unit test programs, as CTest knows them.
mapfile -t progs < <(cd "$build" && ctest -N -V -L unit |
	sed -n 's/^[0-9]*: Test command: \([^ ]*\).*/\1/p')
if ((${#progs[@]} == 0)); then
	echo "valgrind: no unit tests found in $build" >&2
	exit 1
fi

# Tests that fail under valgrind for want of emulation, not for a bug:
# PROGRAM:TEST, the test name as Check prints it on failure.
#   test_stats:test_huge_values  valgrind computes x87 long double in 64
#       bits (its manual, "Limitations"); pp_stats needs the 80-bit mantissa.
#   test_hs:sock_accept_emfile  valgrind keeps a descriptor limit of its own
#       and refuses setrlimit(RLIMIT_NOFILE) with a new hard limit (EPERM),
#       so the test stops at its first step, before it changes anything.
known=(test_stats:test_huge_values test_hs:sock_accept_emfile)

export CK_FORK=no
# The cases tagged "scale" (test_mesh_report's meshes of 1,024 ranks, every
# mesh schedule above 256 ranks) take the small cases' code paths, which
# run here; under valgrind they alone take over ten minutes. test_lhist's
# sets and long loop likewise run here with fewer samples (its knobs).
export CK_EXCLUDE_TAGS=scale PP_LHIST_TEST_N=20000 PP_LHIST_TEST_BIG=200000
failed=0
noted=()
# memcheck PROG: run PROG under valgrind; its status goes to a file beside
# its log. The programs run as many at a time as there are CPUs.
memcheck() {
	local out=$build/valgrind-${1##*/}.log rc=0
	timeout 900 valgrind -q --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
		"$1" >"$out" 2>&1 || rc=$?
	echo "$rc" >"$out.status"
}
running=0
for prog in "${progs[@]}"; do
	[[ ${prog##*/} == test_* ]] || continue # a script (unit.layers), not a suite
	rm -f "$build/valgrind-${prog##*/}.log.status"
	if ((running >= $(nproc))); then
		wait -n
		running=$((running - 1))
	fi
	memcheck "$prog" &
	running=$((running + 1))
done
wait
for prog in "${progs[@]}"; do
	name=${prog##*/}
	[[ $name == test_* ]] || continue
	out=$build/valgrind-$name.log
	rc=1
	read -r rc <"$out.status" || true
	((rc != 0)) || continue
	# Check's failure lines: FILE:LINE:F|E:CASE:TEST:ITERATION: message
	mapfile -t bad < <(sed -n 's/^[^:]*:[0-9]*:[EF]:[^:]*:\([^:]*\):.*/\1/p' \
		"$out" | sort -u)
	unknown=()
	for t in "${bad[@]}"; do
		[[ " ${known[*]} " == *" $name:$t "* ]] || unknown+=("$t")
	done
	if ((rc == 1 && ${#bad[@]} && ${#unknown[@]} == 0)); then
		noted+=("${bad[@]/#/$name:}")
		continue
	fi
	if ((rc == 99)); then
		echo "valgrind: $name: memory errors or leaks, see $out:" >&2
	else
		echo "valgrind: $name failed (status $rc), see $out:" >&2
	fi
	grep -E '^==[0-9]+== [A-Z]|^[^=].*:[0-9]+:[EF]:' "$out" | head -n 20 >&2
	failed=1
done
((failed == 0)) || exit 1
echo "valgrind: ${#progs[@]} unit test programs, no memory errors or leaks${noted[*]:+ (failing as expected under valgrind: ${noted[*]})}"
