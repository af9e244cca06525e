# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034 # pp_* variables are for the caller
#
# Helpers for end-to-end test scripts, sourced by them. The scripts run where
# an RDMA device exists: in the Soft-RoCE guest (tests/softroce/guest.sh) or
# on a host with a real NIC. See docs/testing.md.
#
# Environment:
#   PP_BIN   build directory holding the binaries ($PP_BIN/rc_pingpong/...)
#   PP_DEV   RDMA device (default: the first in /sys/class/infiniband)
#   PP_GID   GID index, needed on RoCE (default: none)
#   PP_HOST  address the client connects to (default: 127.0.0.1)
#   PP_PORT  TCP port of the exchange (default: a random one)
#   PP_STEP_TIMEOUT  bound in seconds on every process (default: 60)
#
# This file owns the EXIT trap: it kills leftover processes and removes
# $PP_LOGS, the directory for the logs of this run.

PP_HOST=${PP_HOST:-127.0.0.1}
PP_PORT=${PP_PORT:-$((20000 + RANDOM % 20000))}
PP_STEP_TIMEOUT=${PP_STEP_TIMEOUT:-60}
PP_LOGS=$(mktemp -d "${TMPDIR:-/tmp}/pp-e2e.XXXXXX")
pp_failed=0
pp_gid_opt=() # "-g $PP_GID" when PP_GID is set
pp_pid=       # PID of the last pp_server

pp_cleanup() {
	local pid
	for pid in $(jobs -p); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	rm -rf "$PP_LOGS"
}
trap pp_cleanup EXIT

# pp_need_device: exit 77 (skip) if there is no RDMA device at all, 1 if
# PP_DEV names one that does not exist.
pp_need_device() {
	local devs
	devs=$(ls /sys/class/infiniband 2>/dev/null || true)
	if [[ -z $devs ]]; then
		echo "SKIP: no RDMA device (/sys/class/infiniband is empty)"
		exit 77
	fi
	PP_DEV=${PP_DEV:-$(head -n 1 <<<"$devs")}
	if [[ ! -e /sys/class/infiniband/$PP_DEV ]]; then
		echo "FAIL: PP_DEV=$PP_DEV is not an RDMA device here (have: $devs)"
		exit 1
	fi
	[[ -z ${PP_GID:-} ]] || pp_gid_opt=(-g "$PP_GID")
}

# pp_bin NAME: print the path of the project's tool NAME, exit 1 if missing.
pp_bin() {
	local path=${PP_BIN:?PP_BIN must name the build directory}/$1/$1
	if [[ ! -x $path ]]; then
		echo "FAIL: $path is missing (build the project first)" >&2
		exit 1
	fi
	echo "$path"
}

# pp_server NAME LOGFILE CMD...: start CMD in the background, bounded; its
# PID is left in $pp_pid.
pp_server() {
	local name=$1 log=$2
	shift 2
	echo "start $name: $*"
	timeout -k 5 "$PP_STEP_TIMEOUT" "$@" >"$log" 2>&1 &
	pp_pid=$!
}

# pp_wait_port PORT PID: wait until something listens on TCP PORT; returns
# 1 if PID exits first or after PP_STEP_TIMEOUT seconds.
pp_wait_port() {
	local port=$1 pid=$2 i
	for ((i = 0; i < PP_STEP_TIMEOUT * 20; i++)); do
		[[ -z $(ss -Hltn "sport = :$port") ]] || return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# pp_client NAME LOGFILE CMD...: run CMD in the foreground, bounded; returns
# its exit status (124 on timeout).
pp_client() {
	local name=$1 log=$2 status=0
	shift 2
	echo "run $name: $*"
	timeout -k 5 "$PP_STEP_TIMEOUT" "$@" >"$log" 2>&1 || status=$?
	return "$status"
}

# pp_wait PID: wait for a background process; returns its exit status.
pp_wait() {
	local status=0
	wait "$1" || status=$?
	return "$status"
}

# pp_wait_line REGEX FILE [SECONDS]: wait (default at most 20 s) until a
# line of FILE matches REGEX; bash builtins only, so that it notices within
# about 10 ms.
pp_wait_line() {
	local i line
	for ((i = 0; i < ${3:-20} * 100; i++)); do
		while IFS= read -r line; do
			[[ $line =~ $1 ]] && return 0
		done <"$2"
		sleep 0.01
	done
	return 1
}

# pp_now_ms: the wall clock in milliseconds.
pp_now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

# pp_start_run NAME BIN PORT WATCH [SERVER_OPTS...] -- CLIENT_OPTS...: start
# a server of BIN on PORT (-d, -p and SERVER_OPTS) and a client of it (-d,
# -p, the GID option and CLIENT_OPTS), logging to $PP_LOGS/server.NAME and
# $PP_LOGS/client.NAME, both in the background; then wait until the run has
# started: the address lines in WATCH's log (server or client).  Leaves
# pp_spid, pp_cpid, pp_slog and pp_clog.  A side that does not get there is
# a failure (pp_fail), and the caller goes on to collect what there is.
pp_start_run() {
	local name=$1 bin=$2 port=$3 watch=$4 sopts=()
	shift 4
	while (($#)) && [[ $1 != -- ]]; do
		sopts+=("$1")
		shift
	done
	(($#)) && shift # the --
	pp_slog=$PP_LOGS/server.$name pp_clog=$PP_LOGS/client.$name
	pp_server server "$pp_slog" "$bin" -d "$PP_DEV" -p "$port" "${sopts[@]}"
	pp_spid=$pp_pid
	pp_wait_port "$port" "$pp_spid" ||
		pp_fail "$name: the server is not listening"
	pp_server client "$pp_clog" "$bin" -d "$PP_DEV" -p "$port" \
		"${pp_gid_opt[@]}" "$@" "$PP_HOST"
	pp_cpid=$pp_pid
	local wlog=$pp_slog
	[[ $watch == server ]] || wlog=$pp_clog
	pp_wait_line '^  remote address' "$wlog" ||
		pp_fail "$name: the run did not start"
}

# pp_wait_timed PID...: wait for each PID in turn; leaves pp_status, the
# exit status of the last one, and pp_ms, the milliseconds the waiting took.
pp_wait_timed() {
	local t0 pid
	t0=$(pp_now_ms)
	for pid; do
		pp_status=0
		wait "$pid" || pp_status=$?
	done
	pp_ms=$(($(pp_now_ms) - t0))
}

# pp_expect_fast MS LIMIT_MS WHAT: WHAT ("the server ended") took MS ms,
# which must be under LIMIT_MS.
pp_expect_fast() {
	if (($1 < $2)); then
		echo "ok: $3 within $1 ms"
	else
		pp_fail "$3 after $1 ms, expected less than $2 ms"
	fi
}

pp_fail() {
	echo "FAIL: $*"
	pp_failed=1
}

# pp_expect_status ACTUAL EXPECTED WHAT
pp_expect_status() {
	if [[ $1 == "$2" ]]; then
		echo "ok: $3 exited with $1"
	else
		pp_fail "$3 exited with $1, expected $2"
	fi
}

# pp_expect_grep PATTERN FILE WHAT: FILE must match the extended regex
# PATTERN; on failure the end of FILE is shown.
pp_expect_grep() {
	if grep -Eq -- "$1" "$2"; then
		echo "ok: $3"
	else
		pp_fail "$3: no match for '$1' in $(basename "$2"):"
		tail -n 20 "$2" | sed 's/^/    /'
	fi
}

# pp_finish: exit 0 if every expectation held, 1 otherwise.
pp_finish() {
	if ((pp_failed)); then
		echo "FAILED"
		exit 1
	fi
	echo "PASSED"
	exit 0
}
