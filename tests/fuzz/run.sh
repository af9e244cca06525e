#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build the libFuzzer harnesses of tests/fuzz with clang (in build-fuzz) and
# run each for SECONDS on a scratch copy of its seed corpus (the committed
# corpus never grows).  Inputs kept in tests/fuzz/crashes/HARNESS/ are run
# first, as regression tests.  One line per harness; exits 1 if any harness
# crashed, leaked, timed out or ran out of memory, and names the input that
# did it (kept in the build directory).
#
# Usage: bash tests/fuzz/run.sh [SECONDS-PER-HARNESS]   (default 20)
# Environment: PP_FUZZ_BUILD_DIR (default: build-fuzz at the top).
set -euo pipefail

secs=${1:-20}
if [[ ! $secs =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: $0 [SECONDS-PER-HARNESS]" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${PP_FUZZ_BUILD_DIR:-$top/build-fuzz}

# harness:max_len; an ADDRS message of PP_MAX_QPS addresses is 36880 bytes,
# the 256 records of the stock srq tool 13312; a mesh record's fields are
# under 2 KB (a RESULT's document can be longer: 8 KB lets one in).
harnesses=(fuzz_wire:37000 fuzz_opts:512 fuzz_parse_u64:64 fuzz_rdmacore:13400
	fuzz_mesh_wire:8192)

# clang, its libFuzzer and sanitizer runtimes, llvm-symbolizer for traces.
packages=(clang libclang-rt-14-dev llvm cmake make pkg-config libibverbs-dev)
missing=()
for pkg in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[[ $status == "install ok installed" ]] || missing+=("$pkg")
done
if ((${#missing[@]})); then
	sudo=()
	((EUID == 0)) || sudo=(sudo)
	log=$(mktemp)
	if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get update -qq >"$log" 2>&1 ||
		! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -qq -y --no-install-recommends \
			"${missing[@]}" >"$log" 2>&1; then
		echo "fuzz: apt-get failed to install ${missing[*]}: $(tail -n 1 "$log")" >&2
		rm -f "$log"
		exit 1
	fi
	rm -f "$log"
fi

log=$build/fuzz-build.log
mkdir -p "$build"
if ! { cmake -S "$top" -B "$build" -DCMAKE_C_COMPILER=clang -DPP_FUZZ=ON \
	-DPP_WERROR=ON -DBUILD_TESTING=OFF &&
	cmake --build "$build" --target fuzz -j"$(nproc)"; } >"$log" 2>&1; then
	echo "fuzz: build failed, see $log:" >&2
	grep -E 'error|Error' "$log" | head -n 20 >&2
	exit 1
fi

# fuzz_one NAME MAX_LEN: the kept inputs, then NAME for $secs seconds; its
# one result line goes to run/NAME/result, and its status to run/NAME/status.
fuzz_one() {
	local name=$1 max_len=$2 bin work rc=0 execs input what regress opts
	bin=$build/tests/fuzz/$name
	work=$build/tests/fuzz/run/$name
	opts=(-max_len="$max_len" -timeout=10 -rss_limit_mb=2048
		-artifact_prefix="$work/artifacts/" -print_final_stats=1)

	# Known bad inputs first: each must now pass.
	regress=("$here/crashes/$name"/*)
	if [[ -e ${regress[0]} ]] &&
		! "$bin" "${opts[@]}" "${regress[@]}" >"$work/regress.log" 2>&1; then
		echo "$name: FAILED on a kept input of tests/fuzz/crashes/$name (log: $work/regress.log)" >"$work/result"
		echo 1 >"$work/status"
		return
	fi

	timeout $((secs + 120)) "$bin" "${opts[@]}" -max_total_time="$secs" \
		"$work/corpus" >"$work/fuzz.log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
		"$work/fuzz.log" | tail -n 1)
	if ((rc == 0)); then
		echo "$name: ${execs:-?} executions in ${secs} s, ok" >"$work/result"
		echo 0 >"$work/status"
		return
	fi
	input=$(find "$work/artifacts" -type f | head -n 1)
	what=${input##*/}
	what=${what%%-*}
	echo "$name: FAILED (${what:-exit $rc}) after ${execs:-?} executions; input: ${input:-none}; log: $work/fuzz.log" >"$work/result"
	echo 1 >"$work/status"
}

# The harnesses run as many at a time as there are CPUs (each one process).
running=0
for entry in "${harnesses[@]}"; do
	name=${entry%%:*}
	work=$build/tests/fuzz/run/$name
	rm -rf "$work"
	mkdir -p "$work/corpus" "$work/artifacts"
	cp "$here/corpus/$name"/* "$work/corpus/"
	if ((running >= $(nproc))); then
		wait -n
		running=$((running - 1))
	fi
	fuzz_one "$name" "${entry#*:}" &
	running=$((running + 1))
done
wait
failed=0
for entry in "${harnesses[@]}"; do
	work=$build/tests/fuzz/run/${entry%%:*}
	cat "$work/result" 2>/dev/null || echo "${entry%%:*}: FAILED (no result)"
	st=1
	read -r st <"$work/status" 2>/dev/null || true
	((st == 0)) || failed=1
done
exit "$failed"
