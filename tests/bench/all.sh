#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# benchmarks.md from one run of one commit: every table and the plot.
#
# Usage: tests/bench/all.sh [--out DIR] [--from RAWDIR]
#
# Exports HEAD with git archive into a temporary directory, builds it there,
# and runs each part from that export in the Soft-RoCE guest, one after the
# other:
#   walltime  tests/bench/walltime.sh: the paired wall-clock tables (Send
#             rows, RDMA Write and Read), first in the report
#   pingpong  tests/bench/bench.sh: medians by message size, and the plot
#   icount    tests/bench/icount.sh: instructions per round trip (callgrind)
#   mesh      tests/bench/mesh.sh, when the tree has it: a whole --mesh
#             against its pairs (4 guests)
# Then writes DIR/benchmarks.md, DIR/benchmarks.png and each part's raw
# output, DIR/bench/PART.csv (default DIR: docs/ of the tree). Refuses to
# measure when tracked files differ from HEAD: the report names the commit
# it measured. --from RAWDIR makes the report again from such CSV files
# (and RAWDIR/run.csv), with no guest: the figures of that run, the text of
# this tree's scripts.
#
# Time: about 70 minutes on a quiet 2-core machine (build 1, walltime 9-14,
# pingpong 5, icount 35-40, mesh 6-10), with repetitions below the parts'
# own defaults (set here, each overridable): PP_WALL_PAIRS 16 (11 rows),
# PP_BENCH_REPS 3 and sizes up to 64 KiB with PP_BENCH_BUDGET 480 s.
# Each part's guest has a timeout (PP_WALL_TIMEOUT 900, PP_BENCH_TIMEOUT
# 900, PP_ICOUNT_TIMEOUT 3600 s, mesh.sh's own), and no part starts once
# PP_ALL_BUDGET seconds (default 4500) have gone (the first three parts
# take about 3,500 s here, the fourth must still start).
#
# Environment: PP_ALL_PARTS (default "walltime pingpong icount mesh";
# "none" builds and reports only), PP_ALL_BUDGET, PP_ALL_JOBS (the build's
# -j, default nproc), and the parts' variables (see each script's header).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$root/docs/dev
from=
usage() {
	echo "usage: $0 [--out DIR] [--from RAWDIR]" >&2
	exit 2
}
while (($#)); do
	case $1 in
	--out)
		(($# >= 2)) || usage
		out=$2
		shift 2
		;;
	--from)
		(($# >= 2)) || usage
		from=$(realpath -- "$2")
		shift 2
		;;
	*) usage ;;
	esac
done
mkdir -p "$out"
out=$(realpath -- "$out")
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-all.XXXXXX")
# shellcheck disable=SC2064 # $work is fixed now
trap "rm -rf '$work'" EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# PART SCRIPT RAW: the parts in the report's order; RAW is where the
# script leaves its raw output.
parts=(
	"walltime walltime.sh pp-walltime-last.raw"
	"pingpong bench.sh pp-bench-last.raw"
	"icount icount.sh pp-icount-last.raw"
	"mesh mesh.sh pp-mesh-last.raw"
)

# The measurement: one export, one build, every part, raw into $raw.
measure() {
	local raw=$1 src=$work/src t0=$SECONDS commit
	if [[ -n $(git -C "$root" status --porcelain --untracked-files=no) ]]; then
		echo "all: the tree has uncommitted changes; commit or stash them" \
			"first (the report names the commit it measured)" >&2
		exit 1
	fi
	commit=$(git -C "$root" rev-parse HEAD)
	# The command, as it can be typed again: the caller's settings first.
	local command='' var
	while IFS= read -r var; do
		command+="$var=$(printf '%q' "${!var}") "
	done < <(compgen -e | grep -E '^PP_(WALL|BENCH|ICOUNT|MESH_BENCH|ALL)_' | sort)
	command+="tests/bench/all.sh --out ${out/#$root\//}"
	mkdir -p "$src" "$raw" "$work/scratch"
	git -C "$root" archive HEAD | tar -x -C "$src"
	echo "all: building commit $commit in $src"
	if ! {
		cmake -S "$src" -B "$src/build" &&
			cmake --build "$src/build" -j"${PP_ALL_JOBS:-$(nproc)}"
	} >"$work/build.log" 2>&1; then
		tail -n 20 "$work/build.log"
		exit 1
	fi
	export PP_BIN=$src/build
	export PP_ALL_COMMIT=$commit # a part run alone names its commit itself
	export PP_WALL_PAIRS=${PP_WALL_PAIRS:-16}
	export PP_WALL_ROWS=${PP_WALL_ROWS:-rc:1 rc:4096 uc:1 ud:1 srq1:1 aa:1 write:1 write:4096 read:1 read:4096 aaw:1}
	export PP_WALL_TIMEOUT=${PP_WALL_TIMEOUT:-900}
	export PP_BENCH_REPS=${PP_BENCH_REPS:-3}
	export PP_BENCH_SIZES=${PP_BENCH_SIZES:-1 4096 65536}
	export PP_BENCH_BUDGET=${PP_BENCH_BUDGET:-480}
	export PP_BENCH_TIMEOUT=${PP_BENCH_TIMEOUT:-900}
	export PP_ICOUNT_TIMEOUT=${PP_ICOUNT_TIMEOUT:-3600}
	export PP_ICOUNT_RSS_SECONDS=${PP_ICOUNT_RSS_SECONDS:-20}
	{
		echo "PPRUN-INFO,commit,$commit"
		echo "PPRUN-INFO,date,$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "PPRUN-INFO,host_nproc,$(nproc)"
		echo "PPRUN-INFO,host_cpu,$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
		echo "PPRUN-INFO,host_kernel,$(uname -r)"
	} >"$raw/run.csv"
	local p name script last st stamp=$work/stamp
	for p in "${parts[@]}"; do
		read -r name script last <<<"$p"
		[[ " ${PP_ALL_PARTS:-walltime pingpong icount mesh} " == *" $name "* ]] ||
			continue
		[[ -f $src/tests/bench/$script ]] || continue
		if ((SECONDS - t0 > ${PP_ALL_BUDGET:-4500})); then
			echo "PPRUN-INFO,part,$name,skipped (over PP_ALL_BUDGET),0" >>"$raw/run.csv"
			continue
		fi
		echo "all: $name (tests/bench/$script)"
		touch "$stamp"
		local p0=$SECONDS
		st=0
		(cd "$src" && bash "tests/bench/$script" --out "$work/scratch/part.md") || st=$?
		echo "PPRUN-INFO,part,$name,$st,$((SECONDS - p0))" >>"$raw/run.csv"
		last=${TMPDIR:-/tmp}/$last
		if [[ -f $last && $last -nt $stamp ]]; then
			grep -a '^PP' "$last" | tr -d '\r' >"$raw/$name.csv" || true
		fi
	done
	echo "PPRUN-INFO,seconds,$((SECONDS - t0))" >>"$raw/run.csv"
	echo "PPRUN-INFO,command,$command" >>"$raw/run.csv"
}

# The report: benchmarks.md of the CSV files in RAW.
report() {
	local raw=$1 doc=$work/benchmarks.md p name script last
	runinfo() {
		sed -n "s/^PPRUN-INFO,$1,//p" "$raw/run.csv" | head -n 1
	}
	# guest FIELD: the first part's record of the guest's FIELD.
	guest() {
		cat "$raw"/*.csv | tr -d '\r' |
			sed -n "s/^PP[A-Z]*-INFO,$1,//p" | head -n 1
	}
	[[ -f $raw/run.csv ]] || {
		echo "all: no run.csv in $raw" >&2
		exit 1
	}
	local took
	took=$(runinfo seconds)
	took=${took:-0}
	{
		cat <<EOF
<!-- Generated by tests/bench/all.sh: do not edit, run it again. -->
# Benchmarks: our tools against rdma-core and perftest

This page is for contributors: how the tools' costs compare with the stock
tools' on the test bed, and how that is measured.

Every table and the plot on this page come from one run,
\`$(runinfo command)\`, of commit \`$(runinfo commit)\`, built from a
clean export of that commit, on $(runinfo date | cut -d " " -f 1), in $((took / 60)) min
$((took % 60)) s. The raw output of each part is beside this page, in
[bench/](bench/).

**Read this first.** These figures come from Soft-RoCE (rxe), a software
RDMA device, in a QEMU guest under software emulation (TCG), not from an
RDMA NIC. A round trip here costs tens to thousands of microseconds of
emulated CPU work, so only the ratios *within this run* mean anything, and
they say how much CPU each tool's loop costs rather than what a NIC would
do. See [measurement.md](../measurement.md) for how the tools measure.
Our tools run with \`PP_CLOCK=cycles\`: the guest's emulated CPU has no
\`constant_tsc\`, and without it they would time with \`CLOCK_MONOTONIC\`,
a system call on this guest, as a host with an invariant TSC does not
([measurement.md](../measurement.md#the-clock)).

- Host: $(runinfo host_nproc) CPUs ($(runinfo host_cpu)), kernel
  $(runinfo host_kernel).$([[ -z $(guest kernel) ]] || echo "
- Guest: kernel $(guest kernel)$([[ -z $(guest nproc) ]] || echo ", $(guest nproc) vCPUs \"$(guest cpu)\"")$([[ -z $(guest rdma_core) ]] || echo "; rdma-core (ibverbs-utils) $(guest rdma_core), perftest $(guest perftest)").")
- The repetitions are fewer than each part's defaults, so that the whole
  run takes under an hour; each section gives its own (pairs, runs, round
  trips).
EOF
		local bad
		bad=$(sed -n 's/^PPRUN-INFO,part,//p' "$raw/run.csv" |
			awk -F, '$2 != 0 { printf "%s%s (%s)", n++ ? ", " : "", $1,
				$2 ~ /^[0-9]+$/ ? "exited with status " $2 : $2 }')
		[[ -z $bad ]] || echo "- Incomplete: $bad."
		echo
		for p in "${parts[@]}"; do
			read -r name script last <<<"$p"
			case $name in
			walltime) set -- walltime walltime-ops ;;
			icount) set -- icount icount-ops icount-server ;;
			*) set -- "$name" ;;
			esac
			for m; do
				printf '<!-- %s:begin -->\n<!-- %s:end -->\n\n' "$m" "$m"
			done
		done
	} >"$doc"
	for p in "${parts[@]}"; do
		read -r name script last <<<"$p"
		[[ -f $raw/$name.csv ]] || continue
		if [[ ! -f $root/tests/bench/$script ]]; then
			echo "all: $raw/$name.csv, but no tests/bench/$script to report it" >&2
			continue
		fi
		bash "$root/tests/bench/$script" --from "$raw/$name.csv" --out "$doc" >/dev/null
	done
	# Sections a part did not fill go.
	python3 - "$doc" <<'PY'
import re
import sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r"<!-- ([a-z-]+):begin -->\n<!-- \1:end -->\n\n?", "", s)
open(p, "w").write(s.rstrip("\n") + "\n")
PY
	{
		cat <<'EOF'

## Raw data

One file per part in [bench/](bench/), one record per line, its first
field the record's kind; `*-INFO` records describe the run (`run.csv`:
the commit, the host, each part's exit status and seconds).

EOF
		[[ ! -f $raw/walltime.csv ]] || cat <<'EOF'
- `walltime.csv`: `PPWALL,ROW,PAIR,WHO,STATUS,FIGURE`, WHO `a` (ours,
  or the first of an A/A row) or `b`; FIGURE the run's usec/iter (for
  Write and Read, the figure described in that section).
EOF
		[[ ! -f $raw/pingpong.csv ]] || cat <<'EOF'
- `pingpong.csv`: `PPBENCH,KIND,TRANSPORT,SIZE,ITERS,REP,WHO,STATUS,A,B,WALL,POST,MEAN,SPOST`.
  KIND `pilot` runs only choose `-n`. A is the usec/iter figure, B our
  median round trip in usec; for `perftest`, B is `ib_send_lat`'s
  `t_typical;t_avg` (one way). STATUS 0 is success; WALL the
  seconds the run took, start-up included. POST, MEAN and SPOST are ours
  only: the client's mean time inside `ibv_post_send()`, its mean round
  trip, and the server's mean time inside `ibv_post_send()`, in usec.
EOF
		[[ ! -f $raw/icount.csv ]] || cat <<'EOF'
- `icount.csv`: `PPICOUNT,WHO:TRANSPORT:SIZE,TOTAL,LOOP,AFTER,OWN,VERBS,LIBC,OTHER,POLLS,POLLCOST`,
  instructions per round trip; `PPICOUNT-FN` our own code by function,
  `PPICOUNT-POLL` the calibration of an empty poll, `PPICOUNT-LOOK` that
  of a Write client's look at memory
  (`PPICOUNT-LOOK,LABEL,EXTRA,LOOKS,COST,COST_OWN`), `PPRSS` resident
  memory.
EOF
		[[ ! -f $raw/mesh.csv ]] ||
			echo "- \`mesh.csv\`: the records of \`tests/bench/mesh.sh\` (see its header)."
		echo
		echo "Made again from these files, with no guest: \`tests/bench/all.sh --from docs/dev/bench --out docs/dev\`."
	} >>"$doc"
	mv "$doc" "$out/benchmarks.md"
	if [[ -f $work/benchmarks.png ]]; then
		mv "$work/benchmarks.png" "$out/benchmarks.png"
	else
		rm -f "$out/benchmarks.png"
	fi
	# Only this script's files: bench/ also holds others' (mesh-scale.sh's
	# mesh-scale.csv).
	if [[ $raw != "$out/bench" ]]; then
		mkdir -p "$out/bench"
		for p in run "${parts[@]%% *}"; do
			rm -f "$out/bench/$p.csv"
			[[ ! -f $raw/$p.csv ]] || cp -- "$raw/$p.csv" "$out/bench/"
		done
	fi
	echo "all: wrote $out/benchmarks.md$([[ ! -f $out/benchmarks.png ]] || echo ", benchmarks.png") and $out/bench/"
}

if [[ -n $from ]]; then
	report "$from"
else
	measure "$work/raw"
	report "$work/raw"
fi
