# SPDX-License-Identifier: MIT
#
# host-lib.sh: the start that tests/bench/icount.sh and walltime.sh share.
# bench_host_init NAME "$@" parses [--out FILE] [--from RAW] and sets
#   root    the source tree
#   out     the file to write (default docs/benchmarks.md)
#   from    an earlier run's raw output to report, or empty
#   work    a scratch directory, removed on exit
#   commit, dirty  the tree's commit and its count of changed files
# exports PP_BIN (default build/ of the tree) and changes to the tree.

bench_host_init() {
	local name=$1
	shift
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	out=$root/docs/benchmarks.md
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
	cd "$root"
	export PP_BIN=${PP_BIN:-$root/build}
	commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
	dirty=$(git -C "$root" status --porcelain --untracked-files=no \
		2>/dev/null | wc -l)
}

bench_usage() {
	echo "usage: $0 [--out FILE] [--from RAW]" >&2
	exit 2
}
