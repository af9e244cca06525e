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
#   netem   every guest's eth0 with netem delay 20ms, C's with 300ms, the
#           pairs one at a time (--mesh-serial): a slow NIC verdict names
#           C, and no other; every pair ok, exit status 4.  On a fabric 2 ms is a
#           thousand round trips; on this bed a round trip is 2-10 ms of
#           emulation that varies by up to 10 ms between pairs, and the
#           rule's threshold is a typical rank's share of a round trip: the
#           delay of every guest lifts that share above the noise (with C's
#           delay alone, a guest adding 6-9 ms of noise was named slow too).
#           A full mesh of 4 gives each estimate 3 others, so the bar is 15
#           spreads of that noise (docs/mesh.md): C adds 280 ms
#   kill    D powered off during the mesh (sysrq b: no FIN, no RST): D's
#           pairs fail with a reason, the others pass, rank 0 exits 1, and
#           the mesh ends within the bound it announced
#   absent  rank 3 never starts: rank 0 goes on after --mesh-join 10 s,
#           names rank 3 as never joined, its pairs fail, the rest pass
#   many    srun -N 4 -n 32 --overcommit (32 ranks, 31 rounds, 496
#           pairs): every pair ok, 31 rounds, labels host:device#rank
#
# The rails cases use the bed's second NIC: eth1 on a second segment with
# no path to the first (10.99.6.x, MTU 9000 unless the case changes it),
# rxe1 on it; rxe0 stays on eth0 (MTU 1500). Without them (another bed, a
# real cluster) they exit 77. Ranks: srun -N 4 --ntasks-per-node=2, block
# distribution, so rank 2h is host h's local index 0 (rxe0) and rank 2h+1
# its index 1 (rxe1); -d rxe0,rxe1 gives each its device, labels
# host:device. No -g: each rank's device has one IPv4 GID (its netdev's),
# which the tool chooses; the JSON's GIDs are checked to be on the rank's
# segment. -s 64: one packet at either MTU, so that the rails' round trips
# differ by no more than the noise. The times below were measured, or are
# expected, with the machine at a load of about 18 (other guests running);
# each case but rails_pair runs two meshes, in text and with --json.
#
#   rails_pair  plain pair runs, server on B, client on C (no Slurm):
#               rxe1 to rxe1 with -g of rxe1's IPv4 GID passes over the
#               second segment; rxe0 on B against rxe1 on C has no path:
#               both exit 1 within -T plus slack, the client's line names
#               the failure. 89 s.
#   rails_rail  --mesh -d rxe0,rxe1 (rail, the default with a list): 8
#               ranks, the 12 same-rail pairs of different hosts run (6 a
#               rail) and pass, the 16 others are shown as not run; exit
#               0; text with the picture, then --json. About 150 s.
#   rails_all   --mesh-pairs all: the 12 same-rail pairs pass, the 16
#               cross-rail pairs (4 of them within a host) fail, each with
#               a reason; one verdict, no path between the rails (kind
#               rails), no NIC or host verdict; exit 1. About 270 s (one
#               mesh of these 28 pairs took 133 s, each rank on its own
#               device through srun, before -d took a list).
#   rails_nic   netem delay 200ms on C's eth1 only, --max-rtt 100000:
#               node03:rxe1's three pairs SLOW, the verdict names
#               node03:rxe1 (kind nic), not node03 nor its rxe0; exit 4.
#   rails_host  netem delay 200ms on both of C's NICs: C's six pairs SLOW,
#               the verdict names node03 (kind host) alone; exit 4.
#   rails_link  netem delay 200ms on C's eth1 toward D's eth1 only: the pair
#               node03:rxe1 - node04:rxe1 SLOW, the verdict names that link
#               (kind link), no NIC or host; exit 4.
#               (The three netem cases: pairs one at a time, -n 10. With
#               the machine at load 16, rc -s 64 -e over rxe1 had a median
#               round trip of 25 ms (max 110), and 126 ms toward a peer
#               behind 100 ms of netem: 200 ms on one direction against a
#               threshold of 100 ms leaves room on both sides. About 200 s
#               each: the pairs one at a time.)
#   rails_mtu   every eth0 and eth1 at 9000 (active MTU 4096) but D's eth1
#               at 1500 (1024), --expect-mtu 4096: node04:rxe1's three
#               pairs show MTU, a line names its active MTU 1024 and its
#               netdev's MTU 1500; exit 4. About 150 s.
# The rails features' expectations follow the shared contract of --mesh
# with several devices (-d DEV,DEV..., --mesh-pairs, verdicts,
# --expect-mtu, --max-rtt, exit status 4); mesh_check.py's --pairs,
# --flag, --verdict and --exit options hold them.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

case_=${1:?usage: mesh_cluster.sh rc|ud|pdsh|mtu|netem|kill|absent|many|rails_*}
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
	# an srun killed at its limit can leave its job holding every node,
	# and the next case's srun then waits in the queue
	if ((srun_st == 124 || srun_st == 137)); then
		scancel --user=root 2>/dev/null || true
	fi
}

# show: rank 0's output and every other rank's stderr, indented.
show() {
	local f
	pp_indent '    ' "$d/r0.out"
	for f in "$d"/r*.err; do
		[[ ! -s $f ]] || pp_indent "    ${f##*/}: " "$f"
	done
	for f in "$d"/r*.out; do
		[[ $f == "$d/r0.out" || ! -s $f ]] || pp_fail "$(basename "$f"): a rank other than 0 printed on stdout"
	done
}

# statuses WANT...: the exit status of each rank (st.<rank>) is WANT[rank].
statuses() {
	local i st got=()
	for ((i = 0; i < $#; i++)); do
		st=none
		[[ ! -r $d/st.$i ]] || read -r st <"$d/st.$i" || true
		got+=("${st:-none}")
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
# than A says so, waits (at most ready_wait s) until A says "finished", so
# that its change stays in place while A runs the mesh, and ends (failed if
# its change failed); A goes on once every other host is ready.
ready_wait=400
ready() {
	pp_tell "$1.$PP_ROLE"
	if [[ $PP_ROLE != A ]]; then
		pp_hear_from A finished "$ready_wait" >/dev/null || true
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
			pp_expect_grep "^ +[0-3]  $node:[^ ]+ " "$d/r0.out" "the matrix has a row for $node (host:device)"
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

# rails_need: exit 77 unless every host of the bed has its second NIC, eth1
# with an address, and rxe1 on it.
rails_need() {
	local role var
	for role in "${pp_hosts[@]}"; do
		var=PP_ADDR1_$role
		if [[ -z ${!var:-} ]]; then
			echo "SKIP: host $role has no second rail (PP_ADDR1_$role): a bed of guest.sh --hosts with two NICs"
			exit 77
		fi
	done
	if [[ ! -e /sys/class/infiniband/rxe1 || ! -e /sys/class/net/eth1 ]]; then
		echo "SKIP: host $PP_ROLE has no rxe1 on eth1"
		exit 77
	fi
}

# rails_srun NAME LIMIT OPTS...: on A, the 8 ranks of the rails cases
# (srun -N 4 --ntasks-per-node=2) run rc_pingpong --mesh -d rxe0,rxe1 with
# OPTS (mesh_srun).
rails_srun() {
	local name=$1 limit=$2
	shift 2
	mesh_srun "$name" "$limit" -N 4 --ntasks-per-node=2 -- \
		"$rc" --mesh -d rxe0,rxe1 -p "$PP_PORT" -T 5 -e -s 64 "$@"
}

# rails_check ARGS...: mesh_check.py for the 8 ranks of the rails cases,
# labels host:device, with ARGS.
rails_check() {
	mesh_check --ranks 8 --hosts "$(IFS=,; echo "${pp_nodes[*]}")" \
		--devices rxe0,rxe1 "$@"
}

# rails_run NAME EXIT LIMIT MESH-OPTS... -- CHECK-ARGS...: on A, a rails
# case in text, with the picture and the Prometheus file (read back by
# node_exporter on the host), then, unless rails_json=0, with --json; each
# time every rank exits EXIT, and rank 0's output goes to mesh_check.py
# with CHECK-ARGS.
rails_json=1
rails_run() {
	local name=$1 want=$2 limit=$3 mopts cargs
	shift 3
	pp_split "$@"
	mopts=("${pp_before[@]}") cargs=("${pp_after[@]}")
	rails_srun "$name.text" "$limit" "${mopts[@]}" --mesh-svg "$PP_MEET/$name.text/mesh.svg" \
		--mesh-prom "$PP_MEET/$name.text/mesh.prom"
	show
	statuses "$want" "$want" "$want" "$want" "$want" "$want" "$want" "$want"
	rails_check "${cargs[@]}" --text "$d/r0.out" --svg "$d/mesh.svg" --prom "$d/mesh.prom"
	((rails_json)) || return 0
	rails_srun "$name.json" "$limit" "${mopts[@]}" --json
	pp_indent '    r0.err: ' "$d/r0.err"
	statuses "$want" "$want" "$want" "$want" "$want" "$want" "$want" "$want"
	rails_check "${cargs[@]}" --json "$d/r0.out" \
		--gid-net rxe0=10.99.5. --gid-net rxe1=10.99.6.
}

case $case_ in
rails_pair)
	# server on B, client on C (connecting to B's host name, over eth0);
	# A and D idle. -T 5: a side whose peer has no path ends within it.
	rails_need
	[[ $PP_ROLE == [BC] ]] || exit 0
	var=PP_ADDR_$PP_ROLE addr0=${!var}
	var=PP_ADDR1_$PP_ROLE addr1=${!var}
	g0=$(pp_gid_of "$addr0" eth0 rxe0)
	g1=$(pp_gid_of "$addr1" eth1 rxe1)
	[[ -n $g0 && -n $g1 ]] ||
		pp_fail "host $PP_ROLE: no IPv4 GID of rxe0 ($addr0: '$g0') or rxe1 ($addr1: '$g1')"
	echo "host $PP_ROLE: rxe0 $addr0 at GID index $g0, rxe1 $addr1 at GID index $g1, eth1 mtu $(cat /sys/class/net/eth1/mtu)"
	opts=(-n 100 -c -T 5)
	port2=$((PP_PORT + 1))
	if [[ $PP_ROLE == B ]]; then
		pp_server "rxe1 server" "$PP_LOGS/rails1" "$rc" -d rxe1 -g "$g1" -p "$PP_PORT" "${opts[@]}"
		spid=$pp_pid
		pp_wait_port "$PP_PORT" "$spid" || pp_fail "B: the rxe1 server is not listening"
		pp_tell rails1.listen
		st=0
		pp_wait "$spid" || st=$?
		pp_indent '    B: ' "$PP_LOGS/rails1"
		pp_expect_status "$st" 0 "B: the rxe1 server, C's rxe1 its client"
		pp_expect_grep '^100 iters in [0-9.]+ seconds = [0-9.]+ usec/iter$' \
			"$PP_LOGS/rails1" "B: the rxe1 server's iters line"
		pp_expect_grep 'path MTU 4096' "$PP_LOGS/rails1" \
			"B: path MTU 4096 (eth1 at 9000 on both)"
		# rxe0 here, on the first segment, against rxe1 on C, on the
		# second: no path
		pp_server "rxe0 server" "$PP_LOGS/rails2" "$rc" -d rxe0 -g "$g0" -p "$port2" "${opts[@]}"
		spid=$pp_pid
		pp_wait_port "$port2" "$spid" || pp_fail "B: the rxe0 server is not listening"
		pp_tell rails2.listen
		t0=$(pp_now_ms)
		st=0
		pp_wait "$spid" || st=$?
		pp_indent '    B: ' "$PP_LOGS/rails2"
		pp_expect_status "$st" 1 "B: the rxe0 server, C's rxe1 its client (no path)"
		pp_expect_fast $(($(pp_now_ms) - t0)) 30000 "B: the rxe0 server ended"
		pp_tell rails2.done
	else
		pp_hear_from B rails1.listen 200 >/dev/null || true
		st=0
		pp_client "rxe1 client" "$PP_LOGS/rails1" "$rc" -d rxe1 -g "$g1" -p "$PP_PORT" \
			"${opts[@]}" "$PP_NODE_B" || st=$?
		pp_indent '    C: ' "$PP_LOGS/rails1"
		pp_expect_status "$st" 0 "C: rc_pingpong -d rxe1 -g $g1 to B's rxe1"
		pp_expect_grep '^100 iters in [0-9.]+ seconds = [0-9.]+ usec/iter$' \
			"$PP_LOGS/rails1" "C: the rxe1 client's iters line"
		pp_hear_from B rails2.listen 200 >/dev/null || true
		t0=$(pp_now_ms)
		st=0
		pp_client "rxe1 client to rxe0" "$PP_LOGS/rails2" "$rc" -d rxe1 -g "$g1" -p "$port2" \
			"${opts[@]}" "$PP_NODE_B" || st=$?
		ms=$(($(pp_now_ms) - t0))
		pp_indent '    C: ' "$PP_LOGS/rails2"
		pp_expect_status "$st" 1 "C: rc_pingpong -d rxe1 to B's rxe0 (no path)"
		# retries exceeded after 8 x 67 ms, or nothing completed within -T
		pp_expect_fast "$ms" 20000 "C: the client against B's rxe0 ended"
		pp_expect_grep 'retry (counter )?exceeded|nothing completed for [0-9]+ ms' \
			"$PP_LOGS/rails2" "C: its line names why (no acknowledgement: no path)"
		pp_hear_from B rails2.done 60 >/dev/null || true
	fi
	;;
rails_rail)
	# (a) rail mode: ranks 2h and 2h+1 are host h's rxe0 and rxe1; only
	# same-rail pairs of different hosts run: 6 on rxe0, 6 on rxe1
	rails_need
	[[ $PP_ROLE == A ]] || exit 0
	rails_run rails_rail 0 240 -n 20 -- --pairs rail --exit 0
	;;
rails_all)
	# (b) every pair: the 16 cross-rail pairs have no path (4 within a
	# host: rxe does not take packets addressed to another of its host's
	# devices). Each fails with a reason; the verdict is rails no_path, and
	# no NIC, host or link is failing for it. (A slow verdict from the
	# emulation's noise is not checked against here: a rail of 4 ranks
	# whose round trips wander by half can give one; the unit tests hold
	# the bed's matrix, test_mesh_verdict bed_rails_noise.)
	rails_need
	[[ $PP_ROLE == A ]] || exit 0
	rails_json=0 # the JSON of rails: rails_rail's run
	rails_run rails_all 1 300 -n 20 --mesh-pairs all -- --pairs all \
		--cross-rail-fail --exit 1 --verdict rails:no_path \
		--no-verdict nic:failing --no-verdict host:failing \
		--no-verdict link:failing
	;;
rails_nic | rails_host | rails_link)
	# (c), (d), (e): C (node03) is ranks 4 (rxe0) and 5 (rxe1); D's rxe1
	# is rank 7. --mesh-serial: the pairs one at a time, the least noise.
	rails_need
	ready_wait=560 # a mesh of at most 240 s and its launch, with room
	case $case_:$PP_ROLE in
	rails_nic:C) pp_netem eth1 200ms || true ;;
	rails_host:C)
		pp_netem eth0 200ms || true
		pp_netem eth1 200ms || true
		;;
	rails_link:C)
		var=PP_ADDR1_D
		pp_netem eth1 200ms "${!var}" || true
		;;
	esac
	ready "$case_"
	# the verdicts in text and in the Prometheus file; in JSON, the unit
	# tests stand for these (rails_rail's JSON run checks the rails' labels)
	rails_json=0
	slow=(--max-rtt 100000 -n 10 --mesh-serial)
	case $case_ in
	rails_nic)
		rails_run "$case_" 4 240 "${slow[@]}" -- --pairs rail --flag 5:SLOW \
			--exit 4 --verdict "nic:slow:$PP_NODE_C:rxe1" --verdicts-exact
		;;
	rails_host)
		rails_run "$case_" 4 240 "${slow[@]}" -- --pairs rail --flag 4:SLOW \
			--flag 5:SLOW --exit 4 --verdict "host:slow:$PP_NODE_C" --verdicts-exact
		;;
	rails_link)
		rails_run "$case_" 4 240 "${slow[@]}" -- --pairs rail --flag-pair 5-7:SLOW \
			--exit 4 --verdict "link:slow:$PP_NODE_C:rxe1:$PP_NODE_D:rxe1" \
			--verdicts-exact
		;;
	esac
	pp_tell finished
	;;
rails_mtu)
	# (f) every netdev at 9000 (active MTU 4096) but D's eth1 at 1500
	# (1024): node04:rxe1, rank 7, is below --expect-mtu 4096
	rails_need
	ready_wait=560
	pp_netdev_mtu eth0 9000 rxe0 || true
	mtu1=9000
	[[ $PP_ROLE != D ]] || mtu1=1500
	pp_netdev_mtu eth1 "$mtu1" rxe1 || true
	ready rails_mtu
	rails_json=0
	rails_run rails_mtu 4 240 -n 10 --expect-mtu 4096 -- --pairs rail --flag 7:MTU \
		--exit 4 --line-has "$PP_NODE_D:rxe1,1024,1500"
	pp_tell finished
	;;
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
		pp_indent '    ' "$printers"
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
	# every host's eth0 delays what it sends by 20 ms, C's by 300 ms
	delay=20ms
	[[ $PP_ROLE != C ]] || delay=300ms
	pp_netem eth0 "$delay" || true
	ready netem
	mesh_srun netem 120 -N 4 --ntasks-per-node=1 -- \
		"$rc" --mesh "${common[@]}" -n 20 --mesh-serial --mesh-svg "$PP_MEET/netem/mesh.svg"
	show
	statuses 4 4 4 4
	mesh_check --ranks 4 --slow 2 --text "$d/r0.out" --svg "$d/mesh.svg"
	pp_expect_grep "^verdict: slow NIC ${PP_NODE_C}:[^ ]* \\(rank 2, the host's only NIC in this mesh\\) adds " "$d/r0.out" \
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
	pp_indent '    r0.err: ' "$d/r0.err"
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
	# Every pair passes. The emulated hosts are not alike (node01 runs rank
	# 0 and slurmctld too, 8 ranks share each guest's two vCPUs), so a slow
	# verdict can be true here: the status is 0, or 4 with slow verdicts
	# only (mesh_check: 4 if and only if the document has verdicts; no
	# failing one), the same on every rank.
	case $srun_st in
	0 | 4) echo "ok: srun -N 4 -n 32 rc --mesh exited $srun_st" ;;
	*) pp_expect_status "$srun_st" 0 "srun -N 4 -n 32 rc --mesh" ;;
	esac
	# shellcheck disable=SC2046 # 32 words
	statuses $(for _ in {1..32}; do echo "$srun_st"; done)
	pp_indent '    r0.err: ' "$d/r0.err"
	mesh_check --ranks 32 --all-ok --json "$d/r0.out" --svg "$d/mesh.svg" --rounds 31 \
		--hosts "$(IFS=,; echo "${pp_nodes[*]}")" --per-host 8 \
		--no-verdict nic:failing --no-verdict host:failing --no-verdict link:failing
	;;
*)
	echo "FAIL: unknown case $case_"
	exit 1
	;;
esac
pp_finish
