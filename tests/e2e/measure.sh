#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# measure.sh: the measurement options of issue 6, end to end, on a real
# device (docs/measurement.md).
#
# Checks:
#   - rc -a -s 4096 --warmup 5 -c --json on both sides: each side writes one
#     JSON document (one line) with one results entry per size 1..4096, every
#     entry with its iterations, samples and figures; warm-up iterations are
#     not samples; the server's document names the same sizes;
#   - ud -a in text: one table line per size from 1 to the path MTU, none
#     above it;
#   - srq -a -s 64 and rc --uc -a -s 256 complete (sizes on shared receive
#     queues and on UC);
#   - -D 2 (measure.sh duration, alone): the run lasts two seconds (its own
#     figure: 2 to 4 s) and both sides count the same iterations;
#   - --histogram prints a histogram; --samples writes one line per sample;
#   - the time inside ibv_post_send: one post per measured iteration on
#     each side (JSON), its mean within the round trip's (text and JSON);
#   - --no-inline: --trace shows QPs without inline sends (with inline by
#     default at 1 byte);
#   - every run's exit status, on both sides;
#   - a refused run still writes its document: exit status and error line;
#   - --samples to a path that cannot be written fails before the run;
#   - the clock: without PP_CLOCK (lib.sh sets cycles) the bed's CPU, with
#     no constant_tsc, makes both sides time with CLOCK_MONOTONIC and say
#     why, below the path MTU line and in --json's clock object; with
#     PP_CLOCK=cycles no fallback line, and --json names the counter.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
rc=$(pp_bin rc_pingpong)
ud=$(pp_bin ud_pingpong)
srq=$(pp_bin srq_pingpong)
port=$PP_PORT

# pair NAME BIN "SERVER ARGS" CLIENT ARGS...: one run on a fresh TCP port;
# logs in $PP_LOGS/NAME.server and NAME.client, statuses in $sst and $cst.
pair() {
	local name=$1 bin=$2 sargs=$3
	shift 3
	port=$((port + 1))
	# shellcheck disable=SC2086 # $sargs is a list of words
	pp_server "$name server" "$PP_LOGS/$name.server" "$bin" -d "$PP_DEV" \
		-p "$port" $sargs
	local spid=$pp_pid
	if ! pp_wait_port "$port" "$spid"; then
		pp_fail "$name: the server is not listening"
		pp_indent '    server: ' "$PP_LOGS/$name.server"
	fi
	cst=0
	pp_client "$name client" "$PP_LOGS/$name.client" "$bin" -d "$PP_DEV" \
		-p "$port" "${pp_gid_opt[@]}" "$@" "$PP_HOST" || cst=$?
	sst=0
	pp_wait "$spid" || sst=$?
}

show() {
	local f
	for f in "$@"; do
		echo "--- $(basename "$f")"
		cut -c1-400 "$f"
	done
}

# pycheck WHAT FILE PYTHON: the JSON document in FILE (the output of a run,
# stderr's lines included) is one line, parses, and the Python statements
# (over d) hold.
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

# --- -D: a duration instead of a count; alone (measure.sh duration: the
# test e2e.measure.duration, which the -D mutation runs), not in the rest
if [[ ${1:-} == duration ]]; then
	t0=$(pp_now_ms)
	pair duration "$rc" "" -D 2 -s 64
	t=$(($(pp_now_ms) - t0))
	show "$PP_LOGS/duration.client" "$PP_LOGS/duration.server"
	pp_expect_status "$sst" 0 "-D server"
	pp_expect_status "$cst" 0 "-D client"
	# The run's own time, as the client prints it ("N iters in X seconds":
	# from its first post to its last reply), 2 s and at most one round trip
	# more (up to 0.8 s seen under emulation on a loaded machine: 2 s of
	# slack).  The wall clock of the whole pair adds the server's start and the
	# handshake (8.7 s seen on a loaded machine), so it is bounded only loosely;
	# a run that ignored its deadline goes on for its iteration cap (-D 2:
	# 2 * PP_DURATION_RATE exchanges) and is killed at PP_STEP_TIMEOUT (124).
	secs=$(sed -n 's/^[0-9]* iters in \([0-9.]*\) seconds.*/\1/p' "$PP_LOGS/duration.client")
	if [[ -n $secs ]] && awk -v x="$secs" 'BEGIN { exit !(x >= 1.9 && x < 4.0) }'; then
		echo "ok: -D 2: the run took $secs s (1.90-3.99)"
	else
		pp_fail "-D 2: the run took '$secs' s, expected 1.90-3.99"
	fi
	if ((t >= 2000 && t < 30000)); then
		echo "ok: -D 2 took $t ms with the set-up (2-30 s)"
	else
		pp_fail "-D 2 took $t ms with the set-up, expected 2-30 s"
	fi
	iters() { sed -n 's/^\([0-9]*\) iters in .*/\1/p' "$1"; }
	ci=$(iters "$PP_LOGS/duration.client")
	si=$(iters "$PP_LOGS/duration.server")
	if [[ -n $ci ]] && ((ci > 0)) && [[ $ci == "$si" ]]; then
		echo "ok: -D: both sides count $ci iterations"
	else
		pp_fail "-D: client counted '$ci' iterations, server '$si'"
	fi
	pp_finish
fi

# --- a sweep with JSON on both sides
pair sweep "$rc" "--json" -a -s 4096 -n 50 --warmup 5 -c --json
show "$PP_LOGS/sweep.client" "$PP_LOGS/sweep.server"
pp_expect_status "$sst" 0 "sweep server"
pp_expect_status "$cst" 0 "sweep client"
sizes="[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]"
pycheck "client document: one entry per size, 50 samples each" \
	"$PP_LOGS/sweep.client" "
assert d['schema'] == 1 and d['role'] == 'client' and d['tool'] == 'rc_pingpong'
assert [r['size'] for r in d['results']] == $sizes, d['results']
for r in d['results']:
    f = r['figures']
    assert r['completed'] == 50 and r['lost'] == 0, r
    assert f['iterations'] == 50 and f['latency_usec']['samples'] == 50, f
    assert 0 < f['latency_usec']['min'] <= f['latency_usec']['median'] <= f['latency_usec']['max']
    assert f['bytes'] == 2 * r['size'] * 50
    assert sum(r['histogram']['counts']) + r['histogram']['overflow'] == 50
    post = r['post_send_usec']
    assert post['posts'] == 50 and 0 < post['mean'] <= post['max'], post
    assert post['mean'] <= f['latency_usec']['mean'], (post, f)
p = d['params']
assert p['sweep'] is True and p['warmup'] == 5 and p['validate'] is True and p['iters'] == 50
assert d['device']['name'] == '$PP_DEV' and d['device']['active_mtu'] > 0
assert len(d['addresses']['local']) == 1 and len(d['addresses']['remote']) == 1
assert d['status'] == {'exit': 0, 'error': None}"
pycheck "server document: the same sizes, adopted parameters" \
	"$PP_LOGS/sweep.server" "
assert d['role'] == 'server'
assert [r['size'] for r in d['results']] == $sizes
assert all(r['completed'] == 50 for r in d['results'])
assert all(r['post_send_usec']['posts'] == 50 for r in d['results'])
assert d['params']['warmup'] == 5 and d['params']['sweep'] is True
assert d['status']['exit'] == 0"
pycheck "the two documents' addresses cross over" "$PP_LOGS/sweep.client" "
s = json.loads([l for l in open('$PP_LOGS/sweep.server') if l.startswith('{')][0])
assert d['addresses']['local'] == s['addresses']['remote']
assert d['addresses']['remote'] == s['addresses']['local']"

# --- UD: a text sweep stops at the path MTU
mtu=$(ibv_devinfo -d "$PP_DEV" -i 1 |
	sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
pair ud "$ud" "" -a -n 30
show "$PP_LOGS/ud.client"
pp_expect_status "$sst" 0 "ud sweep server"
pp_expect_status "$cst" 0 "ud sweep client"
pp_expect_grep '^ +bytes +iters +usec/iter +min +median' "$PP_LOGS/ud.client" \
	"ud: table header"
n=0
s=1
while ((s <= mtu)); do
	pp_expect_grep "^ +$s +30 +[0-9.]+ " "$PP_LOGS/ud.client" "ud: size $s"
	n=$((n + 1))
	s=$((s * 2))
done
got=$(grep -Ec '^ +[0-9]+ +30 +[0-9.]+ ' "$PP_LOGS/ud.client" || true)
if ((got == n)); then
	echo "ok: ud: $n sizes, up to the MTU $mtu"
else
	pp_fail "ud: $got table lines, expected $n (1..$mtu)"
fi

# --- SRQ and UC sweeps
pair srq "$srq" "" -a -s 64 -n 40 -c
show "$PP_LOGS/srq.client"
pp_expect_status "$cst" 0 "srq sweep client"
pp_expect_status "$sst" 0 "srq sweep server"
pp_expect_grep '^ +64 +40 ' "$PP_LOGS/srq.client" "srq: last size 64"
pair uc "$rc" "" --uc -a -s 256 -n 40 -c
pp_expect_status "$cst" 0 "uc sweep client"
pp_expect_status "$sst" 0 "uc sweep server"
pp_expect_grep '^ +256 +40 ' "$PP_LOGS/uc.client" "uc: last size 256"

# --- --histogram, --samples, warm-up not sampled
samples=$PP_LOGS/samples.csv
pair hist "$rc" "" -s 8 -n 200 --warmup 20 --histogram --samples "$samples"
pp_expect_status "$cst" 0 "--histogram client"
pp_expect_status "$sst" 0 "--histogram server"
pp_expect_grep '^histogram usec: n 200, [0-9]+ bins of ' "$PP_LOGS/hist.client" \
	"histogram header"
pp_expect_grep '^latency usec: n 200 ' "$PP_LOGS/hist.client" \
	"warm-up iterations are not samples"
# the time inside ibv_post_send is part of each round trip: mean <= mean
post=$(sed -n 's/^post_send usec: n 200 mean \([0-9.]*\) max \([0-9.]*\)$/\1 \2/p' \
	"$PP_LOGS/hist.client")
lat=$(sed -n 's/^latency usec: .* mean \([0-9.]*\) .*/\1/p' "$PP_LOGS/hist.client")
if [[ -n $post && -n $lat ]] && awk -v p="$post" -v l="$lat" 'BEGIN {
	split(p, a, " "); exit !(a[1] > 0 && a[1] <= a[2] && a[1] <= l) }'; then
	echo "ok: post_send usec: mean, max $post (round trip mean $lat)"
else
	pp_fail "post_send line '$post' against the latency mean '$lat'"
fi
if [[ -f $samples ]] && [[ $(head -n 1 "$samples") == size,sample,rtt_ns ]] &&
	(($(grep -Ec '^8,[0-9]+,[0-9]+$' "$samples") == 200)) &&
	(($(wc -l <"$samples") == 201)); then
	echo "ok: --samples wrote a header and 200 lines"
else
	pp_fail "--samples file: $(head -n 3 "$samples" 2>&1 | tr '\n' ' ')"
fi

# --- the clock: the counter only where it can be trusted
saved=$PP_CLOCK
unset PP_CLOCK
pair clock "$rc" "" -s 1 -n 20 --json
export PP_CLOCK=$saved
pp_expect_status "$cst" 0 "clock: client"
pp_expect_status "$sst" 0 "clock: server"
pp_expect_grep '^  clock: CLOCK_MONOTONIC, not the cycle counter: the CPU has no constant_tsc \(/proc/cpuinfo\)' \
	"$PP_LOGS/clock.server" "clock: the server says it falls back, and why"
pycheck "clock: the client's JSON names CLOCK_MONOTONIC and why" "$PP_LOGS/clock.client" '
c = d["clock"]
assert c["source"] == "CLOCK_MONOTONIC", c
assert "constant_tsc" in c["why"] and c["ghz"] is None and c["diff_ns"] is None, c
'
pair counter "$rc" "" -s 1 -n 20 --json
pp_expect_status "$cst" 0 "counter: client"
# (the end-of-run comparison may still say that the two clocks differ: on
# the bed they do, now and then)
if grep -q 'clock: CLOCK_MONOTONIC' "$PP_LOGS/counter.server"; then
	pp_fail "counter: PP_CLOCK=cycles, and yet a fallback line: $(grep 'clock: CLOCK_MONOTONIC' "$PP_LOGS/counter.server")"
else
	echo "ok: counter: PP_CLOCK=cycles: no fallback line"
fi
pycheck "counter: the client's JSON names the cycle counter" "$PP_LOGS/counter.client" '
c = d["clock"]
assert c["source"] == "cycle counter" and c["ghz"] > 0 and c["why"] is None, c
assert isinstance(c["diff_ns"], int) and isinstance(c["elapsed_ns"], int), c
'

# --- inline sends, and --no-inline
pair inline "$rc" "" -s 1 -n 10 --trace
pp_expect_status "$cst" 0 "inline client"
pp_expect_status "$sst" 0 "inline server"
pp_expect_grep 'created 1 rc QP \(inline sends\)' "$PP_LOGS/inline.client" \
	"1 byte: inline sends by default"
pair noinline "$rc" "--trace" -s 1 -n 10 --trace --no-inline
pp_expect_status "$cst" 0 "--no-inline client"
pp_expect_status "$sst" 0 "--no-inline server"
pp_expect_grep 'created 1 rc QP$' "$PP_LOGS/noinline.client" \
	"--no-inline: client QP without inline sends"
pp_expect_grep 'created 1 rc QP$' "$PP_LOGS/noinline.server" \
	"--no-inline: the server adopts it"

# --- a refused run still writes its document
pair refused "$rc" "-s 1024" -s 2048 -n 10 --json
pp_expect_status "$cst" 1 "refused client"
pp_expect_status "$sst" 1 "refused server"
pycheck "refused run: status and error in the document" \
	"$PP_LOGS/refused.client" "
assert d['status']['exit'] == 1, d['status']
assert 'size: client 2048, server 1024' in d['status']['error'], d['status']
assert d['results'] == []"

# --- --samples to a path that cannot be written: refused before the run
st=0
pp_client badsamples "$PP_LOGS/badsamples" "$rc" -d "$PP_DEV" -p "$port" \
	--samples /nonexistent/x.csv "$PP_HOST" || st=$?
pp_expect_status "$st" 1 "--samples /nonexistent/x.csv"
pp_expect_grep '^rc_pingpong: --samples: cannot write /nonexistent/x.csv: No such file or directory' \
	"$PP_LOGS/badsamples" "--samples: the path and the cause named"
pp_finish
