#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# layers.sh COMMON_DIR: the layers of common/ are its folders, in order
# (base, verbs, session); every pp_*.[ch] file is in one of them, and none
# includes a header of a higher layer (the build's include paths already
# refuse that; this names the file and the header).  pp_gitversion.h is
# generated for session/.
#
# Then the modules: a module is the pp_NAME.c and pp_NAME.h of one name (or
# either alone); module A uses module B when pp_A.c or pp_A.h includes
# "pp_B.h".  No circle: no module uses, through any chain of uses, itself
# (within a layer too, where the folders set no order: a module that
# includes the header of one that uses it is a circle).  A circle is named
# with its chain.
set -euo pipefail
dir=${1:?usage: layers.sh COMMON_DIR}
folders=(base verbs session)
declare -A layer=([pp_gitversion]=3)
n=0
for folder in "${folders[@]}"; do
	n=$((n + 1))
	for f in "$dir/$folder"/pp_*.[ch]; do
		m=$(basename "${f%.[ch]}")
		if [[ -n ${layer[$m]:-} && ${layer[$m]} != "$n" ]]; then
			echo "FAIL: $m is in two layers"
			exit 1
		fi
		layer[$m]=$n
	done
done
((${#layer[@]} > 10)) || {
	echo "FAIL: no layers read from $dir/{${folders[*]}}"
	exit 1
}
bad=0
stray=$(find "$dir" -maxdepth 1 -name 'pp_*.[ch]')
if [[ -n $stray ]]; then
	echo "FAIL: in no layer's folder: $stray"
	bad=1
fi
for folder in "${folders[@]}"; do
	for f in "$dir/$folder"/pp_*.[ch]; do
		mod=$(basename "${f%.[ch]}")
		while read -r inc; do
			[[ -n ${layer[$inc]:-} ]] || {
				echo "FAIL: $folder/$(basename "$f") includes $inc.h, which is in no layer"
				bad=1
				continue
			}
			if ((layer[$inc] > layer[$mod])); then
				echo "FAIL: $folder/$(basename "$f") (layer ${layer[$mod]}) includes $inc.h (layer ${layer[$inc]})"
				bad=1
			fi
		done < <(sed -n 's/^#include "\(pp_[a-z_]*\)\.h"$/\1/p' "$f")
	done
done

# The uses of each module: uses[A]="B C ...".
declare -A uses=()
for folder in "${folders[@]}"; do
	for f in "$dir/$folder"/pp_*.[ch]; do
		mod=$(basename "${f%.[ch]}")
		while read -r inc; do
			[[ $inc != "$mod" && -n ${layer[$inc]:-} ]] || continue
			uses[$mod]+=" $inc"
		done < <(sed -n 's/^#include "\(pp_[a-z_]*\)\.h"$/\1/p' "$f")
	done
done
# Depth first: state 1 = on the chain under way, 2 = done (no circle
# through it).  A use of a module on the chain closes a circle.
declare -A state=()
chain=()
circles=0
visit() {
	local m=$1 u i
	state[$m]=1
	chain+=("$m")
	for u in ${uses[$m]:-}; do
		if [[ ${state[$u]:-0} == 1 ]]; then
			for ((i = 0; i < ${#chain[@]}; i++)); do
				[[ ${chain[i]} != "$u" ]] || break
			done
			echo "FAIL: a circle of includes: $(printf '%s -> ' "${chain[@]:i}")$u"
			circles=$((circles + 1))
		elif [[ -z ${state[$u]:-} ]]; then
			visit "$u"
		fi
	done
	unset 'chain[${#chain[@]}-1]'
	state[$m]=2
}
for m in $(printf '%s\n' "${!layer[@]}" | sort); do
	[[ -n ${state[$m]:-} ]] || visit "$m"
done
((circles == 0)) || bad=1

((bad)) || echo "ok: ${#layer[@]} modules in ${#folders[@]} layers, no include runs up the layers, no circle"
exit "$bad"
