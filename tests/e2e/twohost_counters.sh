#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# twohost_counters.sh: --counters across two hosts (guest.sh --pair); the
# server runs on host A, the client on host B; rc, 300 iterations of 4 KiB
# (four packets a message at rxe's MTU 1024).
#
#   clean  no loss; only the client gives --counters (the server adopts
#          it): B prints the server's line and its own, A its own, each
#          with the port-wide caveat, after the results; packets were
#          counted on both sides and the sequence-error counters
#          (out_of_seq_request, rcvd_seq_err) and retry_exceeded_err did
#          not move.  duplicate_request and completer_retry_err may: in
#          these emulated guests a round trip sometimes outlasts the RC
#          retry timer (67 ms at timeout 14), and the requester resends
#          without any loss (seen: +3 to +20 in 300 iterations)
#   server_only  only the server gives --counters: it prints its own
#          line, the client none, and the run is not refused
#   loss   3% loss on A's eth0 (netem), both sides --counters --json: B's
#          document parses and has both sides' counters; the sequence
#          errors that only a lost packet makes moved where rxe counts
#          them: A's 4 KiB replies lose packets, so B sees a gap
#          (out_of_seq_request on B) and NAKs it, and A receives the NAK
#          (rcvd_seq_err on A); retries and duplicates are shown, not
#          asserted (they move without loss too, above)
#
# In both cases each host reads `rdma statistic show link DEV/1` before
# the tool starts and after it ends, and every counter's delta there must
# be the tool's own figure for that side (nothing else uses rxe0 here).
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_pair_need
command -v rdma >/dev/null || {
	echo "FAIL: the rdma tool (iproute2) is missing: run tests/install-deps.sh"
	exit 1
}
bin=$(pp_bin rc_pingpong)
# what no run without loss (or a vanished peer) may move
seq_re='out_of_seq_request|rcvd_seq_err|retry_exceeded_err|retry_rnr_exceeded_err'

# rdma_stat FILE: the port's counters as rdma(8) reports them, as JSON.
rdma_stat() {
	rdma -j statistic show link "$PP_DEV/1" >"$1"
}

# compare WHAT BEFORE AFTER SOURCE: every counter rdma(8) reports moved by
# what the tool said for this side; SOURCE is "text:FILE:SIDE" (the
# "SIDE: port counters" line) or "json:FILE:SIDE" (counters.SIDE).
compare() {
	local out
	if out=$(python3 - "$2" "$3" "$4" <<'EOF'
import json, re, sys

def stats(path):
    d = json.load(open(path))
    d = d[0] if isinstance(d, list) else d
    return {k: v for k, v in d.items() if isinstance(v, int) and k not in ("ifindex", "port")}

before, after = stats(sys.argv[1]), stats(sys.argv[2])
kind, path, side = sys.argv[3].split(":")
if kind == "text":
    line = [l for l in open(path) if l.startswith(side + ": port counters ")]
    assert len(line) == 1, "%d '%s: port counters' lines" % (len(line), side)
    items = line[0].split("): ", 1)[1].split(";")[0]
    ours = {}
    if items.strip() != "none moved":
        for it in items.split(", "):
            m = re.match(r"(\S+) \+(\d+)", it.strip())
            assert m, "cannot read %r" % it
            ours[m.group(1)] = int(m.group(2))
else:
    text = open(path).read()
    doc = json.loads(text[text.index("{"):])
    ours = doc["counters"][side]["counters"]
bad = []
for k in sorted(set(before) & set(after)):
    want = after[k] - before[k]
    if ours.get(k, 0) != want:
        bad.append("%s: rdma %d, ours %s" % (k, want, ours.get(k)))
missing = sorted(k for k in ours if k not in after)
if missing:
    bad.append("not reported by rdma: " + ", ".join(missing))
print("; ".join(bad) if bad else
      ", ".join("%s +%d" % (k, after[k] - before[k]) for k in sorted(after)
                if after[k] != before[k]))
sys.exit(1 if bad else 0)
EOF
	); then
		echo "ok: $1: the same deltas as rdma statistic ($out)"
	else
		pp_fail "$1: differs from rdma statistic: $out"
	fi
}

# run NAME SERVER-OPTS -- CLIENT-OPTS: one rc run across the pair, with
# rdma(8)'s counters read on each host before and after its side.
run() {
	local name=$1 sopts=() copts=()
	shift
	pp_split "$@"
	sopts=("${pp_before[@]}") copts=("${pp_after[@]}")
	pp_pair_next
	rdma_stat "$PP_LOGS/$name.before"
	pp_pair_run "$name" "$bin" -d "$PP_DEV" -p "$pp_pair_port" "${sopts[@]}" -- \
		"$bin" -d "$PP_DEV" -p "$pp_pair_port" -n 300 -s 4096 "${copts[@]}" "$PP_ADDR_A"
	rdma_stat "$PP_LOGS/$name.after"
}

# moved FILE SIDE: the names of SIDE's counters that moved, from the
# document in FILE.
moved() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
doc = json.loads(text[text.index("{"):])
c = doc["counters"][sys.argv[2]]
print(" ".join(k for k, v in sorted(c["counters"].items()) if v))
EOF
}

side=server
[[ $PP_ROLE == A ]] || side=client
caveat="\(all traffic on the port, not only this run's\)"

# --- no loss: text lines; the server adopts the client's --counters
run clean -- --counters
pp_expect_status "$pp_sa" 0 "clean: server on A"
pp_expect_status "$pp_sb" 0 "clean: client on B"
log=$PP_MEET/clean.$PP_ROLE
pp_expect_grep "^$side: port counters $PP_DEV:1 $caveat: .*sent_pkts \+[1-9]" "$log" \
	"clean: host $PP_ROLE prints its own counters, with the caveat"
if [[ $PP_ROLE == B ]]; then
	pp_expect_grep "^server: port counters $PP_DEV:1 $caveat: .*rcvd_pkts \+[1-9]" "$log" \
		"clean: the client prints the server's counters too"
	# after the results
	if [[ $(grep -n '^300 iters in ' "$log" | cut -d: -f1) -lt $(grep -n '^server: port counters' "$log" | cut -d: -f1) ]]; then
		echo "ok: clean: the counters follow the results"
	else
		pp_fail "clean: the counters lines come before the results"
	fi
fi
if grep -E "port counters" "$log" | grep -Eq "$seq_re"; then
	pp_fail "clean: a sequence-error counter moved without loss: $(grep 'port counters' "$log")"
else
	echo "ok: clean: no sequence-error counter moved on host $PP_ROLE"
fi
compare "clean: host $PP_ROLE" "$PP_LOGS/clean.before" "$PP_LOGS/clean.after" \
	"text:$log:$side"

# --- only the server gives --counters: not a parameter it imposes; it
# reads and prints its own port, the client (which did not ask) prints
# none, and neither refuses the other
run server_only --counters --
pp_expect_status "$pp_sa" 0 "server_only: server on A"
pp_expect_status "$pp_sb" 0 "server_only: client on B"
log=$PP_MEET/server_only.$PP_ROLE
if [[ $PP_ROLE == A ]]; then
	pp_expect_grep "^server: port counters $PP_DEV:1 $caveat: .*sent_pkts \+[1-9]" "$log" \
		"server_only: the server prints its own counters"
	compare "server_only: host A" "$PP_LOGS/server_only.before" \
		"$PP_LOGS/server_only.after" "text:$log:server"
elif grep -q "port counters" "$log"; then
	pp_fail "server_only: the client printed counters it did not ask for"
else
	echo "ok: server_only: the client prints no counters"
fi

# --- 3% loss on A: JSON on both sides
if [[ $PP_ROLE == A ]]; then
	pp_on_exit 'tc qdisc del dev eth0 root'
	tc qdisc add dev eth0 root netem loss 3%
fi
pp_tell "lossy.$PP_ROLE"
pp_hear "lossy.$pp_peer" >/dev/null
run loss --counters --json -- --counters --json
[[ $PP_ROLE == B ]] || tc qdisc del dev eth0 root
pp_expect_status "$pp_sa" 0 "loss: server on A"
pp_expect_status "$pp_sb" 0 "loss: client on B"
log=$PP_MEET/loss.$PP_ROLE
compare "loss: host $PP_ROLE" "$PP_LOGS/loss.before" "$PP_LOGS/loss.after" \
	"json:$log:$side"
if [[ $PP_ROLE == B ]]; then
	if python3 - "$log" <<'EOF'; then
import json, sys
text = open(sys.argv[1]).read()
doc = json.loads(text[text.index("{"):])
c = doc["counters"]
for side in ("client", "server"):
    s = c[side]
    assert s["device"] and s["port"] == 1 and s["scope"] == "port", s
    assert s["counters"]["sent_pkts"] > 0 and s["counters"]["rcvd_pkts"] > 0, s
EOF
		echo "ok: loss: B's document parses and holds both sides' counters"
	else
		pp_fail "loss: B's document lacks a side's counters"
	fi
	a=$(moved "$log" server)
	b=$(moved "$log" client)
	echo "loss: moved on A (server): $a"
	echo "loss: moved on B (client): $b"
	# A's replies lose packets (900 of its 1200 are not a message's
	# last: at 3%, none lost is a chance of 1e-12): B sees the gaps and
	# NAKs them, A receives the NAKs.
	if [[ " $a " == *" rcvd_seq_err "* ]]; then
		echo "ok: loss: rcvd_seq_err moved on A (sequence NAKs for its lost packets)"
	else
		pp_fail "loss: rcvd_seq_err did not move on A: $a"
	fi
	if [[ " $b " == *" out_of_seq_request "* ]]; then
		echo "ok: loss: out_of_seq_request moved on B (gaps in A's replies)"
	else
		pp_fail "loss: out_of_seq_request did not move on B: $b"
	fi
fi
pp_finish
