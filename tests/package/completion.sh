#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The bash completion of every tool (completion/), as built: loads each file
# in bash and checks what it offers for a set of command lines, over a
# made-up /sys/class/infiniband (PINGPONG_SYSFS) with two devices:
#   mlx5_0  port 1 DOWN (GID 0), port 2 ACTIVE (GIDs 0 and 2)
#   rxe0    port 1 ACTIVE (GIDs 0 and 1)
# the other GID entries all zeros, as the kernel shows an empty entry.  And
# that the options offered for "-" are exactly those the tool's --help lists.
#
# Usage: completion.sh BUILD-DIR   (CTest: package.completion)
set -uo pipefail

build=${1:?usage: completion.sh BUILD-DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
passed=0

zero=0000:0000:0000:0000:0000:0000:0000:0000
# port DEV PORT STATE GID...: one port of the made-up sysfs
port() {
	local dir=$tmp/sys/class/infiniband/$1/ports/$2 i=0 g
	mkdir -p "$dir/gids"
	echo "$3" >"$dir/state"
	shift 3
	for g in "$@"; do
		echo "$g" >"$dir/gids/$i"
		i=$((i + 1))
	done
}
port mlx5_0 1 "1: DOWN" fe80:0000:0000:0000:0202:c9ff:fe00:0001 $zero $zero
port mlx5_0 2 "4: ACTIVE" fe80:0000:0000:0000:0202:c9ff:fe00:0002 $zero \
	0000:0000:0000:0000:0000:ffff:0a00:0002 $zero
port rxe0 1 "4: ACTIVE" fe80:0000:0000:0000:5054:00ff:fe12:3456 \
	0000:0000:0000:0000:0000:ffff:0a63:0001 $zero $zero
touch "$tmp/samples.csv"
export PINGPONG_SYSFS=$tmp/sys

# offers WORD...: what completion offers for the command line WORD..., the
# last word being completed; sorted, on one line.
offers() {
	local COMP_WORDS=("$@") COMP_CWORD=$(($# - 1))
	local COMP_LINE="$*"
	local COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_pingpong_complete "$1" "${COMP_WORDS[COMP_CWORD]}" \
		"${COMP_WORDS[COMP_CWORD - 1]}"
	((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | sort |
		paste -sd' '
}

# expect WANT WORD...: completing WORD... offers exactly WANT
expect() {
	local want=$1 got
	shift
	got=$(offers "$@")
	if [[ $got == "$want" ]]; then
		passed=$((passed + 1))
	else
		echo "completion: '$*<TAB>' offers '$got', want '$want'" >&2
		failed=$((failed + 1))
	fi
}

for tool in rc_pingpong ud_pingpong srq_pingpong xrc_pingpong; do
	file=$build/completion/$tool
	if ! source "$file"; then
		echo "completion: $file does not load" >&2
		exit 1
	fi
	if [[ $(complete -p "$tool") != "complete -F _pingpong_complete $tool" ]]; then
		echo "completion: $file does not register $tool" >&2
		exit 1
	fi
	# every option of --help, and no other: an option's line starts
	# "  -c, --chk" or "      --pkey"; a description's continuation lines
	# are indented further and may begin with an option's name
	want=$("$build/$tool/$tool" --help |
		sed -nE 's/^  (-([A-Za-z]), |    )--([a-z_-]+).*/-\2 --\3/p' |
		tr ' ' '\n' | grep -v '^-$' | sort | paste -sd' ')
	[[ -n $want ]] || { echo "completion: no options in $tool --help" >&2; exit 1; }
	expect "$want" "$tool" -
	expect "-d" "$tool" -d
	expect "--version" "$tool" --vers
	expect "mlx5_0 rxe0" "$tool" -d ""
	expect "0 1" "$tool" -s 64 -g ""
done

# options per tool
expect "--ib-dev --ib-port" rc_pingpong --ib
expect "--uc" rc_pingpong --u
expect "" ud_pingpong --u
expect "--mtu" rc_pingpong --mt
expect "" ud_pingpong --mt
expect "-q" srq_pingpong -q
expect "" rc_pingpong -q
expect "--xrc-domain" xrc_pingpong --xrc
expect "" srq_pingpong --xrc

# -d: devices; --ib-dev=, split by bash at '=' or not
expect "mlx5_0" rc_pingpong -d m
expect "mlx5_0 rxe0" rc_pingpong --ib-dev ""
expect "mlx5_0 rxe0" rc_pingpong --ib-dev =
expect "rxe0" rc_pingpong --ib-dev = r
expect "--ib-dev=rxe0" rc_pingpong --ib-dev=r

# -i: the ports of the device
expect "1 2" rc_pingpong -d mlx5_0 -i ""
expect "1" rc_pingpong -i ""

# -g: populated GIDs of the device and port given, or of the first device
# whose port is active
expect "0" rc_pingpong -d mlx5_0 -g ""
expect "0 2" rc_pingpong -d mlx5_0 -i 2 -g ""
expect "0 2" rc_pingpong --ib-dev=mlx5_0 --ib-port=2 --gid-idx ""
expect "0 2" rc_pingpong --ib-dev = mlx5_0 --ib-port = 2 --gid-idx = ""
expect "0 2" rc_pingpong -dmlx5_0 -i2 -g ""
expect "0 2" rc_pingpong -d rxe0 -i 1 -d mlx5_0 -i 2 -g ""
expect "0 1" rc_pingpong -d rxe0 -g ""
expect "0 2" ud_pingpong -i 2 -g ""
expect "2" srq_pingpong -i 2 -g 2
expect "" rc_pingpong -d mlx5_0 -i 3 -g ""
expect "" rc_pingpong -d nosuch -g ""

# -m, and values there is nothing to offer for
expect "1024 2048 256 4096 512" rc_pingpong -m ""
expect "1024" xrc_pingpong --mtu 1
expect "write write-imm" rc_pingpong --op wr
expect "--op=cmp-swap" ud_pingpong --op=cm
expect "" rc_pingpong -s ""
expect "" rc_pingpong -n 1
expect "$tmp/samples.csv" rc_pingpong --samples "$tmp/sam"

# a host without RDMA devices
PINGPONG_SYSFS=$tmp/none
expect "" rc_pingpong -d ""
expect "" rc_pingpong -g ""
expect "" rc_pingpong -i ""

echo "completion: $passed passed, $failed failed"
((failed == 0))
