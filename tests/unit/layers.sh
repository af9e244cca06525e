#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# layers.sh COMMON_DIR: no file of common/ includes a header of a higher
# layer.  The layers are the libraries of common/CMakeLists.txt, in order
# (pp_base, pp_verbs, pp_session); a header is in the layer of its .c file,
# and the headers without one (pp_gitversion.h is generated) are named below.
set -euo pipefail
dir=${1:?usage: layers.sh COMMON_DIR}
declare -A layer=([pp_time]=1 [pp_be]=1 [pp_run_loop]=2 [pp_gitversion]=3)
n=0
for lib in pp_base pp_verbs pp_session; do
	n=$((n + 1))
	while read -r src; do
		layer[${src%.c}]=$n
	done < <(sed -n "/^add_library($lib STATIC/,/^)/s/^  \(pp_[a-z_]*\.c\)$/\1/p" \
		"$dir/CMakeLists.txt")
done
((${#layer[@]} > 10)) || {
	echo "FAIL: no layers read from $dir/CMakeLists.txt"
	exit 1
}
bad=0
for f in "$dir"/pp_*.[ch]; do
	mod=$(basename "${f%.[ch]}")
	[[ -n ${layer[$mod]:-} ]] || {
		echo "FAIL: $(basename "$f") is in no layer"
		bad=1
		continue
	}
	while read -r inc; do
		[[ -n ${layer[$inc]:-} ]] || {
			echo "FAIL: $(basename "$f") includes $inc.h, which is in no layer"
			bad=1
			continue
		}
		if ((layer[$inc] > layer[$mod])); then
			echo "FAIL: $(basename "$f") (layer ${layer[$mod]}) includes $inc.h (layer ${layer[$inc]})"
			bad=1
		fi
	done < <(sed -n 's/^#include "\(pp_[a-z_]*\)\.h"$/\1/p' "$f")
done
((bad)) || echo "ok: ${#layer[@]} modules, no include runs up the layers"
exit "$bad"
