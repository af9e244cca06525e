# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034 # the variables are set for the caller
#
# host-lib.sh: what the parts of tests/bench/all.sh share: their start
# (bench_host_init) and how a section of the document is written
# (bench_put_section).
# bench_host_init NAME "$@" parses [--out FILE] [--from RAW] and sets
#   root    the source tree
#   out     the file to write (default docs/dev/benchmarks.md)
#   from    an earlier run's raw output to report, or empty
#   work    a scratch directory, removed on exit
#   commit, dirty  the tree's commit and its count of changed files
# exports PP_BIN (default build/ of the tree) and changes to the tree.

bench_host_init() {
	local name=$1
	shift
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	out=$root/docs/dev/benchmarks.md
	from=
	while (($#)); do
		case $1 in
		--out)
			(($# >= 2)) || bench_usage
			out=$2
			shift 2
			;;
		--from)
			(($# >= 2)) || bench_usage
			from=$(realpath -- "$2")
			shift 2
			;;
		*) bench_usage ;;
		esac
	done
	work=$(mktemp -d "${TMPDIR:-/tmp}/pp-$name-host.XXXXXX")
	# shellcheck disable=SC2064 # $work is fixed now
	trap "rm -rf '$work'" EXIT
	cd "$root" || exit 1
	export PP_BIN=${PP_BIN:-$root/build}
	commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
	# (none outside a git checkout, as in tests/bench/all.sh's export)
	dirty=$({ git -C "$root" status --porcelain --untracked-files=no \
		2>/dev/null || true; } | wc -l)
}

bench_usage() {
	echo "usage: $0 [--out FILE] [--from RAW]" >&2
	exit 2
}

# bench_put_section NAME SECTION: replace the text between the markers
# "<!-- NAME:begin -->" and "<!-- NAME:end -->" of $out (both included) with
# the file SECTION, which holds them; append it when $out has no markers.
bench_put_section() {
	python3 - "$out" "$1" "$2" <<'EOF'
import sys
path, name, sec = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
try:
    doc = open(path).read()
except FileNotFoundError:
    doc = ""
b, e = "<!-- %s:begin -->" % name, "<!-- %s:end -->\n" % name
if b in doc and e in doc:
    doc = doc[:doc.index(b)] + sec + doc[doc.index(e) + len(e):]
else:
    doc = doc.rstrip("\n") + "\n\n" + sec
open(path, "w").write(doc)
EOF
	echo "$1: wrote the section in $out"
}

# bench_raw_keep NAME HIDE: after a run, keep $work/raw as
# ${TMPDIR:-/tmp}/pp-NAME-last.raw (for --from) and show its lines that do
# not start with HIDE (the records), indented.
bench_raw_keep() {
	cp "$work/raw" "${TMPDIR:-/tmp}/pp-$1-last.raw"
	grep -v "^$2" "$work/raw" | sed 's/^/    /' || true
}

# bench_raw_lf NAME RECORD: exit 1 ("NAME: no results") unless $work/raw has
# a RECORD line; writes $work/raw.lf, the raw output without carriage returns.
bench_raw_lf() {
	grep -q "^$2," "$work/raw" || {
		echo "$1: no results"
		exit 1
	}
	tr -d '\r' <"$work/raw" >"$work/raw.lf"
}
