#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# mesh_bed.sh: the bed of N hosts with Slurm (guest.sh --hosts N, N >= 4)
# works as a cluster does. On host A, the Slurm controller:
#   - "srun -N N --ntasks-per-node=1" prints each guest's name once, and
#     its tasks outlive the end of host D's own job (the bed sweeps a
#     guest's processes after each job, but never a Slurm step's);
#   - "srun -N N -n 4N --overcommit" and "srun -n 4N" start 4N ranks, four
#     per guest, each with SLURM_PROCID (0..4N-1, once each), SLURM_NTASKS,
#     SLURM_STEP_NODELIST (the compressed form, node[01-0N]), SLURM_NODEID
#     and SLURM_LOCALID (0..3 on every guest) right.
# Then, between hosts B and C (after A's steps, so that no guest is busy
# while Slurm launches): rdma-core's ibv_rc_pingpong -g 1, server on B,
# client on C connecting to B's host name; both print their iters line.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_mesh_need
n=${#pp_hosts[@]}
((n >= 4)) || {
	echo "FAIL: the bed has $n hosts, this test needs at least 4"
	exit 1
}
list=$(printf '%s\n' "${pp_nodes[@]}")
names=${pp_nodes[*]}
compressed="node[01-$(printf %02d "$n")]"

# ranks NAME SRUN-OPTS...: run a step that prints each rank's SLURM_* and
# host name; check them (4 ranks per host, block distribution).
ranks() {
	local name=$1 log=$PP_LOGS/$1 st=0 want seen=() proc ntasks nodes nodeid localid host
	shift
	# shellcheck disable=SC2016 # expanded by each rank
	pp_client "$name" "$log" srun "$@" bash -c \
		'echo "$SLURM_PROCID $SLURM_NTASKS $SLURM_STEP_NODELIST $SLURM_NODEID $SLURM_LOCALID $(hostname)"' ||
		st=$?
	pp_expect_status "$st" 0 "$name"
	sort -n "$log" | sed 's/^/    /'
	want=$((4 * n))
	if [[ $(grep -c . "$log") != "$want" ]]; then
		pp_fail "$name: $(grep -c . "$log") lines, expected $want ranks"
		return
	fi
	while read -r proc ntasks nodes nodeid localid host; do
		[[ -z ${seen[proc]:-} ]] || pp_fail "$name: rank $proc twice"
		seen[proc]=1
		[[ $ntasks == "$want" ]] || pp_fail "$name: rank $proc: SLURM_NTASKS=$ntasks, expected $want"
		[[ $nodes == "$compressed" ]] ||
			pp_fail "$name: rank $proc: SLURM_STEP_NODELIST=$nodes, expected $compressed"
		[[ $host == "${pp_nodes[nodeid]}" ]] ||
			pp_fail "$name: rank $proc on $host has SLURM_NODEID=$nodeid (${pp_nodes[nodeid]})"
		((localid == proc % 4 && nodeid == proc / 4)) ||
			pp_fail "$name: rank $proc: SLURM_NODEID=$nodeid SLURM_LOCALID=$localid, expected $((proc / 4)) and $((proc % 4))"
	done <"$log"
	((${#seen[@]} == want)) && echo "ok: $name: $want ranks, SLURM_* right on each"
}

case $PP_ROLE in
A)
	sinfo -N -h -o '%N %T %c' | sed 's/^/    /'
	# Each task prints its host, waits until host D's script has ended
	# (and its job's sweep has run, well within 3 s), then prints again.
	log=$PP_LOGS/hostname
	# shellcheck disable=SC2016 # expanded by each task
	pp_server "srun -N $n --ntasks-per-node=1" "$log" srun -N "$n" --ntasks-per-node=1 \
		bash -c 'hostname; for ((i = 0; i < 400; i++)); do
			[[ -e $PP_MEET/d.ended ]] && break; sleep 0.1; done
			sleep 3; echo "$(hostname) after D"'
	spid=$pp_pid
	for ((i = 0; i < 600; i++)); do
		if (($(grep -vc ' after D$' "$log") >= n)) || ! kill -0 "$spid" 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
	pp_tell step.running
	st=0
	pp_wait "$spid" || st=$?
	pp_expect_status "$st" 0 "srun -N $n --ntasks-per-node=1"
	if [[ $(grep -v ' after D$' "$log" | sort) == "$list" ]]; then
		echo "ok: srun -N $n: one task on each guest: $names"
	else
		pp_fail "srun -N $n printed $(tr '\n' ' ' <"$log"), expected $names"
	fi
	if [[ $(grep ' after D$' "$log" | sort) == "$(printf '%s after D\n' "${pp_nodes[@]}")" ]]; then
		echo "ok: each guest's task outlived the end of host D's job"
	else
		pp_fail "tasks after the end of host D's job: $(grep -c ' after D$' "$log") of $n"
	fi
	ranks "srun -N $n -n $((4 * n)) --overcommit" -N "$n" -n $((4 * n)) --overcommit
	ranks "srun -n $((4 * n))" -n $((4 * n))
	pp_tell srun.done
	;;
B)
	# after A's steps: a busy guest answers Slurm late
	pp_hear_from A srun.done 400 >/dev/null || true
	pp_server "ibv_rc_pingpong server" "$PP_LOGS/server" \
		ibv_rc_pingpong -d "$PP_DEV" -g 1 -p "$PP_PORT" -n 500
	spid=$pp_pid
	pp_wait_port "$PP_PORT" "$spid" || pp_fail "ibv_rc_pingpong on B is not listening"
	pp_tell stock.listen
	st=0
	pp_wait "$spid" || st=$?
	pp_expect_status "$st" 0 "ibv_rc_pingpong server on B"
	pp_expect_grep '^500 iters in [0-9.]+ seconds = [0-9.]+ usec/iter$' \
		"$PP_LOGS/server" "B: the server's iters line"
	;;
C)
	pp_hear_from B stock.listen 460 >/dev/null || true
	st=0
	pp_client "ibv_rc_pingpong client" "$PP_LOGS/client" \
		ibv_rc_pingpong -d "$PP_DEV" -g 1 -p "$PP_PORT" -n 500 "$PP_NODE_B" || st=$?
	pp_expect_status "$st" 0 "ibv_rc_pingpong client on C, to ${PP_NODE_B}"
	pp_expect_grep '^500 iters in [0-9.]+ seconds = [0-9.]+ usec/iter$' \
		"$PP_LOGS/client" "C: the client's iters line"
	grep -h 'usec/iter' "$PP_LOGS/client" || true
	;;
D)
	pp_hear_from A step.running 120 >/dev/null || true
	;;
esac
# Slurm's own complaints, for a failure's diagnosis: every host's slurmd,
# and the controller on A.
for f in /run/slurm/slurmd.log /run/slurm/slurmctld.log; do
	[[ -r $f ]] || continue
	grep -iE 'error|timeout|timed out|fail|refused' "$f" | tail -n 15 |
		sed "s|^|    $(basename "$f"): |" || true
done
# D's job ends now: A's first step still runs here.
[[ $PP_ROLE != D ]] || pp_tell d.ended
pp_finish
