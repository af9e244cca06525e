#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# mesh-inside.sh: the measurements of tests/bench/mesh.sh, on the bed of 4
# hosts with Slurm (guest.sh --hosts 4); host A launches, the others idle.
# For each N of PP_MESH_BENCH_N (default "4 8 16") ranks, N/4 per guest
# (srun -N 4 -n N), three ways to run every pair of the N ranks with
# rc_pingpong -e -n PP_MESH_BENCH_ITERS (default 20; -e: a process sleeps on
# its completion channel, as up to four ranks share a guest's one vCPU):
#   mesh    --mesh: N-1 rounds of N/2 pairs at once
#   serial  --mesh --mesh-serial: the same pairs one at a time
#   loop    a shell loop over the pairs, each pair a plain server and client
#           started by one srun -w --multi-prog on the two ranks' hosts, as a
#           script over the pairs would
# Prints "PPMESH,N,WAY,SECONDS,PAIRS" lines: wall seconds from the first
# process to the last (mesh, serial: srun's; loop: the whole loop).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/../e2e/lib.sh"

pp_mesh_need
[[ $PP_ROLE == A ]] || exit 0
rc=$(pp_bin rc_pingpong)
iters=${PP_MESH_BENCH_ITERS:-20}
port=$PP_PORT
s= # wall's result

# wall SECONDS-VAR CMD...: run CMD, its wall time in seconds (3 decimals).
wall() {
	local var=$1 t0 st=0
	shift
	t0=$(pp_now_ms)
	"$@" || st=$?
	printf -v "$var" '%d.%03d' $((($(pp_now_ms) - t0) / 1000)) $((($(pp_now_ms) - t0) % 1000))
	return "$st"
}

# loop N: every pair of N ranks (block distribution over the 4 hosts), one
# after another, each one srun of a plain server and client on the two
# ranks' hosts (--multi-prog: task 0, the server, on the first host in
# Slurm's order, which is the lower rank's; the client retries its connect
# until the server listens), as a script over the pairs would.
loop() {
	local n=$1 per=$(($1 / 4)) i j hi hj conf=$PP_MEET/pair.conf w nn
	for ((i = 0; i < n; i++)); do
		for ((j = i + 1; j < n; j++)); do
			hi=${pp_nodes[i / per]} hj=${pp_nodes[j / per]}
			port=$((port + 1))
			printf '0 %s -d %s -p %d -e -n %d\n1 %s -d %s -p %d -e -n %d %s\n' \
				"$rc" "$PP_DEV" "$port" "$iters" "$rc" "$PP_DEV" "$port" "$iters" "$hi" >"$conf"
			w=$hi nn=1
			[[ $hj == "$hi" ]] || w+=",$hj" nn=2
			srun -w "$w" -N "$nn" -n 2 \
				--overcommit --multi-prog "$conf" >/dev/null 2>&1 ||
				echo "loop: pair $i-$j failed" >&2
		done
	done
}

for n in ${PP_MESH_BENCH_N:-4 8 16}; do
	pairs=$((n * (n - 1) / 2))
	for way in mesh serial; do
		opts=()
		[[ $way == mesh ]] || opts=(--mesh-serial)
		port=$((port + 100))
		wall s srun -N 4 -n "$n" -o "$PP_MEET/$way.$n.%t" "$rc" --mesh \
			-d "$PP_DEV" -p "$port" -e -n "$iters" "${opts[@]}" ||
			echo "$way $n: srun exited $?" >&2
		tail -n 1 "$PP_MEET/$way.$n.0" >&2
		echo "PPMESH,$n,$way,$s,$pairs"
	done
	port=$((port + 100))
	wall s loop "$n"
	echo "PPMESH,$n,loop,$s,$pairs"
	port=$((port + pairs))
done
echo "PPMESH-INFO,kernel,$(uname -r)"
