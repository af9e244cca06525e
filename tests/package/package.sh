#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The binary packages (cmake/Packaging.cmake), built from BUILD-DIR with
# cpack, installed into a throwaway root, used from there and removed.
#
# Usage: package.sh BUILD-DIR deb|rpm    (CTest: package.deb, package.rpm)
# Environment: PP_CPACK, the cpack of the CMake that configured BUILD-DIR
# (default: cpack).  Needs root, as the README's test commands do (dpkg and
# rpm install as root; rpm --root chroots), and dpkg-deb or rpmbuild
# (tests/install-deps.sh): fails with one line naming what is missing
# otherwise (CI runs as root; a skip would hide a package never checked).
#
# What it proves, for the .deb (dpkg-deb, dpkg):
#   - the package holds the four tools in /usr/bin, their man pages and
#     pingpong(7) (gzip'd), the bash completions, README.md, LICENSE and the
#     Debian copyright file, and declares Depends: libibverbs1 (from
#     dpkg-shlibdeps);
#   - none of its files belongs to a package installed on this host
#     (ibverbs-utils' ibv_* tools, perftest's ib_*, ...): no collision;
#   - `dpkg --root=ROOT -i` installs it into an empty directory, with no
#     --force option, its Depends checked against a dpkg database that is a
#     copy of the host's (the host's libibverbs1 and libc6 are what the
#     tools then run with); what lands in ROOT is exactly the package's list;
#   - from ROOT: every tool's --help and --version run (on the host's
#     libibverbs), `man -l` renders rc_pingpong(1) and pingpong(7), and the
#     installed completion loads in bash and completes;
#   - `dpkg --root=ROOT -r` removes every file it installed: only dpkg's own
#     database is left, and the package is no longer known as installed.
# It does not prove that the package installs on a freshly debootstrapped
# system (ROOT holds no libraries: the tools run with the host's), nor
# anything about the tools beyond --help and --version.
#
# For the .rpm (rpmbuild, rpm): the package holds the same files and
# requires libibverbs (by name, and libibverbs.so.1 by rpmbuild's automatic
# requirements); `rpm --root=ROOT -i` refuses it for want of libibverbs in
# ROOT's empty rpm database, installs it with --nodeps (Debian has no rpm
# database of its libraries), `rpm -V` finds every file intact, the tools
# and man page run from ROOT as above, and `rpm -e` removes every file.
set -euo pipefail

build=${1:?usage: package.sh BUILD-DIR deb|rpm}
kind=${2:?usage: package.sh BUILD-DIR deb|rpm}
build=$(realpath "$build")
tools=(rc_pingpong ud_pingpong srq_pingpong xrc_pingpong)
man_ext= # the .deb's man pages are gzip'd (cmake/DebFixup.cmake)
[[ $kind != deb ]] || man_ext=.gz
if ((EUID != 0)); then
	echo "package.$kind: needs root (dpkg --root, rpm --root): run it as root" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "package.$kind: $*" >&2
	exit 1
}

# The files every package must hold, without the leading /.
expected_files() {
	local t
	for t in "${tools[@]}"; do
		echo "usr/bin/$t"
		echo "usr/share/man/man1/$t.1$man_ext"
		echo "usr/share/bash-completion/completions/$t"
	done
	echo "usr/share/man/man7/pingpong.7$man_ext"
	echo usr/share/doc/pingpong/README.md
	echo usr/share/doc/pingpong/LICENSE
	[[ $kind != deb ]] || echo usr/share/doc/pingpong/copyright
}

# cpack GENERATOR: build the package into $tmp/out, print its path.
make_package() {
	local log=$tmp/cpack.log pkg
	if ! (cd "$build" && "${PP_CPACK:-cpack}" -G "$1" -B "$tmp/out") \
		>"$log" 2>&1; then
		cat "$log" >&2
		fail "cpack -G $1 failed"
	fi
	pkg=$(find "$tmp/out" -maxdepth 1 -name "pingpong*.$kind")
	[[ -f $pkg ]] || fail "cpack -G $1 made no .$kind: $(cat "$log")"
	echo "$pkg"
}

# check_listed LIST-FILE: every expected file is in LIST-FILE (paths
# without the leading / or ./).
check_listed() {
	local f missing
	missing=$(expected_files | while read -r f; do
		grep -qxF "$f" "$1" || echo "$f"
	done)
	[[ -z $missing ]] || fail "package lacks: $missing"
}

# use_root ROOT: run the installed tools, man pages and completion.
use_root() {
	local root=$1 t out want
	for t in "${tools[@]}"; do
		out=$("$root/usr/bin/$t" --help) ||
			fail "$root/usr/bin/$t --help failed"
		[[ $out == Usage:* && $out == *--version* ]] ||
			fail "$t --help from the package: '$out'"
		out=$("$root/usr/bin/$t" --version) ||
			fail "$root/usr/bin/$t --version failed"
		want=$("$build/$t/$t" --version)
		[[ $out == "$want" ]] ||
			fail "$t --version from the package: '$out', built: '$want'"
	done
	out=$(MANWIDTH=200 man -l "$root/usr/share/man/man1/rc_pingpong.1$man_ext" 2>&1) ||
		fail "man -l rc_pingpong.1: $out"
	[[ $out == *"rc_pingpong - ping-pong over an RDMA Reliable"* &&
		$out == *"--version"* && $out == *"EXIT STATUS"* ]] ||
		fail "man -l rc_pingpong.1 does not show its page: $out"
	# an option's "--" in the help text stays two hyphens (pandoc's "smart"
	# typography would make it an en dash: "give –pkey")
	[[ $out == *"another way to give --pkey)"* && $out != *$'\u2013'* ]] ||
		fail "man -l rc_pingpong.1: '--' printed as an en dash: $(grep -m 1 $'\u2013' <<<"$out")"
	out=$(MANWIDTH=200 man -l "$root/usr/share/man/man7/pingpong.7$man_ext" 2>&1) ||
		fail "man -l pingpong.7: $out"
	[[ $out == *"pingpong - raw-verbs RDMA ping-pong tools"* ]] ||
		fail "man -l pingpong.7 does not show its page: $out"
	out=$(bash -c '
		source "$1/usr/share/bash-completion/completions/rc_pingpong"
		complete -p rc_pingpong
		COMP_WORDS=(rc_pingpong --vers) COMP_CWORD=1
		_pingpong_complete rc_pingpong --vers rc_pingpong
		echo "${COMPREPLY[*]}"' bash "$root") ||
		fail "the installed completion does not load: $out"
	[[ $out == "complete -F _pingpong_complete rc_pingpong"$'\n'--version ]] ||
		fail "the installed completion offers: '$out'"
}

# removed ROOT DB LIST: after removal, no file is left in ROOT outside DB
# (the package manager's database), and no path of LIST (what the package
# holds, its own directories included) is left.
removed() {
	local left p
	left=$(cd "$1" && find . -not -type d -not -path "./$2/*")
	while read -r p; do
		[[ ! -e $1/$p && ! -L $1/$p ]] || left+=" $p"
	done <"$3"
	[[ -z $left ]] || fail "left behind after removal: $left"
}

test_deb() {
	local deb root=$tmp/root admin log=$tmp/dpkg.log f owner
	command -v dpkg-deb >/dev/null || fail "dpkg-deb is missing"
	deb=$(make_package DEB)

	dpkg-deb -f "$deb" Depends | grep -qE '(^|, )libibverbs1( |,|$)' ||
		fail "Depends lacks libibverbs1: $(dpkg-deb -f "$deb" Depends)"
	[[ $(dpkg-deb -f "$deb" Package) == pingpong ]] ||
		fail "Package: $(dpkg-deb -f "$deb" Package)"
	dpkg-deb --fsys-tarfile "$deb" | tar -t | sed 's|^\./||; s|/$||; /^$/d' |
		sort >"$tmp/all"
	# its files; "$tmp/all" also has its directories
	(cd "$tmp" && mkdir x && dpkg-deb -x "$deb" x && cd x &&
		find . -not -type d | sed 's|^\./||' | sort) >"$tmp/list"
	check_listed "$tmp/list"
	while read -r f; do
		if owner=$(dpkg -S "/$f" 2>/dev/null); then
			fail "/$f collides with a package of this host: $owner"
		fi
	done <"$tmp/list"

	admin=$root/var/lib/dpkg
	mkdir -p "$admin/info" "$admin/updates"
	cp /var/lib/dpkg/status "$admin/status"
	touch "$admin/available"
	dpkg --root="$root" --log="$log" -i "$deb" >"$tmp/dpkg.out" 2>&1 ||
		fail "dpkg -i: $(cat "$tmp/dpkg.out")"
	[[ $(dpkg-query --admindir="$admin" -W -f='${Status}' pingpong) == \
		"install ok installed" ]] || fail "not installed after dpkg -i"
	(cd "$root" && find . -not -type d -not -path './var/lib/dpkg/*' |
		sed 's|^\./||' | sort) >"$tmp/installed"
	diff -u "$tmp/list" "$tmp/installed" >&2 ||
		fail "the files in the root differ from the package's"

	use_root "$root"

	dpkg --root="$root" --log="$log" -r pingpong >"$tmp/dpkg.out" 2>&1 ||
		fail "dpkg -r: $(cat "$tmp/dpkg.out")"
	[[ $(dpkg-query --admindir="$admin" -W -f='${Status}' pingpong \
		2>/dev/null || true) != *" installed" ]] ||
		fail "still installed after dpkg -r"
	removed "$root" var/lib/dpkg "$tmp/all"
	echo "package.deb: $(basename "$deb") built, installed into a clean root, used, removed"
}

test_rpm() {
	local rpm root=$tmp/rpmroot out
	local rpmr=(rpm --root="$root" --dbpath=/var/lib/rpm)
	command -v rpmbuild >/dev/null ||
		fail "rpmbuild is missing (tests/install-deps.sh installs rpm)"
	rpm=$(make_package RPM)

	out=$(rpm -qp --requires "$rpm")
	{ grep -qx libibverbs <<<"$out" &&
		grep -q '^libibverbs\.so\.1()' <<<"$out"; } ||
		fail "Requires lack libibverbs: $out"
	rpm -qlp "$rpm" | sed 's|^/||' | sort >"$tmp/list"
	check_listed "$tmp/list"

	mkdir -p "$root"
	"${rpmr[@]}" --initdb
	if out=$("${rpmr[@]}" -i "$rpm" 2>&1); then
		fail "rpm -i into an empty root did not check dependencies"
	fi
	[[ $out == *"libibverbs.so.1()(64bit) is needed by pingpong"* ]] ||
		fail "rpm -i refused for another reason: $out"
	out=$("${rpmr[@]}" -i --nodeps "$rpm" 2>&1) ||
		fail "rpm -i --nodeps: $out"
	out=$("${rpmr[@]}" -V --nodeps pingpong 2>&1) || fail "rpm -V: $out"

	use_root "$root"

	out=$("${rpmr[@]}" -e pingpong 2>&1) || fail "rpm -e: $out"
	if "${rpmr[@]}" -q pingpong >/dev/null 2>&1; then
		fail "still installed after rpm -e"
	fi
	removed "$root" var/lib/rpm "$tmp/list"
	echo "package.rpm: $(basename "$rpm") built, installed into a clean root, used, removed"
}

case $kind in
deb) test_deb ;;
rpm) test_rpm ;;
*) fail "unknown kind '$kind': deb or rpm" ;;
esac
