#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# report_check.sh: tests/bench/all.sh --from on the raw files of
# tests/bench/testdata (pingpong.csv: one real run of bench.sh; the others
# made up), with no guest. benchmarks.md must name the run's commit once,
# at its top, lead with the paired wall-clock table, hold every part's
# sections once and no section the raw files do not feed, carry no
# figure of another run, and come out the same when made twice; the raw
# files must be copied beside it. The parts must work outside a git
# checkout, and all.sh must refuse to measure a tree with uncommitted
# changes, before it builds anything.
set -euo pipefail

here=$(dirname "$(realpath -- "${BASH_SOURCE[0]}")")
data=$here/testdata
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

bash "$here/all.sh" --from "$data" --out "$work/a" >"$work/log" 2>&1 ||
	bad "all.sh --from exited with $? ($(tail -n 3 "$work/log"))"
doc=$work/a/benchmarks.md
[[ -f $doc ]] || {
	echo "FAIL: no benchmarks.md"
	exit 1
}

commit=0123456789abcdef0123456789abcdef01234567
n=$(grep -c "$commit" "$doc" || true)
((n == 1)) || bad "the commit is named $n times, not once"
grep -n "$commit" "$doc" | grep -q '^[1-9]:' ||
	bad "the commit is not named in the first lines"
first=$(grep -m 1 '^## ' "$doc")
[[ $first == "## Wall clock, paired: ours against the stock tools" ]] ||
	bad "the first section is \"$first\", not the paired table"
# rc:1 of walltime.csv: ours is 0.9 x stock in every pair.
grep -q '^| rc 1 B | rc_pingpong | ibv_rc_pingpong | 8 | 18.81 | 20.90 | 0.900 | 0.900-0.900 | faster |$' "$doc" ||
	bad "the paired rc 1 B row is not the one of walltime.csv"
grep -q '^| write 1 B (1 pair left out: 1 run of A failed) | .* | 7 | ' "$doc" ||
	bad "the failed pair of write 1 B is not counted out"
for m in walltime walltime-ops pingpong icount icount-ops icount-server; do
	b=$(grep -c "^<!-- $m:begin -->$" "$doc" || true)
	e=$(grep -c "^<!-- $m:end -->$" "$doc" || true)
	[[ $b == 1 && $e == 1 ]] || bad "section $m: $b begin and $e end markers"
done
! grep -q 'mesh:begin' "$doc" || bad "a mesh section with no mesh.csv"
# One run: the medians of pingpong.csv, and nothing of the parts' own
# dates, commits or kept figures.
grep -q '^| 1 | 25000 | 47.10 | 45.10-53.89 | 40.88 | 38.81-50.44 | 1.152 | \*\*no\*\* |$' "$doc" ||
	bad "the RC 1 B median row is not the one of pingpong.csv"
grep -q '^| 2 | 23000 | 18.48 | 22.93 | 23.35 | 27.28 | 0.791 | yes |$' "$doc" ||
	bad "the ib_send_lat 2 B row is not the one of pingpong.csv"
for word in 'binaries of commit' 'goal' 'Kept from an earlier' 'PP_BENCH_NOTE' \
	'2026-11' '^PPBENCH'; do
	! grep -qi -- "$word" "$doc" || bad "benchmarks.md says \"$word\""
done
for f in run walltime pingpong icount; do
	cmp -s "$data/$f.csv" "$work/a/bench/$f.csv" || bad "bench/$f.csv is not the raw file"
done
# Made again from its own copy of the raw files: the same page.
bash "$here/all.sh" --from "$work/a/bench" --out "$work/a" >"$work/log" 2>&1 ||
	bad "all.sh --from its own bench/ exited with $?"
bash "$here/all.sh" --from "$data" --out "$work/b" >/dev/null 2>&1 || true
cmp -s "$doc" "$work/b/benchmarks.md" || bad "made twice, the pages differ"

# The parts run in an export with no git checkout (as all.sh runs them).
mkdir -p "$work/export/tests/bench"
cp "$here"/*.sh "$here"/*.py "$work/export/tests/bench/"
bash "$work/export/tests/bench/all.sh" --from "$data" --out "$work/e" \
	>"$work/log" 2>&1 || bad "outside a git checkout: exit $? ($(tail -n 2 "$work/log"))"
cmp -s "$doc" "$work/e/benchmarks.md" ||
	bad "outside a git checkout: another page"

# The plot, where gnuplot is.
if command -v gnuplot >/dev/null; then
	[[ -s $work/a/benchmarks.png ]] || bad "gnuplot, but no benchmarks.png"
	grep -q '](benchmarks.png)$' "$doc" || bad "the page does not show the plot"
fi

# A tree with tests/bench/mesh.sh, and a mesh.csv: its section goes
# after the others, before the raw data.
cat >"$work/export/tests/bench/mesh.sh" <<'EOF'
#!/usr/bin/env bash
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/host-lib.sh"
bench_host_init mesh "$@"
printf '<!-- mesh:begin -->\n## Mesh\n\n%s\n\n<!-- mesh:end -->\n' \
	"$(grep -c '^PPMESH,' "$from") rows" >"$work/s"
bench_put_section mesh "$work/s"
EOF
cp -r "$data" "$work/data"
printf 'PPMESH,4,mesh,3.0,6\nPPMESH,4,serial,9.0,6\n' >"$work/data/mesh.csv"
bash "$work/export/tests/bench/all.sh" --from "$work/data" --out "$work/m" \
	>"$work/log" 2>&1 || bad "with mesh.csv: exit $?"
order=$(grep -E '^## |^2 rows$' "$work/m/benchmarks.md" | tail -n 4 | paste -sd '|' -)
[[ $order == "## Instructions per round trip: the servers (callgrind)|## Mesh|2 rows|## Raw data" ]] ||
	bad "the mesh section is not between the servers' counts and the raw data: $order"

# A tree with uncommitted changes: refused, before the build.
tree=$work/tree
mkdir -p "$tree/tests/bench"
cp "$here/all.sh" "$tree/tests/bench/"
echo one >"$tree/file"
git -C "$tree" init -q
git -C "$tree" add -A
git -C "$tree" -c user.name=t -c user.email=t@t commit -qm one
echo two >"$tree/file"
st=0
bash "$tree/tests/bench/all.sh" --out "$work/c" >"$work/log" 2>&1 || st=$?
((st == 1)) || bad "a dirty tree: exit $st, not 1"
grep -q 'uncommitted changes' "$work/log" || bad "a dirty tree: no line saying so"
! grep -q 'building' "$work/log" || bad "a dirty tree: it built"

((fail == 0)) && echo "report_check: all passed"
exit "$fail"
