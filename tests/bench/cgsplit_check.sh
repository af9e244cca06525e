#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# cgsplit_check.sh: tests/bench/cgsplit.py on callgrind profiles of a
# made-up tool, with no RDMA device: a "provider" library librxe-fake.so
# (a post that calls libc's memset, a poll) and a tool whose loop function
# posts once and polls twice per round trip through pointers, as
# ibv_post_send() and ibv_poll_cq() call a provider, then sorts its samples
# with qsort, as perftest does. The loop must come out the same three ways:
# cut with --dump-before/--dump-after (ours), taken as the function that
# polls, inclusive (the stock tools), and the same of a stripped binary
# (perftest); polls 2 per round trip; and a calibration run with 1000
# polls more must say so (PPICOUNT-POLL). The loop also calls functions of
# the tool's own after calls into other objects: callgrind names a call's
# object (cob=) only when it is not the caller's; and main posts 10000
# times before the loop: poll_cq is the provider function whose calls grow
# with N, not the one called most.  With LOOKS=1 the tool waits in its own
# code as an RDMA Write client does, looking at memory 1, 2, 3, 1, ...
# times a round trip (and 100000 times more in its calibration run): its
# profiles counting jumps must give 2.00 looks a round trip and those
# 100000 (PPICOUNT-LOOK), cut or stripped.  The loop function also does,
# once a run, work whose length differs from run to run (CALIB, as
# perftest measures its clock rate there): cut with --loop, that call is
# left out, and the loop's figures are those of runs without it (a call
# made once that reaches the provider, as of the loop, stays); and a
# stripped binary's loop, found by --find in two first runs, cut at its
# address, gives the same figures as the named one.
set -euo pipefail

here=$(dirname "$(realpath -- "${BASH_SOURCE[0]}")")
fail=0
for cmd in gcc valgrind strip python3; do
	command -v "$cmd" >/dev/null || {
		echo "FAIL: no $cmd (run tests/install-deps.sh)"
		exit 1
	}
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

cat >prov.c <<'EOF'
#include <string.h>
static volatile int x;
static char buf[256];
void *(*volatile set)(void *, int, size_t) = memset;
int rxe_poll(int n)
{
	for (int i = 0; i < n; i++)
		x += i;
	return 1;
}
int rxe_post(int n)
{
	set(buf, n, 200);
	x += n;
	return 0;
}
EOF
cat >tool.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int rxe_poll(int n);
int rxe_post(int n);
static int (*volatile poll)(int) = rxe_poll;
static int (*volatile post)(int) = rxe_post;
static char scratch[64];
void *(*volatile set)(void *, int, size_t) = memset;
static int cmp(const void *a, const void *b)
{
	return *(const long *)a < *(const long *)b ? -1 : 1;
}
/* a function of the tool's that calls the provider, as the stock tools'
   pp_post_send(), after a call into libc: its own object, not libc's */
__attribute__((noinline)) int own_post(int n)
{
	set(scratch, n, 10);
	return post(n);
}
/* a function of the tool's called after the provider's: its object */
__attribute__((noinline)) void own_note(long *s, long i)
{
	s[i] = (i * 7919) % 1000;
}
/* once a run, CALIB rounds of work (a call into libc each) */
static int (*volatile pid)(void) = getpid;
__attribute__((noinline)) void once_calib(long k)
{
	for (long i = 0; i < k; i++)
		pid();
}
/* the peer's write, as the looks see it: there at the look that makes it 0 */
static volatile long ready;
/* argv[2], when given: that many polls (LOOKS=1: looks) more, at round
   trip 10 */
__attribute__((noinline)) void pp_run_client_loop(long n, long extra, long *s)
{
	/* POLLS=1: one poll per round trip, as many as posts */
	int two = !getenv("POLLS") || atoi(getenv("POLLS")) != 1;
	int looks = getenv("LOOKS") && atoi(getenv("LOOKS")) == 1;
	long xp = looks ? 0 : extra, xl = looks ? extra : 0;

	once_calib(getenv("CALIB") ? atol(getenv("CALIB")) : 0);
	for (long i = 0; i < n; i++) {
		own_post(3);
		poll(10);
		if (two)
			poll(10);
		for (long k = 0; i == 10 && k < xp; k++)
			poll(0);
		if (looks) {
			ready = 1 + i % 3 + (i == 10 ? xl : 0);
			while (--ready) /* one test a look */
				;
		}
		own_note(s, i);
	}
}
/* the loop behind a function called once, as ours is behind its tool's */
__attribute__((noinline)) void run_loop(long n, long extra, long *s)
{
	pp_run_client_loop(n, extra, s);
}
int main(int argc, char **argv)
{
	long n = atol(argv[1]), extra = argc > 2 ? atol(argv[2]) : 0;
	long *s = malloc(n * sizeof(*s));
	/* the receives posted ahead: more calls of post than of poll */
	for (long k = 0; k < 10000; k++)
		post(1);
	run_loop(n, extra, s);
	qsort(s, n, sizeof(*s), cmp);
	printf("%ld\n", s[n / 2]);
	free(s);
	return 0;
}
EOF
gcc -O1 -g -shared -fPIC -o librxe-fake.so prov.c
gcc -O1 -g -o faketool tool.c -L. -lrxe-fake -Wl,-rpath,"$work"
cp faketool fakestrip
strip fakestrip

cg=(valgrind -q --tool=callgrind --compress-strings=no --compress-pos=no)
dump=(--dump-before=pp_run_client_loop --dump-after=pp_run_client_loop)
for n in 500 2500; do
	"${cg[@]}" "${dump[@]}" --callgrind-out-file="cut.$n" ./faketool "$n" >/dev/null
	"${cg[@]}" --callgrind-out-file="fn.$n" ./faketool "$n" >/dev/null
	"${cg[@]}" --callgrind-out-file="strip.$n" ./fakestrip "$n" >/dev/null
done
"${cg[@]}" "${dump[@]}" --callgrind-out-file=cut.cal ./faketool 2500 1000 >/dev/null
"${cg[@]}" --callgrind-out-file=strip.cal ./fakestrip 2500 1000 >/dev/null

split() { # LABEL TOOL PREFIX
	python3 "$here/cgsplit.py" "$1" "$2" 500 "$3.500" 2500 "$3.2500" "$3.cal"
}
for n in 500 2500; do
	POLLS=1 "${cg[@]}" --callgrind-out-file="one.$n" ./fakestrip "$n" >/dev/null
done
POLLS=1 "${cg[@]}" --callgrind-out-file=one.cal ./fakestrip 2500 1000 >/dev/null
cut_out=$(split cut faketool cut)
one_out=$(split one fakestrip one)
fn_out=$(python3 "$here/cgsplit.py" fn faketool 500 fn.500 2500 fn.2500)
strip_out=$(split strip fakestrip strip)
printf '%s\n' "$cut_out" "$fn_out" "$strip_out" "$one_out"

# PPICOUNT,LABEL,TOTAL,LOOP,AFTER,OWN,VERBS,LIBC,OTHER,POLLS,POLLCOST
row() { sed -n 's/^PPICOUNT,[a-z]*,//p' <<<"$1"; }
expect() { # WHAT GOT WANT
	if [[ $2 == "$3" ]]; then
		echo "ok: $1: $2"
	else
		echo "FAIL: $1: got '$2', expected '$3'"
		fail=1
	fi
}
r=$(row "$cut_out")
expect "the loop by function, inclusive, as the loop cut out" "$(row "$fn_out")" "$r"
expect "the same of a stripped binary" "$(row "$strip_out")" "$r"
expect "polls per round trip" "$(cut -d, -f8 <<<"$r")" 2.00
IFS=, read -r _ loop after own verbs libc other _ <<<"$r"
sum=$((own + verbs + libc + other)) # each rounded: within 2
expect "the loop is own + verbs + libc + other" \
	"$((sum - loop <= 2 && loop - sum <= 2))" 1
expect "libc's memset is in the loop" "$((libc > 0))" 1
expect "the sort is after the loop" "$((after > 0))" 1
expect "the loop function named" \
	"$(sed -n 's/^PPICOUNT-LOOPFN,fn,//p' <<<"$fn_out")" pp_run_client_loop
expect "the stripped one by address" \
	"$(sed -n 's/^PPICOUNT-LOOPFN,strip,\(0x\).*/\1/p' <<<"$strip_out")" 0x
# PPICOUNT-POLL,LABEL,EXTRA,EMPTY,EMPTY_OWN: both ways, the same poll
cal=$(sed -n 's/^PPICOUNT-POLL,cut,//p' <<<"$cut_out")
expect "the calibration's extra polls" "${cal%%,*}" 1000
expect "an extra poll costs something" "$(awk -F, '{ print ($2 > 0) }' <<<"$cal")" 1
expect "the stripped binary's calibration" \
	"$(sed -n 's/^PPICOUNT-POLL,strip,//p' <<<"$strip_out")" "$cal"
# one poll per round trip: the calibration tells poll from post
expect "one poll per round trip: the loop function" \
	"$(sed -n 's/^PPICOUNT-LOOPFN,one,//p' <<<"$one_out")" \
	"$(sed -n 's/^PPICOUNT-LOOPFN,strip,//p' <<<"$strip_out")"
one_nocal=$(python3 "$here/cgsplit.py" one fakestrip 500 one.500 2500 one.2500)
expect "one poll per round trip, no calibration: the loop function" \
	"$(sed -n 's/^PPICOUNT-LOOPFN,one,//p' <<<"$one_nocal")" \
	"$(sed -n 's/^PPICOUNT-LOOPFN,strip,//p' <<<"$strip_out")"
expect "one poll per round trip: polls, and the cost of one" \
	"$(row "$one_out" | cut -d, -f8,9)" "1.00,$(cut -d, -f9 <<<"$r")"

# once a run, work of a length that differs between the runs: left out
CALIB=20000 "${cg[@]}" "${dump[@]}" --callgrind-out-file=noise.500 ./faketool 500 >/dev/null
CALIB=1000 "${cg[@]}" "${dump[@]}" --callgrind-out-file=noise.2500 ./faketool 2500 >/dev/null
loop() { # the loop's figures: LOOP, OWN ... POLLCOST (TOTAL, AFTER: the run's)
	row "$1" | cut -d, -f2,4-
}
noise_out=$(python3 "$here/cgsplit.py" --loop pp_run_client_loop noise faketool \
	500 noise.500 2500 noise.2500)
printf '%s\n' "$noise_out"
expect "work once a run, of different lengths, left out of the loop" \
	"$(loop "$noise_out")" "$(loop "$cut_out")"
expect "the call left out named, with its cost in each run" \
	"$(sed -n 's/^PPICOUNT-ONCE,noise,\(once_calib\),\([0-9]*\),\([0-9]*\)$/\1 \2 \3/p' <<<"$noise_out" |
		awk '{ print $1, ($2 > 10 * $3) }')" "once_calib 1"
# cut at a function that calls the loop once: that call is a round trip's
for n in 500 2500; do
	CALIB=$((n == 500 ? 20000 : 0)) "${cg[@]}" --dump-before=run_loop --dump-after=run_loop \
		--callgrind-out-file="outer.$n" ./faketool "$n" >/dev/null
done
outer_out=$(python3 "$here/cgsplit.py" --loop run_loop outer faketool 500 outer.500 2500 outer.2500)
expect "cut at a function around the loop: the call of the loop stays" \
	"$(loop "$outer_out")" "$(loop "$cut_out")"
# a stripped binary cut at the address a first run finds (--find)
addr=$(python3 "$here/cgsplit.py" --find fakestrip 500 strip.500 2500 strip.2500)
expect "--find: the stripped binary's loop function" "$addr" \
	"$(sed -n 's/^PPICOUNT-LOOPFN,strip,//p' <<<"$strip_out")"
for n in 500 2500; do
	CALIB=$((n == 500 ? 20000 : 0)) "${cg[@]}" --dump-before="$addr" --dump-after="$addr" \
		--callgrind-out-file="scut.$n" ./fakestrip "$n" >/dev/null
done
scut_out=$(python3 "$here/cgsplit.py" --loop "$addr" scut fakestrip 500 scut.500 2500 scut.2500)
expect "the stripped binary cut at that address" "$(loop "$scut_out")" "$(loop "$cut_out")"

# PPICOUNT-LOOK,LABEL,EXTRA,LOOKS,COST,COST_OWN: the waits in memory
jmp=(--dump-instr=yes --collect-jumps=yes)
for n in 500 2500; do
	LOOKS=1 "${cg[@]}" "${jmp[@]}" "${dump[@]}" --callgrind-out-file="lcut.$n" ./faketool "$n" >/dev/null
	LOOKS=1 "${cg[@]}" "${jmp[@]}" --callgrind-out-file="lstrip.$n" ./fakestrip "$n" >/dev/null
done
LOOKS=1 "${cg[@]}" "${jmp[@]}" "${dump[@]}" --callgrind-out-file=lcut.cal ./faketool 2500 100000 >/dev/null
LOOKS=1 "${cg[@]}" "${jmp[@]}" --callgrind-out-file=lstrip.cal ./fakestrip 2500 100000 >/dev/null
lcut_out=$(split lcut faketool lcut)
lstrip_out=$(split lstrip fakestrip lstrip)
printf '%s\n' "$lcut_out" "$lstrip_out"
look=$(sed -n 's/^PPICOUNT-LOOK,lcut,//p' <<<"$lcut_out")
expect "the calibration's extra looks, and looks per round trip" \
	"$(cut -d, -f1,2 <<<"$look")" 100000,2.00
expect "a look costs the tool's own instructions, and only those" \
	"$(awk -F, '{ print ($3 > 0 && $3 == $4) }' <<<"$look")" 1
expect "the stripped binary's looks" \
	"$(sed -n 's/^PPICOUNT-LOOK,lstrip,//p' <<<"$lstrip_out")" "$look"
expect "the loop with looks, cut out and by function" \
	"$(row "$lstrip_out")" "$(row "$lcut_out")"
nolook=$(python3 "$here/cgsplit.py" lcut faketool 500 lcut.500 2500 lcut.2500)
expect "no calibration, no looks" "$(grep -c '^PPICOUNT-LOOK' <<<"$nolook" || true)" 0

# icount_raw.load(): each row in its own section (the Send rows, the
# one-sided ones, the servers'), with its PPICOUNT-FN lines
cat >mixed.raw <<'EOF'
PPICOUNT,ours:rc:1,700,500,200,131,320,49,0,1.00,60
PPICOUNT-FN,ours:rc:1,pp_run_client_loop,131.0
PPICOUNT,ours:write:1,978,581,397,342,208,31,0,1.00,223
PPICOUNT,srv-ours:ud:1,976,566,410,173,344,48,0,1.28,62
PPICOUNT-FN,srv-ours:ud:1,server_fast,172.3
PPICOUNT,srv-stock:ud:1,600,600,0,157,388,55,0,1.28,72
EOF
sections=$(PYTHONPATH=$here python3 - mixed.raw <<'EOF'
import sys
from icount_raw import load
for kind in ("send", "ops", "server"):
    rows, fns, _, _, _ = load(sys.argv[1], kind)
    print("%s %s %s" % (kind, "+".join(sorted(rows)), "+".join(sorted(fns))))
EOF
)
expect "the rows of each section" "$(tr '\n' ';' <<<"$sections")" \
	"send ours:rc:1 ours:rc:1;ops ours:write:1 ;server srv-ours:ud:1+srv-stock:ud:1 srv-ours:ud:1;"

# icount_raw.disagree(): a row with a part below zero; a tool's loop found
# as a function (PPICOUNT-LOOPFN) whose own code in the loop is below that
# function's own instructions alone (its PPICOUNT-FN line) has one too
cat >floor.raw <<'EOF'
PPICOUNT,perftest:read:1,698,298,400,39,231,27,0,1.00,203
PPICOUNT-LOOPFN,perftest:read:1,0x21f00
PPICOUNT-FN,perftest:read:1,0x21f00,48.0
PPICOUNT,perftest:read:4096,720,310,410,55,231,24,0,1.00,203
PPICOUNT-LOOPFN,perftest:read:4096,0x21f00
PPICOUNT-FN,perftest:read:4096,0x21f00,48.0
PPICOUNT,perftest:fetch-add:8,560,226,334,-13,236,4,0,1.00,208
PPICOUNT,ours:read:1,704,300,404,38,231,31,0,1.00,203
EOF
verdicts=$(PYTHONPATH=$here python3 - floor.raw <<'EOF'
import sys
from icount_raw import disagree, load
rows = load(sys.argv[1], "ops")[0]
print(" ".join("%s=%d" % (k, disagree(rows[k])) for k in sorted(rows)))
EOF
)
expect "runs that disagree: a part below zero, or own below the loop function's" \
	"$verdicts" "ours:read:1=0 perftest:fetch-add:8=1 perftest:read:1=1 perftest:read:4096=0"
((fail == 0)) || exit 1
