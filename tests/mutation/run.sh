#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run.sh WORK-DIR: targeted mutations.  Each is a deliberate defect, a small
# sed edit of one line of common/ (found by its text, whatever file holds it
# now), applied to a copy of the tree in WORK-DIR/src (never to this tree),
# built in WORK-DIR/build, and run against only the tests that should catch
# it: the script passes when every mutant fails at least one of its tests,
# and fails naming each mutant that survived or whose edit no longer
# applies (its line changed: update the mutation).
#
# The e2e tests of all mutants share one Soft-RoCE guest: the running
# guest of PP_MUTATION_GUEST (CTest passes its one-guest bed's), else one
# booted here (guest.sh --start) and stopped at the end; ctest runs without
# its own fixture setup and cleanup (-FS, -FC).  Steps run under a shorter
# PP_STEP_TIMEOUT (30 s): a mutant that hangs is killed sooner.
#
# Usage: tests/mutation/run.sh WORK-DIR   (CTest: mutation, label mutation)
# Environment: PP_MUTATIONS, a regex of the mutation names to run (default
# all); PP_MUTATION_GUEST, the state directory of a running shared guest
# (guest.sh --start DIR) to use.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:?usage: run.sh WORK-DIR}
mkdir -p "$work"
work=$(cd "$work" && pwd)
src=$work/src build=$work/build
only=${PP_MUTATIONS:-.}
t_start=$SECONDS

# NAME | THE LINES (grep -E) | SED EXPRESSION | TARGETS | TESTS
#   TARGETS: what to build for the tests; TESTS: a ctest regex.  Every
#   file of common/ with a line that matches is edited, and must change.
mutations=(
	"data-check-always-passes|if \(buf\[i\] != pp_pattern_byte\(i, seq, from_server\)\) \{|s/if (buf\[i\] != pp_pattern_byte(i, seq, from_server)) {/if (0) {/|test_check|^unit\.test_check$"
	"duration-deadline-ignored|end = t0 \+ cfg->duration_ns;|f\.end = t0 \+|s/end = t0 + cfg->duration_ns;/end = INT64_MAX;/;s/f\.end = t0 +/f.end = UINT64_MAX + 0 */|rc_pingpong ud_pingpong srq_pingpong|^e2e\.measure\.duration$"
	"atomic-checks-always-pass|if \(old == expect\)|if \(word == want\)|return \*old == expect;|s/if (old == expect)/if (1)/;s/if (word == want)/if (1)/;s/return \*old == expect;/return true;/|rc_pingpong|^e2e\.corrupt$"
	"auto-gid-ignores-connection-address|conn_addr\(local, &c\);|s/conn_addr(local, &c);/conn_addr(NULL, \&c);/|test_gid|^unit\.test_gid$"
	"server-adopts-nothing-from-hello|h = \*client;|s/h = \*client;/h = *mine;/|test_hs|^unit\.test_hs$"
	"mtu-refusal-skipped|client->mtu > caps->active_mtu|s/client->mtu > caps->active_mtu/0/;s/client->mtu > client->active_mtu/0/;s/h->mtu > caps->active_mtu/0/|test_hs|^unit\.test_hs$"
	"ud-loss-not-counted|res->lost\+\+;|s/\(s->\)\{0,1\}res->lost++;/(void)0;/|ud_pingpong|^e2e\.ud\.late$"
)

say() { echo "mutation: $*"; }

# The tree as it is (tracked files, with their changes), into $src; files
# already there and equal are left alone so that the build stays warm, and
# files the tree no longer has are removed (a stale copy of a moved file
# would take a mutation that the build never sees).
sync_tree() {
	local f
	mkdir -p "$src"
	(cd "$top" && git ls-files) | sort >"$work/files"
	(cd "$src" && find . -type f | sed 's|^\./||' | sort) |
		comm -23 - "$work/files" | while read -r f; do
		rm -f "$src/$f"
	done
	while read -r f; do
		[[ -f $top/$f ]] || continue
		if ! cmp -s "$top/$f" "$src/$f"; then
			mkdir -p "$(dirname "$src/$f")"
			cp "$top/$f" "$src/$f"
		fi
	done <"$work/files"
}

guest_dir=$build/softroce-guest
guest_up=0
if [[ -n ${PP_MUTATION_GUEST:-} && -e $PP_MUTATION_GUEST/qemu.pid ]]; then
	guest_dir=$PP_MUTATION_GUEST
	guest_up=2 # running, and not ours to stop
fi
stop_guest() {
	((guest_up == 1)) || return 0
	"$top/tests/softroce/guest.sh" --stop "$guest_dir" >/dev/null 2>&1 || true
	guest_up=0
}
trap stop_guest EXIT

sync_tree
cmake -S "$src" -B "$build" -DPP_WERROR=OFF -DPP_E2E_GUEST_DIR="$guest_dir" \
	>"$work/configure.log" 2>&1 || {
	say "configure failed: $(tail -n 3 "$work/configure.log")"
	exit 1
}

failed=()
for m in "${mutations[@]}"; do
	# the ERE may hold '|': the fields are counted from both ends
	IFS='|' read -r -a fld <<<"$m"
	n=${#fld[@]}
	name=${fld[0]} expr=${fld[n - 3]} targets=${fld[n - 2]} tests=${fld[n - 1]}
	anchor=$(IFS='|'; echo "${fld[*]:1:n-4}")
	[[ $name =~ $only ]] || continue
	echo "=== mutation $name"
	mapfile -t files < <(cd "$src" || exit; grep -rlE -- "$anchor" common; true)
	if ((${#files[@]} == 0)); then
		say "$name: no file of common/ holds '$anchor' any more: update the mutation"
		failed+=("$name (does not apply)")
		continue
	fi
	for f in "${files[@]}"; do
		sed -i -- "$expr" "$src/$f"
		if cmp -s "$top/$f" "$src/$f"; then
			say "$name: the edit '$expr' changed nothing in $f"
			failed+=("$name (does not apply)")
			continue 2
		fi
		say "$name: $f:"
		{ diff "$top/$f" "$src/$f" || true; } | sed -n 's/^[<>] /    &/p'
	done
	# shellcheck disable=SC2086 # $targets is a list of target names
	if ! cmake --build "$build" -j"$(nproc)" --target $targets \
		>"$work/$name.build.log" 2>&1; then
		say "$name: the mutant does not build: $(grep -m1 error "$work/$name.build.log")"
		failed+=("$name (does not build)")
	else
		extra=()
		if [[ $tests == *e2e* ]]; then
			if ((!guest_up)); then
				"$top/tests/softroce/guest.sh" --timeout 300 --start "$guest_dir" ||
					{ say "the Soft-RoCE guest did not start"; exit 1; }
				guest_up=1
			fi
			extra=(-FS softroce_guest -FC softroce_guest)
		fi
		st=0
		PP_STEP_TIMEOUT=30 ctest --test-dir "$build" -R "$tests" \
			"${extra[@]}" --output-on-failure >"$work/$name.test.log" 2>&1 || st=$?
		ran=$(sed -n 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .*/\1/p' \
			"$work/$name.test.log" | tr '\n' ' ')
		caught=$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' \
			"$work/$name.test.log" | tr '\n' ' ')
		say "$name: tests run: ${ran:-none}"
		if ((st != 0)) && [[ -n $caught ]]; then
			say "$name: caught by: $caught"
			grep -E '^[^ ]*(FAIL|F:)' "$work/$name.test.log" | head -n 3 |
				sed 's/^/    /' || true
		else
			say "$name: NOT CAUGHT (ctest exit $st)"
			failed+=("$name (not caught by $tests)")
		fi
	fi
	# back to the tree's own text, with a new time stamp: rebuilt next
	for f in "${files[@]}"; do
		cp "$top/$f" "$src/$f"
	done
done
stop_guest
echo "mutation: $((SECONDS - t_start)) s"
if ((${#failed[@]})); then
	for f in "${failed[@]}"; do
		say "FAILED: $f"
	done
	exit 1
fi
say "every mutant was caught"
