#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# --version of every tool, as built: one line on stdout, nothing on stderr,
# exit 0, in the format "rc_pingpong 0.1.0 (git aef06da) libibverbs 1.14.44.0"
# where the version is CMake's project version, the commit is what
# `git describe --always --dirty` says of the source now ("unknown" outside a
# git checkout; a tree changed since the build fails here: rebuild), and the
# libibverbs version is the one in the file name of the library that ldd
# resolves for the binary.  -V says the same; --version stops the parse like
# --help.  The JSON document of a failed run carries the same in "software".
#
# Usage: version.sh BUILD-DIR SOURCE-DIR PROJECT-VERSION  (CTest: package.version)
set -uo pipefail

build=${1:?usage: version.sh BUILD-DIR SOURCE-DIR PROJECT-VERSION}
src=${2:?}
project=${3:?}
failed=0
passed=0
check() { # check WHAT CONDITION-STATUS
	if (($2 == 0)); then
		passed=$((passed + 1))
	else
		echo "version: $1" >&2
		failed=$((failed + 1))
	fi
}

git=unknown
if top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) &&
	[[ $(realpath "$top") == $(realpath "$src") ]]; then
	git=$(git -C "$src" describe --always --dirty)
fi

for tool in rc_pingpong ud_pingpong srq_pingpong xrc_pingpong; do
	bin=$build/$tool/$tool
	lib=$(ldd "$bin" | awk '$1 ~ /^libibverbs\.so/ { print $3 }')
	real=$(realpath "$lib")
	ibverbs=${real##*/libibverbs.so.}
	[[ $ibverbs =~ ^[0-9][0-9.]*$ ]]
	check "$tool: cannot tell the version of $lib ($real)" $?

	want="$tool $project (git $git) libibverbs $ibverbs"
	out=$("$bin" --version 2>"$build/version.err")
	st=$?
	check "$tool --version: exit $st, want 0" $st
	[[ ! -s $build/version.err ]]
	check "$tool --version wrote to stderr: $(cat "$build/version.err")" $?
	[[ $out == "$want" ]]
	check "$tool --version: '$out', want '$want'" $?
	[[ $out =~ ^[a-z]+_pingpong\ [0-9]+\.[0-9]+\.[0-9]+\ \(git\ [0-9A-Za-z._+-]+\)\ libibverbs\ [0-9][0-9.]*$ ]]
	check "$tool --version: '$out' is not in the documented format" $?
	out=$("$bin" -V)
	[[ $out == "$want" ]]
	check "$tool -V: '$out', want '$want'" $?
	out=$("$bin" --version --no-such-option 2>&1)
	[[ $out == "$want" ]]
	check "$tool --version --no-such-option: '$out', want '$want'" $?

	# a run that fails at once (no such device) still writes its document
	doc=$("$bin" --json -d no_such_device -T 1 2>/dev/null)
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
git = None if sys.argv[2] == "unknown" else sys.argv[2]
want = {"git": git, "libibverbs": sys.argv[3], "libibverbs_built": d["software"]["libibverbs_built"]}
assert d["version"] == sys.argv[4], d["version"]
assert d["software"] == want, (d["software"], want)
assert d["software"]["libibverbs_built"], d["software"]
' "$doc" "$git" "$ibverbs" "$project"
	check "$tool --json: \"software\" does not match --version" $?
done
rm -f "$build/version.err"

echo "version: $passed passed, $failed failed"
((failed == 0))
