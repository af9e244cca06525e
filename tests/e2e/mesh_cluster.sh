#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# mesh_cluster.sh CASE: --mesh across the guests of the bed of N hosts with
# Slurm (guest.sh --hosts 4; docs/mesh.md). The script runs on every host;
# host A (node01, the Slurm controller) launches and checks, the others
# change their own host when the case asks and wait until A is done.
# Rank 0's output is checked by mesh_check.py: the text, the --json
# document and the --mesh-svg picture (rendered) agree cell by cell.
#
#   rc, ud  srun -N 4 --ntasks-per-node=1: 4 x 4, every pair ok, no odd one
#           out, each rank exits 0, launcher slurm; rc once in text with the
#           picture and once with --json and the picture, ud with --json and
#           the picture
#   pdsh    no launcher: each host starts its own process (--mesh-size 4
#           --mesh-root node01), as pdsh would; every pair ok
#   mtu     D's eth0 at 1500 (active 1024), the others' at 4200 (4096): D's
#           pairs at path MTU 1024, the others at 4096, the host table
#           names D's active MTU as the one that differs (--json)
#   netem   every guest's eth0 with netem delay 20ms, C's with 100ms, the
#           pairs one at a time (--mesh-serial): the summary names C as
#           slow, and no other; every pair ok.  On a fabric 2 ms is a
#           thousand round trips; on this bed a round trip is 2-10 ms of
#           emulation that varies by up to 10 ms between pairs, and the
#           rule's threshold is a typical rank's share of a round trip: the
#           delay of every guest lifts that share above the noise (with C's
#           delay alone, a guest adding 6-9 ms of noise was named slow too)
#   kill    D powered off during the mesh (sysrq b: no FIN, no RST): D's
#           pairs fail with a reason, the others pass, rank 0 exits 1, and
#           the mesh ends within the bound it announced
#   absent  rank 3 never starts: rank 0 goes on after --mesh-join 10 s,
#           names rank 3 as never joined, its pairs fail, the rest pass
#   many    srun -N 4 -n 32 --overcommit (32 ranks, 31 rounds, 496
#           pairs): every pair ok, 31 rounds, labels host#rank
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

case_=${1:?usage: mesh_cluster.sh rc|ud|pdsh|mtu|netem|kill|absent|many}
pp_mesh_need
here=$(dirname "$(realpath -- "$0")")
check=$here/mesh_check.py
rc=$(pp_bin rc_pingpong)
ud=$(pp_bin ud_pingpong)
n=${#pp_hosts[@]}
((n == 4)) || {
	echo "FAIL: the mesh tests need a bed of 4 hosts, this one has $n"
	exit 1
}
# -e: each process sleeps on its completion channel. Polling, up to eight
# processes spin on four emulated guests sharing two host cores, and a UD
# reply then came later than its 1 s (a pair failed with "lost 1 of 200").
common=(-d "$PP_DEV" -p "$PP_PORT" -T 5 -e)
d= # the current run's directory in PP_MEET (all hosts see it)

# mesh_srun NAME LIMIT SRUN-OPTS... -- CMD...: on A, a mesh under srun,
# bounded by LIMIT seconds; each rank's stdout, stderr and exit status in
# $d/r<rank>.out, .err, st.<rank> ($d is PP_MEET/NAME). Leaves srun_st
# and ms, srun's status and the milliseconds it took.
mesh_srun() {
	local name=$1 limit=$2 sopts=() t0
	shift 2
	pp_split "$@"
	sopts=("${pp_before[@]}")
	set -- "${pp_after[@]}"
	d=$PP_MEET/$name
	mkdir -p "$d"
	echo "run $name at $(pp_at): srun ${sopts[*]} $*"
	t0=$(pp_now_ms)
	srun_st=0
	timeout -k 5 "$limit" srun "${sopts[@]}" -o "$d/r%t.out" -e "$d/r%t.err" \
		bash "$here/mesh_rank.sh" "$d" "$@" || srun_st=$?
	ms=$(($(pp_now_ms) - t0))
	echo "srun exited $srun_st after $ms ms, at $(pp_at)"
}

# show: rank 0's output and every other rank's stderr, indented.
show() {
	local f
	sed 's/^/    /' "$d/r0.out"
	for f in "$d"/r*.err; do
		[[ ! -s $f ]] || sed "s/^/    $(basename "$f"): /" "$f"
	done
	for f in "$d"/r*.out; do
		[[ $f == "$d/r0.out" || ! -s $f ]] || pp_fail "$(basename "$f"): a rank other than 0 printed on stdout"
	done
}

# statuses WANT...: the exit status of each rank (st.<rank>) is WANT[rank].
statuses() {
	local i got=()
	for ((i = 0; i < $#; i++)); do
		got+=("$(cat "$d/st.$i" 2>/dev/null || echo none)")
	done
	if [[ ${got[*]} == "$*" ]]; then
		echo "ok: the ranks exited $*"
	else
		pp_fail "the ranks exited ${got[*]}, expected $*"
	fi
}

# mesh_check ARGS...: mesh_check.py ARGS, run on the host once every guest
# is done (pp_host_check: python3 and rsvg-convert take seconds to start in
# an emulated guest); its lines and status are the test's.
mesh_check() {
	pp_host_check python3 "$check" "$@"
}

# hear_all NAME: a barrier on A: every other host tells
# NAME.<role> when it is ready; A hears them all.
hear_all() {
	local role
	for role in "${pp_hosts[@]:1}"; do
		pp_hear_from "$role" "$1.$role" 120 >/dev/null || true
	done
}

# ready NAME: this host's change for case NAME is in place. A host other
# than A says so, waits (at most 400 s) until A says "finished", so that its
# change stays in place while A runs the mesh, and ends (failed if its
# change failed); A goes on once every other host is ready.
ready() {
	pp_tell "$1.$PP_ROLE"
	if [[ $PP_ROLE != A ]]; then
		pp_hear_from A finished 400 >/dev/null || true
		pp_finish
	fi
	hear_all "$1"
}

# run_ok TOOL NAME: the rc and ud cases. rc: text with the picture, then
# --json with the picture; ud: --json with the picture (the text is the
# same code for every tool).
run_ok() {
	local bin=$1 opts=(-n 50 -c)
	if [[ $2 == rc ]]; then
		mesh_srun "$2.text" 120 -N 4 --ntasks-per-node=1 -- \
			"$bin" --mesh "${common[@]}" "${opts[@]}" --mesh-svg "$PP_MEET/$2.text/mesh.svg"
		pp_expect_status "$srun_st" 0 "srun -N 4 $2 --mesh"
		statuses 0 0 0 0
		show
		pp_expect_grep '^mesh: 4 of 4 ranks joined.*\(slurm\)' "$d/r0.out" \
			"rank 0 names Slurm as the launcher"
		mesh_check --ranks 4 --all-ok --text "$d/r0.out" --svg "$d/mesh.svg"
		for node in "${pp_nodes[@]}"; do
			pp_expect_grep "^ +[0-3]  $node " "$d/r0.out" "the matrix has a row for $node"
		done
	fi
	mesh_srun "$2.json" 120 -N 4 --ntasks-per-node=1 -- \
		"$bin" --mesh "${common[@]}" "${opts[@]}" --json --mesh-svg "$PP_MEET/$2.json/mesh.svg"
	pp_expect_status "$srun_st" 0 "srun -N 4 $2 --mesh --json"
	statuses 0 0 0 0
	# the JSON's host names are the guests', in rank order (srun's block
	# distribution: rank i on node i+1)
	mesh_check --ranks 4 --all-ok --launcher slurm --json "$d/r0.out" \
		--svg "$d/mesh.svg" --hosts "$(IFS=,; echo "${pp_nodes[*]}")"
}

case $case_ in
rc | ud)
	[[ $PP_ROLE == A ]] || exit 0
	bin=$rc
	[[ $case_ == rc ]] || bin=$ud
	run_ok "$bin" "$case_"
	;;
pdsh)
	# Every host starts its own process at once, as pdsh -w node[01-04]
	# would; no Slurm variables reach it.
	d=$PP_MEET/pdsh
	mkdir -p "$d"
	st=0
	timeout -k 5 120 "$rc" --mesh --mesh-size 4 \
		--mesh-root "$PP_NODE_A" "${common[@]}" -n 50 -c \
		>"$d/$PP_ROLE.out" 2>"$d/$PP_ROLE.err" || st=$?
	echo "$st" >"$d/$PP_ROLE.st"
	pp_tell "pdsh.$PP_ROLE"
	[[ $PP_ROLE == A ]] || exit 0
	hear_all pdsh
	printers=$(grep -l '^median round trip' "$d"/?.out || true)
	if [[ $(wc -l <<<"$printers") == 1 && -n $printers ]]; then
		echo "ok: one process printed the matrix: $(basename "$printers")"
	else
		pp_fail "the matrix printed by: ${printers:-none}, expected one process"
	fi
	for role in "${pp_hosts[@]}"; do
		pp_expect_status "$(cat "$d/$role.st")" 0 "the process on host $role"
		[[ ! -s $d/$role.err ]] || sed "s/^/    $role.err: /" "$d/$role.err"
	done
	if [[ -n $printers ]]; then
		sed 's/^/    /' "$printers"
		pp_expect_grep '^mesh: 4 of 4 ranks joined' "$printers" "4 of 4 ranks joined"
		mesh_check --ranks 4 --all-ok --text "$printers"
	fi
	;;
mtu)
	mtu=4200
	[[ $PP_ROLE != D ]] || mtu=1500
	pp_netdev_mtu eth0 "$mtu" || true
	ready mtu
	mesh_srun mtu 120 -N 4 --ntasks-per-node=1 -- \
		"$rc" --mesh "${common[@]}" -n 20 -s 4096 -c --json
	show
	statuses 0 0 0 0
	mesh_check --ranks 4 --all-ok --mtu 3:1024 --json "$d/r0.out"
	pp_tell finished
	;;
netem)
	# every host's eth0 delays what it sends by 20 ms, C's by 100 ms
	delay=20ms
	[[ $PP_ROLE != C ]] || delay=100ms
	pp_netem eth0 "$delay" || true
	ready netem
	mesh_srun netem 120 -N 4 --ntasks-per-node=1 -- \
		"$rc" --mesh "${common[@]}" -n 20 --mesh-serial --mesh-svg "$PP_MEET/netem/mesh.svg"
	show
	statuses 0 0 0 0
	mesh_check --ranks 4 --slow 2 --text "$d/r0.out" --svg "$d/mesh.svg"
	pp_expect_grep "^  slow: ${PP_NODE_C} \\(rank 2\\) adds " "$d/r0.out" \
		"the summary names ${PP_NODE_C} as slow"
	pp_tell finished
	;;
kill)
	if [[ $PP_ROLE == D ]]; then
		pp_hear_from A off-D 200 >/dev/null || exit 0
		echo "host D: power off now"
		pp_tell poweroff-D
		sync
		# sysrq b: at once, no FIN, no RST (like pulling the plug)
		echo b >/proc/sysrq-trigger
		sleep 30
		pp_fail "host D did not power off"
		pp_finish
	fi
	[[ $PP_ROLE == A ]] || exit 0
	d=$PP_MEET/kill
	mkdir -p "$d"
	t0=$(pp_now_ms)
	# --no-kill: Slurm ends the whole step when it finds a node down
	# (srun: "Node failure on node04"), rank 0 with it; a mesh that is to
	# outlive a host is launched so
	srun --no-kill -N 4 --ntasks-per-node=1 -o "$d/r%t.out" -e "$d/r%t.err" \
		bash "$here/mesh_rank.sh" "$d" "$rc" --mesh "${common[@]}" -D 3 \
		--json --mesh-svg "$d/mesh.svg" &
	spid=$!
	# the mesh announces its bound on stderr (--json) once all joined;
	# D goes during the first round
	pp_wait_line '^mesh: [0-9]+ of [0-9]+ ranks joined' "$d/r0.err" 60 ||
		pp_fail "rank 0 announced no bound"
	sed 's/^/    r0.err: /' "$d/r0.err"
	grep -q '^mesh: 4 of 4 ranks joined' "$d/r0.err" ||
		pp_fail "not every rank joined before D was to go"
	# at once: the first round has begun, and D's pair in it must not end
	# before D goes (its pairs all fail; two seconds later one had passed)
	echo "tell D to power off, $(($(pp_now_ms) - t0)) ms after srun started"
	pp_tell off-D
	# rank 0 is done when its document is complete
	for _ in $(seq 1200); do
		[[ ! -s $d/st.0 ]] || break
		sleep 0.1
	done
	ms=$(($(pp_now_ms) - t0))
	echo "rank 0 ended $ms ms after srun started"
	# srun waits for D's task, which went with D: cancel the job
	scancel --user=root 2>/dev/null || true
	timeout 30 bash -c "while kill -0 $spid 2>/dev/null; do sleep 0.2; done" ||
		kill -KILL "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	[[ -s $d/st.0 ]] || pp_fail "rank 0 did not end within 120 s"
	pp_expect_status "$(cat "$d/st.0" 2>/dev/null)" 1 "rank 0"
	for r in 1 2; do
		pp_expect_status "$(cat "$d/st.$r" 2>/dev/null)" 1 "rank $r (its pair with D failed)"
	done
	# head reads the file itself: sed | head would die of SIGPIPE (141)
	head -c 4000 "$d/r0.out" | sed 's/^/    /'
	echo
	mesh_check --ranks 4 --bad 3 --gone 3 --json "$d/r0.out" --svg "$d/mesh.svg" \
		--took-ms "$ms"
	# named when TCP gives up on its connection to rank 0 (keepalive, user
	# timeout), within -T of its silence, not at the end of its pair's bound
	why=$(grep -o '"gone":"[^"]*"' "$d/r0.out" | head -n 1)
	if [[ $why == '"gone":"its host stopped answering rank 0 in round '* ]]; then
		echo "ok: D named gone when TCP gave up on it: $why"
	else
		pp_fail "D's gone reason: '$why', expected its host stopped answering rank 0 (TCP gave up)"
	fi
	;;
absent)
	[[ $PP_ROLE == A ]] || exit 0
	# --mesh-join 10: four emulated guests on two cores start a rank
	# seconds late (at 5 s a rank that did start was named absent)
	PP_MESH_SKIP=3 mesh_srun absent 120 -N 4 --ntasks-per-node=1 -- \
		"$rc" --mesh "${common[@]}" -n 20 --mesh-join 10
	show
	statuses 1 1 1 skipped
	mesh_check --ranks 4 --absent 3 --text "$d/r0.out"
	if ((ms >= 10000 && ms <= 60000)); then
		echo "ok: the mesh went on after the join deadline: $ms ms in all"
	else
		pp_fail "the mesh took $ms ms, expected the 5 s join deadline and the rest"
	fi
	;;
many)
	[[ $PP_ROLE == A ]] || exit 0
	mesh_srun many 800 -N 4 -n 32 --overcommit -- \
		"$rc" --mesh "${common[@]}" -n 10 -s 64 --json --mesh-svg "$PP_MEET/many/mesh.svg"
	pp_expect_status "$srun_st" 0 "srun -N 4 -n 32 rc --mesh"
	statuses $(printf '0 %.0s' {1..32})
	sed 's/^/    r0.err: /' "$d/r0.err"
	mesh_check --ranks 32 --all-ok --json "$d/r0.out" --svg "$d/mesh.svg" --rounds 31 \
		--hosts "$(IFS=,; echo "${pp_nodes[*]}")" --per-host 8
	;;
*)
	echo "FAIL: unknown case $case_"
	exit 1
	;;
esac
pp_finish
