#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Write the seed corpus of the fuzz harnesses into tests/fuzz/corpus/: a few
# small valid and invalid inputs each.  The files are committed; run this
# again only to change the seeds (the output is the same every time).
#
# Usage: bash tests/fuzz/make-corpus.sh
set -euo pipefail

dir=$(cd "$(dirname "$0")" && pwd)/corpus

# seed HARNESS NAME HEX: write the bytes of HEX (white space ignored).
seed() {
	local hex=${3//[[:space:]]/} out=
	while [[ -n $hex ]]; do
		out+="\\x${hex:0:2}"
		hex=${hex:2}
	done
	mkdir -p "$dir/$1"
	printf '%b' "$out" >"$dir/$1/$2"
}

# seed_args HARNESS NAME ARG...: the arguments, each ended by a NUL.
seed_args() {
	local h=$1 n=$2
	shift 2
	mkdir -p "$dir/$h"
	printf '%s\0' "$@" >"$dir/$h/$n"
}

# seed_num NAME SELECTOR TEXT: fuzz_parse_u64's selector byte, then TEXT.
seed_num() {
	mkdir -p "$dir/fuzz_parse_u64"
	{
		printf '%b' "\\x$2"
		printf '%s' "$3"
	} >"$dir/fuzz_parse_u64/$1"
}

rm -rf "$dir"

# fuzz_wire: header "PPNG" v7 TYPE LEN, then the body (pp_wire.h).
v=0007    # PP_WIRE_VERSION
next=0008 # a version from the future
# 48 hop limit 64, 49 traffic class, 50 P_Key, 52 flow label,
# 56 op (0 send, 3 read), 57 reserved, 58 peer_gid_index (ffff: the server
# chooses), 60 the client's -T in ms (5000), 64 QP timeout, 65 retry count,
# 66 RNR retry, 67 reserved, 68 netdev MTU, 70 --expect-mtu
grh="40 00 ffff 00000000 00 00 ffff 00001388 0e 07 07 00 05dc 0000"
grh_set="05 6a 8001 000abcde 03 00 0003 00001388 0a 01 07 00 2328 1000"
z232=$(printf '00%.0s' {1..232})
hello="01 01 0001 00000400 0000000000001000 00000000000003e8 000001f4
	00000001 00 02 0400 0001 03 00 0000000a 00000000 $grh"
# -a --no-inline -c, -D 5, --hop-limit 5 --tclass 106 --pkey 0x8001
# --flow-label 0xabcde --op read -u 10 --retry-count 1
hello_sweep="01 01 0007 00000400 0000000000800000 00000000004c4b40 000001f4
	00000001 00 02 0400 0001 03 00 00000000 00000005 $grh_set"
# 36 rkey, 40 vaddr: none, then a buffer's
addr1="0001 0000 00000011 00abcdef 00000000 00000000
	fe800000000000000000000000000001 00000000 0000000000000000"
addr2="0002 0000 00000012 00123456 00000007 00000013
	00000000000000000000ffffc0a80001 00001234 00007f0000001000"
seed fuzz_wire hello "50504e47 $v 0001 00000048 $hello"
seed fuzz_wire addrs1 "50504e47 $v 0002 00000034 00000001 $addr1"
seed fuzz_wire addrs2 "50504e47 $v 0002 00000064 00000002 $addr1 $addr2"
# COUNTERS: rxe0 port 1, rcvd_seq_err moved by 17 (pp_counters.h)
seed fuzz_wire counters "50504e47 $v 0006 0000002a 01 00 0001 00000001
	00000000 04 72786530 00 00 0000 0000000000000011 0c
	726376645f7365715f657272"
# GIDS: index 0, RoCE v2, eth0, ::ffff:10.99.1.1
seed fuzz_wire gids "50504e47 $v 0007 00000028 0001 0000 00 03 0000
	65746830 $(printf '00%.0s' {1..12})
	00000000000000000000ffff0a630101"
seed fuzz_wire ready "50504e47 $v 0003 00000000"
seed fuzz_wire done-ok "50504e47 $v 0004 00000018 00000000 00000000
	00000000000003e8 0000000000000000"
# ALIVE: 1000 iterations done; and one whose body is 4 bytes short
seed fuzz_wire alive "50504e47 $v 0008 00000008 00000000000003e8"
seed fuzz_wire alive-short "50504e47 $v 0008 00000004 000003e8"
# ERROR "bad size" (code 22), from this version and from version 7
seed fuzz_wire error "50504e47 $v 0005 000000f8 00000016
	6261642073697a65 $(printf '00%.0s' {1..236})"
seed fuzz_wire error-next "50504e47 $next 0005 000000f8 00000016
	6261642073697a65 $(printf '00%.0s' {1..236})"
seed fuzz_wire hello-next "50504e47 $next 0001 00000048 $hello"
seed fuzz_wire hello-sweep "50504e47 $v 0001 00000048 $hello_sweep"
seed fuzz_wire bad-magic "50504e48 0001 0003 00000000"
seed fuzz_wire bad-len "50504e47 $v 0003 00000001 00"
seed fuzz_wire count-mismatch "50504e47 $v 0002 00000034 00000002 $addr1"
seed fuzz_wire truncated "50504e47 $v 0004 00000018 00000000"
seed fuzz_wire error-unpadded "50504e47 $v 0005 000000f8 00000016
	41004200 $z232 00000000 00000000"

# fuzz_rdmacore: selector byte (0 address, 1 srq, 2 XRC, 3 "done", 4 "END",
# 5 -c check), then the bytes as a stock tool writes them (%b escapes).
seed_rc() {
	mkdir -p "$dir/fuzz_rdmacore"
	printf '%b' "\\x$2$3" >"$dir/fuzz_rdmacore/$1"
}
gid=fe800000000000000000000000000001
zgid=$(printf '0%.0s' {1..32})
seed_rc addr 00 "0001:000011:abcdef:$gid\\x00"
seed_rc addr-upper 00 "0001:000011:ABCDEF:$gid\\x00"
seed_rc addr-short 00 "0001:000011:abcdef:fe80\\x00"
seed_rc xrc 02 "0001:000012:000011:00abcd:000007:$gid\\x00"
# two QPs in use, then 254 records of the all-zero address
seed_rc srq 01 "0001:000011:abcdef:$gid\\x000002:000012:000001:$gid\\x00$(
	printf "0000:000000:000000:$zgid\\\\x00%.0s" {1..254})"
seed_rc done-token 03 'done\x00'
seed_rc end-token 04 'END\x00'
# page 16, 64 bytes: 0 at each multiple of 16, the stock filler elsewhere
seed_rc chk 05 "\\x10$(printf '\\x00{{{{{{{{{{{{{{{%.0s' {1..4})"

# fuzz_opts: one argument per NUL-terminated string.
seed_args fuzz_opts server -s 4096 -c -e
seed_args fuzz_opts client --size=1M -n 100 --chk 192.0.2.1
seed_args fuzz_opts uc --uc -m 1024 -g 0 -T 30 host
seed_args fuzz_opts srq-qps -q 32 -r 16
seed_args fuzz_opts op-read --op read -a -s 64K host
seed_args fuzz_opts op-uc-read --uc --op read host
seed_args fuzz_opts xrc --xrc-domain=/tmp/d -q 4 -b ::1 -d rxe0 -i 1 -l 3
seed_args fuzz_opts help -p 1 -h -s 0
seed_args fuzz_opts bad -s -1 --mtu 1000 --bogus
seed_args fuzz_opts ambiguous --i 1 --tim=5 a b
seed_args fuzz_opts measure -a -D 5 --warmup=100 --json --histogram --samples=/tmp/s --no-inline host
seed_args fuzz_opts measure-bad -n 10 -D 1 --rdma-core --warmup 2000000
# found by the fuzzer (srq_pingpong -q 1024 -g 0 -V03 ve): kept as it was
seed fuzz_opts srq-version-stops-parse "2f 00 00 2d71 00 31303234 00 2d67 00 30 00
	2d563033 00 7665"

# fuzz_parse_u64: selector bit 0 = suffixes, bits 1..3 = bounds.
seed_num dec 00 4096
seed_num hex 00 0x1F
seed_num suffix 05 1M
seed_num too-big 05 3G
seed_num overflow 00 18446744073709551616
seed_num sign 02 -1
seed_num bare-0x 01 0x
seed_num max 00 0xffffffffffffffff

# fuzz_mesh_wire: selector byte (type 1..7; 0: the header), then the body.
# IDLE of round 1; WELCOME rank 1 of 4; END 1 "over"; RUN to 10.0.0.2:18516;
# REFUSE "no"; a RESULT that passed with the document {} and a header.
seed fuzz_mesh_wire idle "05 00000001"
seed fuzz_mesh_wire welcome "02 00000001 00000004 00007530 00008ca0"
seed fuzz_mesh_wire end "07 00000001 0004 6f766572"
seed fuzz_mesh_wire run "04 00000000 00000002 01 00004854 00007530 0008
	31302e302e302e32"
seed fuzz_mesh_wire refuse "03 0002 6e6f"
seed fuzz_mesh_wire result "06 00000000 00000001 00 00 00000400 00000000
	00000000000003e8 0000000000007a12 0001 02 01 0000 0000 0000 00000002 7b7d"
seed fuzz_mesh_wire header "00 50504d53 0001 0005 00000004"
