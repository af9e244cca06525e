#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark our tools against rdma-core's ibv_*_pingpong and perftest's
# ib_send_lat, and write the results as a report and a plot.
#
# Usage: tests/bench/bench.sh [--out DIR] [--quick] [--from RAW]
#
# Runs tests/bench/inside.sh where an RDMA device exists (through
# tests/softroce/guest.sh: the Soft-RoCE guest, or the host's own NIC),
# collects its PPBENCH lines from stdout, and writes DIR/benchmarks.md and
# DIR/benchmarks.png (DIR: docs/ of the tree). --quick is a smoke test: one
# run per tool and size, short runs, results in a temporary directory unless
# --out is given. --from RAW skips the measurement and reports the output of
# an earlier inside.sh run saved in RAW (every run leaves its output in
# ${TMPDIR:-/tmp}/pp-bench-last.raw; a benchmarks.md also works). Takes 10-15 minutes on a quiet
# 2-core machine.
#
# Environment:
#   PP_BIN  build directory of our tools (default: build-bench/ of the tree,
#           configured and built here)
#   PP_BENCH_*  passed through to inside.sh (see its header)
#   PP_BENCH_TIMEOUT  --timeout of guest.sh in seconds (default 1500)
#   PP_BENCH_NOTE  one more line for the report (where PP_BIN came from, ...)
#   PP_BENCH_WAIT_QUIET  wait up to this many seconds for other emulated
#           guests (qemu-system) on this machine to end first (default 0);
#           they compete for the CPUs and inflate every figure
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=
out_given=0
quick=0
from=
while (($#)); do
	case $1 in
	--out)
		(($# >= 2)) || {
			echo "usage: $0 [--out DIR] [--quick] [--from RAW]" >&2
			exit 2
		}
		out=$2
		out_given=1
		shift 2
		;;
	--quick)
		quick=1
		shift
		;;
	--from)
		(($# >= 2)) || {
			echo "usage: $0 [--out DIR] [--quick] [--from RAW]" >&2
			exit 2
		}
		from=$(realpath -- "$2")
		shift 2
		;;
	*)
		echo "usage: $0 [--out DIR] [--quick] [--from RAW]" >&2
		exit 2
		;;
	esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/pp-bench-host.XXXXXX")
sampler=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[[ -z $sampler ]] || kill "$sampler" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

if ((quick)); then
	export PP_BENCH_REPS=${PP_BENCH_REPS:-1}
	export PP_BENCH_SECONDS=${PP_BENCH_SECONDS:-0.2}
	[[ -n $out ]] || out=$work/out
else
	[[ -n $out ]] || out=$root/docs
fi
mkdir -p "$out"

cd "$root"
built_here=
if [[ -z ${PP_BIN:-} && -z $from ]]; then
	built_here=1
	PP_BIN=$root/build-bench
	echo "bench: building $PP_BIN"
	if ! {
		cmake -S "$root" -B "$PP_BIN" &&
			cmake --build "$PP_BIN" -j"$(nproc)"
	} >"$work/build.log" 2>&1; then
		tail -n 20 "$work/build.log"
		exit 1
	fi
fi
export PP_BIN=${PP_BIN:-}
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null |
	wc -l)
provenance="built here from commit $commit$( ((dirty == 0)) || echo ", with uncommitted changes")"
[[ -n $built_here ]] ||
	provenance="in $PP_BIN, built by the caller (the tree is at commit $commit$( ((dirty == 0)) || echo ", with uncommitted changes"))"

# gnuplot draws the plot; install it once, quietly, if it is missing.
if ! command -v gnuplot >/dev/null; then
	echo "bench: installing gnuplot-nox"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox \
		>"$work/apt.log" 2>&1 || echo "bench: no gnuplot; no plot"
fi

# Other emulated guests on this machine slow ours down: wait for them if
# asked, and count them every 5 s while we run, so the report can say so.
quiet_wait=${PP_BENCH_WAIT_QUIET:-0}
waited=0
[[ -z $from ]] || quiet_wait=0
while ((waited < quiet_wait)) && pgrep -f '^qemu-system' >/dev/null; do
	((waited % 60)) || echo "bench: waiting for other guests to end"
	sleep 5
	waited=$((waited + 5))
done
(
	while :; do
		pgrep -c -f '^qemu-system' || true
		sleep 5
	done
) >"$work/guests" 2>/dev/null &
sampler=$!

# The command, as it can be typed again.
command="PP_BIN=$(printf '%q' "${PP_BIN/#$root\//}")"
while IFS= read -r var; do
	command+=" $var=$(printf '%q' "${!var}")"
done < <(compgen -e | grep '^PP_BENCH_' | sort)
command+=" tests/bench/bench.sh"
((out_given == 0)) || command+=" --out ${out/#$root\//}"
((quick == 0)) || command+=" --quick"

t0=$SECONDS
st=0
if [[ -n $from ]]; then
	cp -- "$from" "$work/raw"
else
	echo "bench: running tests/bench/inside.sh (this takes a while)"
	tests/softroce/guest.sh --timeout "${PP_BENCH_TIMEOUT:-1500}" \
		tests/bench/inside.sh >"$work/raw" 2>&1 || st=$?
	kill "$sampler" 2>/dev/null || true
	sampler=
	# What the host saw, with the results: --from reads it back.
	{
		echo "PPBENCH-INFO,host_status,$st"
		echo "PPBENCH-INFO,host_seconds,$((SECONDS - t0))"
		echo "PPBENCH-INFO,host_waited_seconds,$waited"
		echo "PPBENCH-INFO,host_guests_max,$(sort -n "$work/guests" | tail -n 1)"
		echo "PPBENCH-INFO,host_nproc,$(nproc)"
		echo "PPBENCH-INFO,host_cpu,$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
		echo "PPBENCH-INFO,host_kernel,$(uname -r)"
		echo "PPBENCH-INFO,host_binaries,$provenance"
		[[ -z ${PP_BENCH_NOTE:-} ]] || echo "PPBENCH-INFO,host_note,$PP_BENCH_NOTE"
		echo "PPBENCH-INFO,host_command,$command"
	} >>"$work/raw"
	# Kept for --from, should the report need to be made again.
	cp "$work/raw" "${TMPDIR:-/tmp}/pp-bench-last.raw"
	grep -v '^PPBENCH' "$work/raw" | sed 's/^/    /' || true
	((st == 0)) || echo "bench: inside.sh exited with $st; reporting what it measured"
fi
grep -q '^PPBENCH,' "$work/raw" || {
	echo "bench: no results"
	exit 1
}

info() {
	sed -n "s/^PPBENCH-INFO,$1,//p" "$work/raw" | tr -d '\r' | head -n 1
}

# RAW may hold several runs (the output of each, concatenated, for --from):
# their times add up, the other figures are the worst of them.
allinfo() {
	sed -n "s/^PPBENCH-INFO,$1,//p" "$work/raw" | tr -d '\r'
}
runs=$(allinfo host_seconds | wc -l)
started=$(allinfo date | paste -sd '+' | sed 's/+/ and /g')
took=$(allinfo host_seconds | awk '{ s += $1 } END { print s + 0 }')
guests=$(allinfo host_guests_max | sort -n | tail -n 1)
guests=${guests:-1}
st=$(allinfo host_status | sort -n | tail -n 1)
st=${st:-0}

# "MIN-MAX s (TR SIZE)": the shortest run, and the longest with what it ran
# (WALL, field 11, of the measured runs): the pilot only aims at a duration.
wall_range() {
	tr -d '\r' <"$work/raw" |
		awk -F, '$1 == "PPBENCH" && $2 != "pilot" && $11 != "" {
			if (n++ == 0 || $11 < lo) lo = $11
			if (n == 1 || $11 > hi) { hi = $11; what = $3 " at " $4 " bytes" }
		} END { if (n) printf "%s-%s s (the longest: %s)", lo, hi, what }'
}

# Per KIND,TRANSPORT,SIZE,WHO: median, min, max of FIELD over the runs that
# succeeded, as "KIND TR SIZE WHO ITERS N MEDIAN MIN MAX". Sorting does the
# work (POSIX awk has no sort); the median of an even count is the mean of
# the two middle runs.
summarise() {
	local field=$1
	tr -d '\r' <"$work/raw" |
		awk -F, -v f="$field" '$1 == "PPBENCH" && $2 != "pilot" &&
			$8 == 0 && $f != "" { print $2, $3, $4, $7, $5, $f }' |
		sort -k1,1 -k2,2 -k3,3n -k4,4 -k6,6g |
		awk '
		function flush() {
			if (n == 0)
				return
			if (n % 2)
				m = v[(n + 1) / 2]
			else
				m = (v[n / 2] + v[n / 2 + 1]) / 2
			print key, iters, n, m, v[1], v[n]
			n = 0
		}
		{
			k = $1 " " $2 " " $3 " " $4
			if (k != key)
				flush()
			key = k
			iters = $5
			v[++n] = $6
		}
		END { flush() }'
}

# perftest's X is "typical;avg": split it into two fields first.
tr -d '\r' <"$work/raw" |
	awk -F, -v OFS=, '$1 == "PPBENCH" && $7 == "perftest" {
		split($10, a, ";"); $9 = a[1]; $10 = a[2] } { print }' \
		>"$work/raw.split"
mv "$work/raw.split" "$work/raw"
summarise 9 >"$work/usec"   # usec/iter; perftest: t_typical
summarise 10 >"$work/x"     # ours: median RTT; perftest: t_avg
summarise 12 >"$work/post"  # ours: mean time inside ibv_post_send
summarise 13 >"$work/mean"  # ours: mean RTT
summarise 14 >"$work/spost" # ours: the server's mean in ibv_post_send

# pp_table TRANSPORT: the markdown table ours vs stock, and the plot data.
pp_table() {
	local tr=$1
	echo "| size (B) | -n | ours usec/iter | (min-max) | stock usec/iter | (min-max) | ours/stock | <= 0.95 |"
	echo "|---:|---:|---:|---|---:|---|---:|:---:|"
	awk -v tr="$tr" -v dat="$work/$tr.dat" '
		$1 == "pp" && $2 == tr { key = $3; size[key] = $3; it[key] = $5
			med[key, $4] = $7; lo[key, $4] = $8; hi[key, $4] = $9
			runs[key, $4] = $6 }
		END {
			for (k in size)
				order[++n] = k + 0
			for (i = 2; i <= n; i++)	# insertion sort, n is small
				for (j = i; j > 1 && order[j - 1] > order[j]; j--) {
					t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
				}
			for (i = 1; i <= n; i++) {
				k = order[i]
				o = med[k, "ours"]; s = med[k, "stock"]
				r = (o != "" && s != "" && s > 0) ? o / s : ""
				printf "| %d | %d | %s | %s | %s | %s | %s | %s |\n", k, it[k],
					o == "" ? "failed" : sprintf("%.2f", o),
					o == "" ? "" : sprintf("%.2f-%.2f", lo[k, "ours"], hi[k, "ours"]),
					s == "" ? "failed" : sprintf("%.2f", s),
					s == "" ? "" : sprintf("%.2f-%.2f", lo[k, "stock"], hi[k, "stock"]),
					r == "" ? "-" : sprintf("%.3f", r),
					r == "" ? "-" : (r <= 0.95 ? "yes" : "**no**")
				printf "%d %s %s\n", k, o == "" ? "NaN" : o,
					s == "" ? "NaN" : s >dat
			}
		}' "$work/usec"
}

# The table against ib_send_lat: our median round trip / 2 (and usec/iter /
# 2) against its t_typical (and t_avg).
lat_table() {
	echo "| size (B) | -n | ours median RTT/2 | ours usec/iter / 2 | ib_send_lat t_typical | t_avg | ours RTT/2 / t_typical | <= 1.0 |"
	echo "|---:|---:|---:|---:|---:|---:|---:|:---:|"
	awk -v dat="$work/lat.dat" '
		FNR == 1 { file++ }
		$1 == "lat" { key = $3; size[key] = 1; it[key] = $5
			if (file == 1) usec[key, $4] = $7; else x[key, $4] = $7 }
		END {
			for (k in size)
				order[++n] = k + 0
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && order[j - 1] > order[j]; j--) {
					t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
				}
			for (i = 1; i <= n; i++) {
				k = order[i]
				rtt = x[k, "ours"]; ui = usec[k, "ours"]
				typ = usec[k, "perftest"]; avg = x[k, "perftest"]
				r = (rtt != "" && typ != "" && typ > 0) ? rtt / 2 / typ : ""
				printf "| %d | %d | %s | %s | %s | %s | %s | %s |\n", k, it[k],
					rtt == "" ? "failed" : sprintf("%.2f", rtt / 2),
					ui == "" ? "failed" : sprintf("%.2f", ui / 2),
					typ == "" ? "failed" : sprintf("%.2f", typ),
					avg == "" ? "-" : sprintf("%.2f", avg),
					r == "" ? "-" : sprintf("%.3f", r),
					r == "" ? "-" : (r <= 1.0 ? "yes" : "**no**")
				printf "%d %s %s\n", k, rtt == "" ? "NaN" : rtt / 2,
					typ == "" ? "NaN" : typ >dat
			}
		}' "$work/usec" "$work/x"
}

# What bounds the ratios: for each ping-pong row, how much of our mean round
# trip is spent inside ibv_post_send() (the call both tools make, once per
# message: on rxe the doorbell write() and the protocol work), what is left
# outside it, what a 0.95 ratio would need cut, and how far the stock tool's
# own runs spread.
bound_table() {
	echo "| transport | size (B) | ours mean RTT | client in ibv_post_send | share | outside it | server in ibv_post_send | cut for 0.95 | stock max/min |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	awk '
		FNR == 1 { file++ }
		$1 != "pp" { next }
		{ key = $2 " " $3; seen[key] = 1; tr[key] = $2; sz[key] = $3 }
		file == 1 { usec[key, $4] = $7; lo[key, $4] = $8; hi[key, $4] = $9 }
		file == 2 && $4 == "ours" { post[key] = $7 }
		file == 3 && $4 == "ours" { mean[key] = $7 }
		file == 4 && $4 == "ours" { spost[key] = $7 }
		END {
			split("rc uc srq srq1 ud", trs, " ")
			for (t = 1; t <= 5; t++) {
				n = 0
				for (k in seen)
					if (tr[k] == trs[t])
						order[++n] = sz[k] + 0
				for (i = 2; i <= n; i++)
					for (j = i; j > 1 && order[j - 1] > order[j]; j--) {
						x = order[j]; order[j] = order[j - 1]; order[j - 1] = x
					}
				for (i = 1; i <= n; i++) {
					k = trs[t] " " order[i]
					m = mean[k]; p = post[k]
					if (m == "" || p == "" || m <= 0)
						continue
					o = usec[k, "ours"]; st = usec[k, "stock"]
					cut = (o != "" && st != "") ? o - 0.95 * st : ""
					spread = (lo[k, "stock"] > 0) ? hi[k, "stock"] / lo[k, "stock"] : ""
					printf "| %s | %d | %.2f | %.2f | %.0f%% | %.2f | %s | %s | %s |\n",
						trs[t] == "srq1" ? "srq -q 1" : trs[t], order[i], m, p,
						100 * p / m, m - p,
						spost[k] == "" ? "-" : sprintf("%.2f", spost[k]),
						cut == "" ? "-" : (cut <= 0 ? "none" : sprintf("%.2f", cut)),
						spread == "" ? "-" : sprintf("%.2f", spread)
				}
			}
		}' "$work/usec" "$work/post" "$work/mean" "$work/spost"
}

for t in rc uc srq srq1 ud; do
	pp_table "$t" >"$work/$t.md"
done
bound_table >"$work/bound.md"
lat_table >"$work/lat.md"

# panel DAT TITLE YLABEL OURS STOCK: one plot of the multiplot, or a
# "not measured" placeholder when DAT has no rows.
panel() {
	echo "set title \"$2\""
	echo "set ylabel \"$3\""
	if [[ -s $1 ]]; then
		echo "plot \"$1\" u 1:2 w lp t \"$4\", \"\" u 1:3 w lp t \"$5\""
	else
		echo 'set label 1 "not measured" at graph 0.5, 0.5 center'
		echo 'plot [1:10] [1:10] NaN notitle'
		echo 'unset label 1'
	fi
}

plot=no
if command -v gnuplot >/dev/null; then
	rtt="usec/iter (round trip)"
	{
		echo 'set terminal pngcairo noenhanced size 1200,800 font ",10"'
		echo "set output \"$out/benchmarks.png\""
		echo 'set multiplot layout 2,3 title "Soft-RoCE (rxe, software emulation): median of runs, lower is better"'
		echo 'set logscale xy'
		echo 'set grid'
		echo 'set key top left'
		echo 'set xlabel "message size (bytes)"'
		panel "$work/rc.dat" "RC: rc_pingpong vs ibv_rc_pingpong" "$rtt" ours stock
		panel "$work/uc.dat" "UC: rc_pingpong --uc vs ibv_uc_pingpong" "$rtt" ours stock
		panel "$work/srq.dat" "SRQ -q $(info srq_qps): srq_pingpong vs ibv_srq_pingpong" "$rtt" ours "stock (pipelined)"
		panel "$work/srq1.dat" "SRQ -q 1: srq_pingpong vs ibv_srq_pingpong" "$rtt" ours stock
		panel "$work/ud.dat" "UD: ud_pingpong vs ibv_ud_pingpong" "$rtt" ours stock
		panel "$work/lat.dat" "one way: rc_pingpong RTT/2 vs ib_send_lat" "usec (median, one way)" "ours RTT/2" "ib_send_lat t_typical"
		echo 'unset multiplot'
	} >"$work/plot.gp"
	if gnuplot "$work/plot.gp" >"$work/gnuplot.log" 2>&1; then
		plot=yes
	else
		echo "bench: gnuplot failed:"
		tail -n 5 "$work/gnuplot.log"
	fi
fi

# The report.
{
	cat <<EOF
<!-- Generated by tests/bench/bench.sh: do not edit, run it again. -->
# Benchmarks: our tools against rdma-core and perftest

Generated by \`tests/bench/bench.sh\` on $started (took $((took / 60)) min
$((took % 60)) s). Our binaries: $(info host_binaries).
$(info host_note)

**Read this first.** These figures come from Soft-RoCE (rxe), a software
RDMA device, in a QEMU guest under software emulation (TCG), not from an
RDMA NIC. A round trip here costs tens to thousands of microseconds of
emulated CPU work, so only the ratios *within this run* mean anything, and
they say how much CPU each tool's loop costs rather than what a NIC would
do. See [measurement.md](measurement.md) for how the tools measure.

## How it was measured

- Machine: $(info host_nproc) host CPUs ($(info host_cpu)),
  host kernel $(info host_kernel); guest: $(info nproc) vCPUs "$(info cpu)",
  kernel $(info kernel), device $(info device), GID index $(info gid),
  active MTU $(info mtu). rdma-core (ibverbs-utils) $(info rdma_core),
  perftest $(info perftest).
- Emulated guests running on the machine at once (ours included): at most
  $guests (after waiting $(info host_waited_seconds) s for others to end)$( ((guests <= 1)) || echo " — **other guests competed for the CPUs during this run, which slows every tool and widens the spread; ratios are still paired run by run, absolute figures are inflated**").
- Both ends on the same device (\`rxe0\`), the TCP exchange over 127.0.0.1.
  For each transport and size, a short pilot run of the stock tool fixes
  \`-n\`, aiming at about $(info target_seconds) s per run; a pilot of a few
  iterations misjudges some cases, and ours may take longer than the stock
  tool, so the runs took $(wall_range) (WALL in the raw data); then our tool
  and the stock one run alternately (ours, stock, ours, ...), $(info reps)
  times each, with the same \`-s\`, \`-n\`, \`-r $(info rx_depth)\` (and
  \`-q $(info srq_qps)\` for SRQ). Our server gets only \`-d\` and \`-p\` (it
  adopts the client's parameters); the stock server gets the client's
  options. Every run uses a fresh TCP port. CPU pinning (taskset), the
  same for every tool: $(pin=$(info pin); echo "${pin:-no (not recorded)}").
- The figure compared is the client's \`N iters in T seconds = X usec/iter\`
  line, which both tools print: wall time of the loop divided by the
  iterations, one iteration being one round trip. The table gives the
  median over the runs and the range (min-max).
- Against perftest: \`ib_send_lat -d rxe0 -x 1 -s SIZE -n N -F\` on both
  sides reports one-way latency (half a round trip); its \`t_typical\` is
  the median. We compare the median round trip of our \`latency usec:\` line,
  halved.
- The goal: ours <= 0.95 x stock usec/iter at every size for RC,
  UC, SRQ and UD (up to the MTU), and our RTT/2 <= \`ib_send_lat\`'s
  \`t_typical\` from 2 to 4096 bytes.

Command:

\`\`\`sh
EOF
	allinfo host_command
	((runs <= 1)) || echo "# then, the $runs outputs concatenated into one file: tests/bench/bench.sh --from FILE"
	cat <<EOF
\`\`\`

## Reading the ratios

- On Soft-RoCE every verb and every packet is CPU work in the guest's
  kernel, and here the CPU itself is emulated. Client, server and rxe's
  kernel work share the guest's two virtual CPUs, so a tool's figure
  depends on how it shares them: a loop that spins harder can delay the
  kernel work its own messages need. A ratio says which tool costs less on
  this set-up; it does not predict a NIC, where the device does that work.
- When the two ranges (min-max) overlap widely, the ratio of the medians is
  not resolved: run again, on a quiet machine, before reading anything
  into it.
- \`usec/iter\` is total time / iterations: one stall (the guest's vCPU
  not scheduled by the host, a page fault) weighs on it in full. Our
  \`latency usec:\` median is robust to stalls; the perftest table uses it.
- SRQ with \`-q 16\`: the stock tool has 16 messages in flight, ours one,
  so that table compares a pipeline with a latency; the \`-q 1\` table is
  the like-for-like one.

## RC: rc_pingpong vs ibv_rc_pingpong

$(cat "$work/rc.md")

## UC: rc_pingpong --uc vs ibv_uc_pingpong

$(cat "$work/uc.md")

## SRQ: srq_pingpong vs ibv_srq_pingpong

$(cat "$work/srq.md")

## SRQ with -q 1 on both sides

ibv_srq_pingpong keeps one message in flight per QP (16 with \`-q 16\`),
so its usec/iter above is a pipelined figure, while ours keeps one message
in flight in all. With one QP both measure a round trip:

$(cat "$work/srq1.md")

## UD: ud_pingpong vs ibv_ud_pingpong (up to the MTU)

$(cat "$work/ud.md")

## One-way latency: rc_pingpong vs ib_send_lat

$(cat "$work/lat.md")

## What bounds the ratios

Both tools post each message with one \`ibv_post_send()\` of the same kind
of work request (one SGE, signaled, inline where it fits; ours also
carries 4 bytes of immediate data, the message number). On Soft-RoCE that
call is a \`write()\` to the kernel, in which rxe builds the packets,
computes their ICRC, loops them back to the peer's QP, places the data,
writes the peer's receive completion and, on RC, takes the ACK back: the
protocol work a NIC would do, on the emulated CPU, the same for both
tools. Our tools time
that call (\`post_send usec:\`, docs/measurement.md). Per row, medians over
our runs of: our mean round trip; the client's mean time inside
\`ibv_post_send()\`; its share of the round trip; what is left outside it
(our loop, our polling, and the wait for the server's reply); the server's
mean time inside its own \`ibv_post_send()\` of the reply; the usec/iter
our median would have to lose to reach 0.95 x the stock median; and the
stock tool's own spread over its runs (slowest / fastest usec/iter):

$(cat "$work/bound.md")

The two calls can overlap (rxe may run one side's packet while the other
side is still in its call), so they may add up to more than the round
trip. Where the client's share is high, or where what is left outside its
call is about the server's call, what any tool's loop controls is the
small rest, and part of that is waiting, not work. Where the cut for 0.95
is not far below the stock tool's own run-to-run spread, the ratio is
decided by the test bed's noise, not by the loops.

EOF
	if [[ $plot == yes ]]; then
		echo '![latency against message size, ours and stock](benchmarks.png)'
		echo
	fi
	# Skipped in one run but measured in another (several runs in RAW) is
	# not skipped.
	sk=$(sed -n 's/^PPBENCH-INFO,skipped,//p' "$work/raw" |
		while read -r t z _; do
			if [[ $t == lat ]]; then
				re="^PPBENCH,lat,rc,$z,"
			else
				re="^PPBENCH,pp,$t,$z,"
			fi
			grep -q "$re" "$work/raw" || echo "$t $z B"
		done)
	fails=$(awk -F, '$1 == "PPBENCH" && $8 != 0' "$work/raw" | wc -l)
	if [[ -n $sk || $fails != 0 || $st != 0 ]]; then
		echo "## Incomplete"
		echo
		((st == 0)) || echo "- inside.sh exited with status $st."
		[[ $fails == 0 ]] || echo "- $fails runs failed (status column of the raw data; a failed run is left out of the medians)."
		[[ -z $sk ]] || echo "- Skipped for lack of time (PP_BENCH_BUDGET): $(echo "$sk" | paste -sd, - | sed 's/,/, /g')."
		echo
	fi
	cat <<'EOF'
## Raw data

One line per run:
`PPBENCH,KIND,TRANSPORT,SIZE,ITERS,REP,WHO,STATUS,A,B,WALL,POST,MEAN,SPOST`.
KIND `pilot` runs only choose `-n`. A is the usec/iter figure, B our median
round trip in usec (empty for the stock tools); for `perftest`, A and B are
`ib_send_lat`'s `t_typical` and `t_avg` (one way). STATUS 0 is success;
WALL is the seconds the run took, start-up included. POST, MEAN and
SPOST are ours only: the client's mean time inside `ibv_post_send()`, its
mean round trip, and the server's mean time inside `ibv_post_send()`, in
usec.

```
EOF
	grep '^PPBENCH' "$work/raw" | tr -d '\r'
	echo '```'
} >"$work/benchmarks.md"
# The sections other scripts write (tests/bench/icount.sh, walltime.sh) are
# kept, after ours.
if [[ -f $out/benchmarks.md ]]; then
	sed -n '/^<!-- \(icount\|walltime\):begin -->$/,/^<!-- \(icount\|walltime\):end -->$/p' \
		"$out/benchmarks.md" >"$work/keep"
	if [[ -s $work/keep ]]; then
		echo >>"$work/benchmarks.md"
		cat "$work/keep" >>"$work/benchmarks.md"
	fi
fi
mv "$work/benchmarks.md" "$out/benchmarks.md"

echo "bench: wrote $out/benchmarks.md$([[ $plot == no ]] || echo " and $out/benchmarks.png") in $((took / 60)) min $((took % 60)) s"
for t in rc uc srq srq1 ud lat bound; do
	echo "== $t"
	cat "$work/$t.md"
done
