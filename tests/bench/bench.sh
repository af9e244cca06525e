#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Our tools against rdma-core's ibv_*_pingpong and perftest's ib_send_lat:
# the medians of alternated runs by message size, the section "pingpong"
# of benchmarks.md and its plot; one part of tests/bench/all.sh, which makes
# benchmarks.md from one run.
#
# Usage: tests/bench/bench.sh [--out FILE] [--from RAW] [--quick]
#
# Runs tests/bench/inside.sh in the Soft-RoCE guest (through
# tests/softroce/guest.sh), collects its PPBENCH lines from stdout, and
# writes the section between the markers "<!-- pingpong:begin -->" and
# "<!-- pingpong:end -->" of FILE (default docs/dev/benchmarks.md; appended when
# the markers are missing) and the plot benchmarks.png beside FILE. --from
# RAW reports the output of an earlier run saved in RAW (every run leaves it
# in ${TMPDIR:-/tmp}/pp-bench-last.raw). --quick is a smoke test: one run
# per tool and size, short runs, FILE in a new temporary directory unless
# --out is given. 10-15 minutes with the defaults on a quiet 2-core machine.
#
# Environment:
#   PP_BIN  build directory of our tools (default build/ of the tree)
#   PP_BENCH_*  passed through to inside.sh (see its header)
#   PP_BENCH_TIMEOUT  --timeout of guest.sh in seconds (default 1500)
#   PP_BENCH_WAIT_QUIET  wait up to this many seconds for other emulated
#           guests (qemu-system) on this machine to end first (default 0);
#           they compete for the CPUs and inflate every figure
set -euo pipefail

# shellcheck source=tests/bench/host-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/host-lib.sh"
quick=0
args=()
out_given=0
for arg in "$@"; do
	case $arg in
	--quick) quick=1 ;;
	--out) out_given=1 args+=("$arg") ;;
	*) args+=("$arg") ;;
	esac
done
# shellcheck disable=SC2154 # root, out, from, work: set by bench_host_init
bench_host_init bench ${args[@]+"${args[@]}"}
if ((quick)); then
	export PP_BENCH_REPS=${PP_BENCH_REPS:-1}
	export PP_BENCH_SECONDS=${PP_BENCH_SECONDS:-0.2}
	((out_given)) ||
		out=$(mktemp -d "${TMPDIR:-/tmp}/pp-bench-quick.XXXXXX")/benchmarks.md
fi
mkdir -p "$(dirname -- "$out")"
png=$(dirname -- "$out")/benchmarks.png
if [[ -z $from && ! -x $PP_BIN/rc_pingpong/rc_pingpong ]]; then
	echo "bench: no tools in $PP_BIN (build first, or set PP_BIN)" >&2
	exit 1
fi
sampler=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[[ -z $sampler ]] || kill "$sampler" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# gnuplot draws the plot; a measuring run installs it once, quietly, if
# it is missing (a report --from goes without the plot).
if [[ -z $from ]] && ! command -v gnuplot >/dev/null; then
	echo "bench: installing gnuplot-nox"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox \
		>"$work/apt.log" 2>&1 || echo "bench: no gnuplot; no plot"
fi

t0=$SECONDS
st=0
waited=0
if [[ -n $from ]]; then
	cp -- "$from" "$work/raw"
else
	# Other emulated guests on this machine slow ours down: wait for them
	# if asked, and count them every 5 s while we run, so the report can
	# say so.
	while ((waited < ${PP_BENCH_WAIT_QUIET:-0})) &&
		pgrep -f '^qemu-system' >/dev/null; do
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
took=$(info host_seconds)
took=${took:-0}
guests=$(info host_guests_max)
guests=${guests:-1}
st=$(info host_status)
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

# perftest's X is "typical;avg": split it into two fields first (raw data
# printed by an older report is split already).
tr -d '\r' <"$work/raw" |
	awk -F, -v OFS=, '$1 == "PPBENCH" && $7 == "perftest" && $10 ~ /;/ {
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
		echo "set output \"$png\""
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

# The section.
{
	cat <<EOF
<!-- pingpong:begin -->
## Medians by message size

Made by \`tests/bench/bench.sh\` in $((took / 60)) min $((took % 60)) s.

- Both ends on the same device ($(info device), GID index $(info gid),
  active MTU $(info mtu)), the TCP exchange over 127.0.0.1. Emulated
  guests running on the machine at once (ours included): at most
  $guests$( ((guests <= 1)) || echo " (**other guests competed for the CPUs: every figure is inflated and the spread wider; the ratios are still paired run by run**)").
- For each transport and size, a short pilot run of the stock tool fixes
  \`-n\`, aiming at about $(info target_seconds) s per run; the runs took
  $(wall_range) (start-up included). Then our tool and the stock one run
  alternately (ours, stock, ours, ...), $(info reps) times each, with the
  same \`-s\`, \`-n\`, \`-r $(info rx_depth)\` (and \`-q $(info srq_qps)\`
  for SRQ). Our server gets only \`-d\` and \`-p\` (it adopts the
  client's parameters); the stock server gets the client's options.
  Every run uses a fresh TCP port. CPU pinning, the same for every tool:
  $(pin=$(info pin); echo "${pin:-none}").
- The figure compared is the client's \`N iters in T seconds = X
  usec/iter\` line, which both tools print: wall time of the loop over
  the iterations, one iteration being one round trip. The tables give the
  median over the runs and their range (min-max); *<= 0.95* says whether
  ours is at most 0.95 times the stock figure.
- Against perftest: \`ib_send_lat -d rxe0 -x 1 -s SIZE -n N -F\` on both
  sides reports one-way latency (half a round trip); its \`t_typical\` is
  the median. Ours is the median round trip of the \`latency usec:\`
  line, halved.

Reading the ratios:

- Client, server and rxe's kernel work share the guest's two virtual
  CPUs, so a tool's figure depends on how it shares them: a loop that
  spins harder can delay the kernel work its own messages need. A ratio
  says which tool costs less on this set-up, not what a NIC would do.
- When the two ranges overlap widely, the ratio of the medians is not
  resolved; the paired table above resolves it.
- \`usec/iter\` is total time / iterations: one stall (the guest's vCPU
  not scheduled by the host, a page fault) weighs on it in full. Our
  \`latency usec:\` median is robust to stalls; the perftest table uses it.
- SRQ with \`-q $(info srq_qps)\`: the stock tool has one message in
  flight per QP, ours one in all, so that table compares a pipeline with
  a latency; the \`-q 1\` table is the like-for-like one.

### RC: rc_pingpong vs ibv_rc_pingpong

$(cat "$work/rc.md")

### UC: rc_pingpong --uc vs ibv_uc_pingpong

$(cat "$work/uc.md")

### SRQ: srq_pingpong vs ibv_srq_pingpong

$(cat "$work/srq.md")

### SRQ with -q 1 on both sides

$(cat "$work/srq1.md")

### UD: ud_pingpong vs ibv_ud_pingpong (up to the MTU)

$(cat "$work/ud.md")

### One-way latency: rc_pingpong vs ib_send_lat

$(cat "$work/lat.md")

### What bounds the ratios

Both tools post each message with one \`ibv_post_send()\` of the same kind
of work request (one SGE, signaled, inline where it fits; ours also
carries 4 bytes of immediate data, the message number). On Soft-RoCE that
call is a \`write()\` to the kernel, in which rxe builds the packets,
computes their ICRC, loops them back to the peer's QP, places the data,
writes the peer's receive completion and, on RC, takes the ACK back: the
protocol work a NIC would do, on the emulated CPU, the same for both
tools. Our tools time that call (\`post_send usec:\`,
[measurement.md](../measurement.md)). Per row, medians over our runs of: our
mean round trip; the client's mean time inside \`ibv_post_send()\`; its
share of the round trip; what is left outside it (our loop, our polling,
and the wait for the server's reply); the server's mean time inside its
own \`ibv_post_send()\` of the reply; the usec/iter our median would have
to lose to reach 0.95 x the stock median; and the stock tool's own spread
over its runs (slowest / fastest usec/iter):

$(cat "$work/bound.md")

The two calls can overlap (rxe may run one side's packet while the other
side is still in its call), so they may add up to more than the round
trip. Where the client's share is high, what any tool's loop controls is
the small rest, and part of that is waiting, not work. Where the cut for
0.95 is not far below the stock tool's own run-to-run spread, the ratio
is decided by the test bed's noise, not by the loops.

EOF
	if [[ $plot == yes ]]; then
		echo "![latency against message size, ours and stock]($(basename -- "$png"))"
		echo
	fi
	sk=$(sed -n 's/^PPBENCH-INFO,skipped,//p' "$work/raw" |
		while read -r t z _; do echo "$t $z B"; done)
	fails=$(awk -F, '$1 == "PPBENCH" && $8 != 0' "$work/raw" | wc -l)
	if [[ -n $sk || $fails != 0 || $st != 0 ]]; then
		echo "Incomplete:"
		echo
		((st == 0)) || echo "- inside.sh exited with status $st."
		[[ $fails == 0 ]] || echo "- $fails runs failed (STATUS in the raw data; a failed run is left out of the medians)."
		[[ -z $sk ]] || echo "- Skipped for lack of time (PP_BENCH_BUDGET): $(echo "$sk" | paste -sd, - | sed 's/,/, /g')."
		echo
	fi
	echo "<!-- pingpong:end -->"
} >"$work/section"
bench_put_section pingpong "$work/section"
[[ $plot == no ]] || echo "bench: and $png"
for t in rc uc srq srq1 ud lat bound; do
	echo "== $t"
	cat "$work/$t.md"
done
