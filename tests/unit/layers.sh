#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# layers.sh COMMON_DIR: the layers of common/ are its folders, in order
# (base, verbs, session); every pp_*.[ch] file is in one of them, and none
# includes a header of a higher layer (the build's include paths already
# refuse that; this names the file and the header).  pp_gitversion.h is
# generated for session/.
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
((bad)) || echo "ok: ${#layer[@]} modules in ${#folders[@]} layers, no include runs up the layers"
exit "$bad"
