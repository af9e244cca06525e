#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# mesh.sh MODE: --mesh with several ranks on this one host, all on one RDMA
# device (docs/mesh.md); the N-host cases run on the multi-guest bed.
#
#   ok      4 rc_pingpong ranks started without a launcher (as pdsh would):
#           every process exits 0, exactly one prints the 4 x 4 matrix (each
#           pair a number), the host table and "6 passed, 0 failed"; the
#           SVG renders (rsvg-convert); then the same with --json: the
#           document parses, has the 6 pairs with both sides' own documents,
#           and its cells agree with its numbers; then 3 ud_pingpong ranks
#           whose rank comes from Slurm's variables (SLURM_PROCID, ...):
#           rank 0 is the process with SLURM_PROCID=0.
#   faults  a rank that never starts: rank 0 goes on after --mesh-join,
#           names it, its pairs are ABSENT, every process exits 1; a rank
#           killed (with its pair's process) during the mesh: its pairs fail
#           (GONE, or the step where its peer noticed), the others pass,
#           exit 1, within the announced bound; rank 0 killed: every other
#           rank ends with "rank 0 ... is gone" well within a round's bound.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

mode=${1:?usage: mesh.sh ok|faults}
pp_need_device
rc=$(pp_bin rc_pingpong)
ud=$(pp_bin ud_pingpong)
port=$PP_PORT
fail=0

bad() {
	echo "FAIL: $*"
	fail=1
}

# Each rank is bounded by this (a mesh of 3 rounds with -T 5 announces up to
# about 115 s; the emulated guest is slow).
rank_timeout=$((PP_STEP_TIMEOUT > 240 ? PP_STEP_TIMEOUT : 240))

# start N TOOL ARGS...: N ranks in the background, each in its own process
# group (timeout makes one), logs $PP_LOGS/rI.out and rI.err; PIDs in pids.
pids=()
start() {
	local n=$1 tool=$2 i
	shift 2
	pids=()
	for ((i = 0; i < n; i++)); do
		timeout -k 5 "$rank_timeout" "$tool" "$@" \
			>"$PP_LOGS/r$i.out" 2>"$PP_LOGS/r$i.err" &
		pids+=($!)
	done
}

# finish: wait for every rank; statuses in sts.
sts=()
finish() {
	local p st
	sts=()
	for p in "${pids[@]}"; do
		st=0
		wait "$p" || st=$?
		sts+=("$st")
	done
}

# root_log: the stdout log of the rank that printed the matrix (or JSON).
root_log() {
	grep -l -e '^median round trip' -e '^{"mesh"' "$PP_LOGS"/r*.out 2>/dev/null || true
}

show_logs() {
	local f
	for f in "$PP_LOGS"/r*.out "$PP_LOGS"/r*.err; do
		[[ -s $f ]] || continue
		echo "--- $f"
		cat "$f"
	done
}

common=(-d "$PP_DEV" "${pp_gid_opt[@]}" -T 5 -p "$port")

case $mode in
ok)
	svg=$PP_LOGS/mesh.svg
	echo "run: 4 rc ranks, no launcher"
	start 4 "$rc" --mesh --mesh-size 4 --mesh-root "$PP_HOST" -n 200 -c \
		--mesh-svg "$svg" "${common[@]}"
	finish
	[[ ${sts[*]} == "0 0 0 0" ]] || bad "exit statuses ${sts[*]}, want 0 0 0 0"
	log=$(root_log)
	[[ $(wc -w <<<"$log") == 1 ]] || bad "the matrix printed by '$log', want one rank"
	if [[ -f $log ]]; then
		cat "$log"
		# 4 rows: rank, label, then 4 cells: 3 numbers and one "-"
		rows=$(grep -cE '^ +[0-3]  [^ ]+ +(-|[0-9.]+) +(-|[0-9.]+) +(-|[0-9.]+) +(-|[0-9.]+)$' "$log" || true)
		[[ $rows == 4 ]] || bad "$rows matrix rows of numbers, want 4"
		grep -q '^mesh: 4 of 4 ranks joined, 6 pairs: 6 passed, 0 failed' "$log" ||
			bad "no '6 passed, 0 failed' line"
		grep -qE '^ +0  [^ ]+ +[^ ]+ +rxe0|^ +0  .*'"$PP_DEV" "$log" || bad "no host table row for rank 0"
		grep -q '^  none$' "$log" || bad "odd ones out where there are none"
		for f in "$PP_LOGS"/r*.out; do
			[[ $f == "$log" || ! -s $f ]] || bad "$f is not empty"
		done
	fi
	if [[ -s $svg ]] && rsvg-convert -o "$PP_LOGS/mesh.png" "$svg" &&
		[[ -s $PP_LOGS/mesh.png ]]; then
		echo "svg: renders ($(stat -c %s "$PP_LOGS/mesh.png") bytes of PNG)"
	else
		bad "the SVG is missing or does not render"
	fi

	echo "run: 4 rc ranks, --json"
	start 4 "$rc" --mesh --mesh-size 4 --mesh-root "$PP_HOST" -n 200 \
		--json "${common[@]}"
	finish
	[[ ${sts[*]} == "0 0 0 0" ]] || bad "--json: exit statuses ${sts[*]}"
	log=$(root_log)
	python3 - "$log" <<'PY' || bad "--json: the document does not hold"
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"mesh", "hosts", "pairs", "matrix", "summary"}, d.keys()
assert d["mesh"]["size"] == 4 and d["mesh"]["launcher"] == "none"
assert len(d["hosts"]) == 4 and all(h["joined"] for h in d["hosts"])
assert len(d["pairs"]) == 6
for p in d["pairs"]:
    assert p["passed"] and p["result"] == "ok", p
    assert p["median_usec"] > 0
    roles = [s["role"] for s in p["sides"]]
    assert roles == ["server", "client"], roles
    for s in p["sides"]:
        assert s["doc"]["role"] == s["role"], s["doc"]
    m = d["matrix"]["median_usec"]
    assert m[p["a"]][p["b"]] == m[p["b"]][p["a"]] == p["median_usec"]
for a in range(4):
    for b in range(4):
        c = d["matrix"]["cells"][a][b]
        if a == b:
            assert c == "-"
        else:
            v = d["matrix"]["median_usec"][a][b]
            assert abs(float(c) - v) <= max(0.06, v * 0.001), (c, v)
s = d["summary"]
assert (s["pairs"], s["passed"], s["failed"], s["exit_status"]) == (6, 6, 0, 0), s
print("json: 6 pairs, both sides' documents, cells agree")
PY

	echo "run: 3 ud ranks, rank and size from Slurm's variables"
	pids=()
	for i in 0 1 2; do
		SLURM_PROCID=$i SLURM_NTASKS=3 SLURM_STEP_NODELIST=localhost \
			timeout -k 5 "$rank_timeout" "$ud" --mesh -n 100 -s 64 -c \
			"${common[@]}" >"$PP_LOGS/r$i.out" 2>"$PP_LOGS/r$i.err" &
		pids+=($!)
	done
	finish
	[[ ${sts[*]} == "0 0 0" ]] || bad "ud: exit statuses ${sts[*]}"
	grep -q '^mesh: 3 of 3 ranks joined (slurm)' "$PP_LOGS/r0.out" ||
		bad "ud: rank 0 is not the process with SLURM_PROCID=0"
	grep -q '^mesh: 3 of 3 ranks joined, 3 pairs: 3 passed, 0 failed' "$PP_LOGS/r0.out" ||
		bad "ud: not every pair passed"
	cat "$PP_LOGS/r0.out"
	;;
faults)
	echo "run: 4 ranks expected, 3 started, --mesh-join 3"
	start 3 "$rc" --mesh --mesh-size 4 --mesh-root "$PP_HOST" -n 50 \
		--mesh-join 3 "${common[@]}"
	finish
	[[ ${sts[*]} == "1 1 1" ]] || bad "absent: exit statuses ${sts[*]}, want 1 1 1"
	log=$(root_log)
	if [[ -f $log ]]; then
		cat "$log"
		grep -q '^  never joined: rank 3 ' "$log" || bad "rank 3 not named as never joined"
		grep -q '^mesh: 3 of 4 ranks joined, 6 pairs: 3 passed, 3 failed' "$log" ||
			bad "absent: want 3 passed, 3 failed"
		# each of the 4 matrix rows has rank 3's cell ABSENT
		[[ $(grep -cE '^ +[0-9]+  [^ ]+ .*ABSENT' "$log") -eq 4 ]] ||
			bad "absent: rank 3's cells are not ABSENT"
	else
		bad "absent: no rank printed the matrix"
	fi

	echo "run: 4 ranks, one killed during the mesh"
	start 4 "$rc" --mesh --mesh-size 4 --mesh-root "$PP_HOST" -D 3 "${common[@]}"
	# the matrix's printer is not known yet: kill the last rank that is
	# not rank 0 (rank 0 holds the meeting port)
	pp_wait_port "$port" "${pids[0]}" || true
	sleep 4
	victim=
	for i in 3 2 1 0; do
		if ! ss -Hltnp "sport = :$port" | grep -q "pid=$(pp_tool_pid "${pids[$i]}")[,)]"; then
			victim=$i
			break
		fi
	done
	echo "kill rank process $victim (pid ${pids[$victim]}) and its pair's process"
	kill -KILL -- "-${pids[$victim]}" 2>/dev/null || kill -KILL "${pids[$victim]}"
	finish
	log=$(root_log)
	if [[ -f $log ]]; then
		cat "$log"
		grep -q '^  gone: ' "$log" || bad "killed: no 'gone' line"
		grep -qE '^mesh: 4 of 4 ranks joined, 6 pairs: 3 passed, 3 failed' "$log" ||
			bad "killed: want 3 passed, 3 failed"
		el=$(sed -nE 's/.* in ([0-9.]+) s \(bound ([0-9]+) s\)$/\1 \2/p' "$log")
		read -r took bound <<<"$el"
		awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t <= b) }' ||
			bad "killed: took $took s, over the announced bound $bound s"
	else
		bad "killed: no rank printed the matrix"
	fi
	for i in "${!sts[@]}"; do
		[[ $i == "$victim" || ${sts[$i]} == 1 ]] || bad "killed: rank process $i exited ${sts[$i]}, want 1"
	done

	echo "run: 4 ranks, rank 0 killed during the mesh"
	start 4 "$rc" --mesh --mesh-size 4 --mesh-root "$PP_HOST" -D 3 "${common[@]}"
	pp_wait_port "$port" "${pids[0]}" || true
	sleep 4
	root=
	for i in 0 1 2 3; do
		if ss -Hltnp "sport = :$port" | grep -q "pid=$(pp_tool_pid "${pids[$i]}")[,)]"; then
			root=$i
		fi
	done
	if [[ -z $root ]]; then
		bad "rank 0: no process holds the meeting port"
	else
		t0=$(date +%s)
		kill -KILL -- "-${pids[$root]}" 2>/dev/null || kill -KILL "${pids[$root]}"
		finish
		took=$(($(date +%s) - t0))
		echo "the other ranks ended $took s after rank 0 was killed"
		((took <= 25)) || bad "rank 0 killed: the others took $took s to end"
		for i in "${!sts[@]}"; do
			[[ $i == "$root" ]] && continue
			[[ ${sts[$i]} == 1 ]] || bad "rank 0 killed: rank process $i exited ${sts[$i]}"
			grep -q 'rank 0 (.*) is gone' "$PP_LOGS/r$i.err" ||
				bad "rank 0 killed: rank process $i did not say rank 0 is gone"
		done
	fi
	;;
*)
	echo "usage: mesh.sh ok|faults" >&2
	exit 2
	;;
esac
((fail == 0)) || show_logs
exit "$fail"
