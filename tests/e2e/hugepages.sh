#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# hugepages.sh: --hugepages puts each side's buffers on 2 MiB huge pages.
#
# 1. With no huge page reserved (vm.nr_hugepages=0), each side alone is
#    refused at once with one line naming vm.nr_hugepages, exit 1.
# 2. With 8 reserved, an rc run with -c on both sides: while it runs, the
#    kernel's pool has exactly 2 pages fewer free (one per side: 4096 bytes
#    of send and receive area each fit one page), --trace says "buffers on
#    1 huge page of 2 MiB" on both sides, the data checks pass, and the JSON
#    document says "hugepages": true.  After the run every page is free.
# 3. -s 2M: 2 pages per side (2 MiB of send area, 2 MiB of receive area).
# The pool is set back to what it was when the script ends.
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

pp_need_device
PATH=$PATH:/usr/sbin:/sbin
bin=$(pp_bin rc_pingpong)
pool=/proc/sys/vm/nr_hugepages
free=/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages
if [[ ! -w $pool || ! -r $free ]]; then
	echo "SKIP: no 2 MiB huge pages to reserve here ($pool, $free)"
	exit 77
fi
old=$(cat "$pool")
pp_on_exit "echo $old >$pool"

# 1. none free: refused on each side, alone.
sysctl -qw vm.nr_hugepages=0
for side in server client; do
	host=()
	[[ $side == client ]] && host=("${pp_gid_opt[@]}" "$PP_HOST")
	st=0
	pp_client "none.$side" "$PP_LOGS/none.$side" "$bin" -d "$PP_DEV" \
		-p "$PP_PORT" -T 10 --hugepages "${host[@]}" || st=$?
	pp_indent '    ' "$PP_LOGS/none.$side"
	pp_expect_status "$st" 1 "$side without huge pages"
	pp_expect_grep '^rc_pingpong: --hugepages: no free 2 MiB huge pages \(.*free_hugepages is 0\): reserve some with sysctl vm.nr_hugepages=N$' \
		"$PP_LOGS/none.$side" "$side names vm.nr_hugepages"
	n=$(wc -l <"$PP_LOGS/none.$side")
	if ((n == 1)); then
		echo "ok: $side printed one line"
	else
		pp_fail "$side printed $n lines"
	fi
done

# run NAME PAGES_PER_SIDE CLIENT_OPTS...: a -D 4 run with --hugepages on
# both sides; the pool, 8 pages, must lose 2 x PAGES_PER_SIDE while it runs.
run() {
	local name=$1 per=$2 during sst cst
	shift 2
	sysctl -qw vm.nr_hugepages=8
	if [[ $(cat "$free") != 8 ]]; then
		pp_fail "$name: 8 huge pages reserved, $(cat "$free") free"
		return
	fi
	pp_start_run "$name" "$bin" "$PP_PORT" server --hugepages --trace \
		-- --hugepages --trace -c -D 4 --json "$@"
	during=$(cat "$free")
	sst=0 cst=0
	pp_wait "$pp_spid" || sst=$?
	pp_wait "$pp_cpid" || cst=$?
	echo "--- $name server"
	grep -v '^ ' "$pp_slog" | sed 's/^/    /'
	pp_expect_status "$sst" 0 "$name server"
	pp_expect_status "$cst" 0 "$name client"
	if ((during == 8 - 2 * per)); then
		echo "ok: $name: $during of 8 huge pages free during the run"
	else
		pp_fail "$name: $during of 8 huge pages free during the run, expected $((8 - 2 * per))"
	fi
	[[ $per == 1 ]] && s="" || s=s
	for log in "$pp_slog" "$pp_clog"; do
		pp_expect_grep "buffers on $per huge page$s of 2 MiB" "$log" \
			"$name $(basename "$log"): buffers on $per huge page$s"
	done
	pp_expect_grep '"hugepages": ?true' "$pp_clog" \
		"$name: the JSON document records it"
	pp_expect_grep '"validate": ?true' "$pp_clog" "$name: with -c"
	if [[ $(cat "$free") == 8 ]]; then
		echo "ok: $name: every huge page free again"
	else
		pp_fail "$name: $(cat "$free") of 8 free after the run"
	fi
}
run small 1 -s 4096
PP_PORT=$((PP_PORT + 1))
run large 2 -s 2M
pp_finish
