#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# cpu.sh: where each side runs (--cpu, docs/measurement.md "CPU and NUMA
# placement"), on Soft-RoCE: rxe has no PCI device, so sysfs gives it no
# NUMA node and the rule falls back to the CPUs the process may use.
#
# 1. Default (auto), both sides on one host with CPUs 0-1: the server pins
#    itself to CPU 0, the client to CPU 1; each prints the line with the
#    rule; while the run goes on, each process's affinity (from /proc) is
#    its one CPU; the client's JSON document records cpu 1, numa_node null.
# 2. Within what taskset allows: a server started under taskset -c 1 takes
#    CPU 1.
# 3. --cpu none: no pinning, said so; --cpu 7 where only 0-1 exist: refused
#    with one line naming the allowed CPUs, exit 1.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
bin=$(pp_bin rc_pingpong)
ncpu=$(nproc)
if ((ncpu < 2)); then
	echo "SKIP: needs 2 CPUs, this host has $ncpu"
	exit 77
fi
allowed=0-$((ncpu - 1))
last=$((ncpu - 1))
rule="allowed CPU \\($allowed\\): $PP_DEV has no NUMA node in sysfs"

# affinity PID: the CPU list the tool under wrapper PID may run on, read
# from /proc with builtins only (no fork: the run is short and the guest
# slow), or "ended" when the tool is gone already
affinity() {
	local tool k v
	if [[ -r /proc/$1/task/$1/children ]]; then
		# "PID " with no newline: read assigns it and returns 1
		read -r tool _ <"/proc/$1/task/$1/children" || true
	else
		tool=$(pp_tool_pid "$1") || tool=
	fi
	if [[ -n $tool ]]; then
		while read -r k v; do
			[[ $k == Cpus_allowed_list: ]] && echo "$v" && return 0
		done <"/proc/$tool/status" 2>/dev/null
	fi
	echo ended
}

# expect_cpu ACTUAL WANT SIDE: SIDE's affinity during the run
expect_cpu() {
	if [[ $1 == "$2" ]]; then
		echo "ok: the $3 ran on CPU $2 only"
	else
		pp_fail "the $3's affinity was '$1', expected $2"
	fi
}

# 1. auto
pp_start_run auto "$bin" "$PP_PORT" server -- -D 4 --json
sa=$(affinity "$pp_spid") ca=$(affinity "$pp_cpid")
sst=0 cst=0
pp_wait "$pp_spid" || sst=$?
pp_wait "$pp_cpid" || cst=$?
pp_indent '    ' "$pp_slog"
head -c 2000 "$pp_clog" | sed 's/^/    /'
echo
pp_expect_status "$sst" 0 "auto server"
pp_expect_status "$cst" 0 "auto client"
pp_expect_grep "^  CPU 0: the first $rule$" "$pp_slog" "server: CPU 0 and its rule"
expect_cpu "$sa" 0 server
expect_cpu "$ca" "$last" client
pp_expect_grep "\"cpu\": ?$last," "$pp_clog" "client JSON: cpu $last"
pp_expect_grep '"numa_node": ?null' "$pp_clog" "client JSON: no NUMA node"
pp_expect_grep "\"cpu_rule\": ?\"the last $rule\"" "$pp_clog" \
	"client JSON: the rule"

# 2. within taskset's CPUs
PP_PORT=$((PP_PORT + 1))
pp_server server "$PP_LOGS/server.ts" taskset -c 1 "$bin" -d "$PP_DEV" \
	-p "$PP_PORT"
spid=$pp_pid
pp_wait_port "$PP_PORT" "$spid" || pp_fail "taskset server not listening"
cst=0
pp_client client "$PP_LOGS/client.ts" "$bin" -d "$PP_DEV" -p "$PP_PORT" \
	"${pp_gid_opt[@]}" -n 100 "$PP_HOST" || cst=$?
sst=0
pp_wait "$spid" || sst=$?
pp_expect_status "$sst" 0 "taskset server"
pp_expect_grep '^  CPU 1: the first allowed CPU \(1\): ' "$PP_LOGS/server.ts" \
	"server under taskset -c 1 takes CPU 1"

# 3. none, and a list with no allowed CPU
PP_PORT=$((PP_PORT + 1))
pp_start_run none "$bin" "$PP_PORT" client --cpu none -- --cpu none -n 100
sst=0 cst=0
pp_wait "$pp_spid" || sst=$?
pp_wait "$pp_cpid" || cst=$?
pp_expect_status "$cst" 0 "--cpu none client"
pp_expect_grep '^  not pinned \(--cpu none\)$' "$pp_clog" "--cpu none said"
st=0
pp_client bad "$PP_LOGS/bad" "$bin" -d "$PP_DEV" -p "$PP_PORT" --cpu 7-8 \
	|| st=$?
cat "$PP_LOGS/bad"
pp_expect_status "$st" 1 "--cpu 7-8"
pp_expect_grep "^rc_pingpong: --cpu 7-8: none of these CPUs may be used by this process \\(allowed: $allowed\\)$" \
	"$PP_LOGS/bad" "--cpu 7-8 names the allowed CPUs"
pp_finish
