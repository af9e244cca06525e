#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# clock.sh: the clock of the loops (docs/measurement.md, "The clock"):
#   - under CLOCK_MONOTONIC (PP_CLOCK=monotonic) the loop reads the clock
#     once per round trip: the clock_gettime() calls that strace counts,
#     client and server of rc_pingpong, at -n 500 and -n 2000, differ by
#     at most one per extra round trip, give or take 5 (the set-up's waits
#     read it a number of times that depends on timing). On the bed the
#     clocksource is hpet, so clock_gettime() is a system call strace
#     sees; under a clocksource read in the vDSO this part skips;
#   - /proc/cpuinfo and the clocksource files bind-mounted to look like a
#     KVM guest with an invariant TSC: the tools take the cycle counter and
#     say so, text and JSON; with tsc taken off available_clocksource (the
#     kernel's mark of an unstable TSC) they fall back and say why.
# The mounts are made in a mount namespace of this script's own (unshare).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
if [[ -z ${PP_CLOCK_UNSHARED:-} ]] && [[ $EUID -eq 0 ]] &&
	command -v unshare >/dev/null; then
	PP_CLOCK_UNSHARED=1 exec unshare --mount --propagation private \
		bash "$0" "$@"
fi
rc=$(pp_bin rc_pingpong)
port=$PP_PORT
src=/sys/devices/system/clocksource/clocksource0

# pair NAME "SERVER ARGS" CLIENT ARGS...: one run on a fresh TCP port; logs
# in $PP_LOGS/NAME.server and NAME.client, statuses in $sst and $cst.
# $strace_server, $strace_client: a command to put before that side's tool.
strace_server=() strace_client=()
pair() {
	local name=$1 sargs=$2
	shift 2
	port=$((port + 1))
	# shellcheck disable=SC2086 # $sargs is a list of words
	pp_server "$name server" "$PP_LOGS/$name.server" "${strace_server[@]}" \
		"$rc" -d "$PP_DEV" -p "$port" $sargs
	local spid=$pp_pid
	if ! pp_wait_port "$port" "$spid"; then
		pp_fail "$name: the server is not listening"
		pp_indent '    server: ' "$PP_LOGS/$name.server"
	fi
	cst=0
	pp_client "$name client" "$PP_LOGS/$name.client" "${strace_client[@]}" \
		"$rc" -d "$PP_DEV" -p "$port" "${pp_gid_opt[@]}" "$@" \
		"$PP_HOST" || cst=$?
	sst=0
	pp_wait "$spid" || sst=$?
}

# pycheck WHAT FILE PYTHON: the JSON document in FILE parses and the Python
# statements (over d) hold.
pycheck() {
	local what=$1 file=$2
	if python3 - "$file" <<EOF; then
import json, sys
docs = [l for l in open(sys.argv[1]) if l.startswith("{")]
assert len(docs) == 1, "%d documents" % len(docs)
d = json.loads(docs[0])
$3
EOF
		echo "ok: $what"
	else
		pp_fail "$what"
	fi
}

# --- one clock read per round trip under CLOCK_MONOTONIC
# reads SIDE N: $count, the clock_gettime() calls of SIDE (server or
# client) in a run of N round trips, that side under strace
reads() {
	local side=$1 n=$2 out=$PP_LOGS/strace.$1.$2
	local tracer=(strace -f -qq -e trace=clock_gettime -o "$out")
	strace_server=() strace_client=()
	if [[ $side == server ]]; then
		strace_server=("${tracer[@]}")
	else
		strace_client=("${tracer[@]}")
	fi
	PP_CLOCK=monotonic pair "reads.$side.$n" "" -n "$n"
	strace_server=() strace_client=()
	pp_expect_status "$cst" 0 "reads: $side traced, -n $n: client"
	pp_expect_status "$sst" 0 "reads: $side traced, -n $n: server"
	count=$(grep -c '^[0-9]* *clock_gettime(' "$out" || true)
}

now=$(cat "$src/current_clocksource")
if ! command -v strace >/dev/null; then
	echo "skip: reads: no strace (tests/install-deps.sh installs it)"
elif [[ $now != hpet && $now != acpi_pm ]]; then
	echo "skip: reads: clocksource $now, clock_gettime() is no system call here"
else
	for side in client server; do
		reads "$side" 500
		a=$count
		reads "$side" 2000
		b=$count
		per=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", (b - a) / 1500 }')
		# 1500 more round trips, one read each; the set-up's waits read
		# it a number of times that depends on timing (20 +- 2 here)
		if ((a > 0 && b - a <= 1500 + 5)); then
			echo "ok: reads: $side: $a calls at -n 500, $b at -n 2000: $per per extra round trip"
		else
			pp_fail "reads: $side: $a calls at -n 500, $b at -n 2000: $per per extra round trip, expected at most 1.0 (1500 + 5)"
		fi
	done
	# the time inside ibv_post_send is not timed under CLOCK_MONOTONIC
	if grep -q '^post_send usec' "$PP_LOGS/reads.client.2000.client"; then
		pp_fail "reads: a post_send line under CLOCK_MONOTONIC"
	else
		echo "ok: reads: no post_send line under CLOCK_MONOTONIC"
	fi
fi

# --- a KVM guest with an invariant TSC, as the files say
if [[ -z ${PP_CLOCK_UNSHARED:-} ]]; then
	echo "skip: kvm: no mount namespace of our own (root and unshare needed)"
	pp_finish
fi
fake=$PP_LOGS/fake
mkdir -p "$fake"
# the CPU's flags with an invariant TSC
sed -E '/^flags/{s/ constant_tsc//g; s/ nonstop_tsc//g; s/$/ constant_tsc nonstop_tsc/}' \
	/proc/cpuinfo >"$fake/cpuinfo"
echo kvm-clock >"$fake/current"
echo "kvm-clock tsc hpet acpi_pm " >"$fake/available"
mount --bind "$fake/cpuinfo" /proc/cpuinfo
mount --bind "$fake/current" "$src/current_clocksource"
mount --bind "$fake/available" "$src/available_clocksource"

unset PP_CLOCK
pair kvm "" -s 1 -n 20 --json
pp_expect_status "$cst" 0 "kvm: client"
pp_expect_status "$sst" 0 "kvm: server"
pp_expect_grep "^  clock: the cycle counter \([0-9.]+ GHz\): the CPU's invariant TSC \(constant_tsc, nonstop_tsc\), under the kernel's clocksource kvm-clock: tsc is still an available clocksource, not marked unstable$" \
	"$PP_LOGS/kvm.server" "kvm: the server takes the cycle counter and says why"
pycheck "kvm: the client's JSON names the cycle counter and why" \
	"$PP_LOGS/kvm.client" '
c = d["clock"]
assert c["source"] == "cycle counter" and c["ghz"] > 0, c
assert "under the kernel'"'"'s clocksource kvm-clock" in c["why"], c
assert isinstance(c["diff_ns"], int), c
'

# ... and the same guest whose kernel marked the TSC unstable
echo "kvm-clock hpet acpi_pm " >"$fake/available"
pair unstable "" -s 1 -n 20 --json
pp_expect_status "$cst" 0 "unstable: client"
pp_expect_status "$sst" 0 "unstable: server"
pp_expect_grep '^  clock: CLOCK_MONOTONIC, not the cycle counter: the kernel.s clocksource is kvm-clock and tsc is not among the available ones .*: the kernel marked the TSC unstable$' \
	"$PP_LOGS/unstable.server" "unstable: the server falls back and says why"
pycheck "unstable: the client's JSON names CLOCK_MONOTONIC and why" \
	"$PP_LOGS/unstable.client" '
c = d["clock"]
assert c["source"] == "CLOCK_MONOTONIC" and c["ghz"] is None, c
assert "marked the TSC unstable" in c["why"], c
'
pp_finish
