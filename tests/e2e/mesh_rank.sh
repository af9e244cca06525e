#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# mesh_rank.sh DIR CMD...: one rank of a mesh started by srun
# (mesh_cluster.sh): run CMD and write its exit status into
# DIR/st.$SLURM_PROCID. With PP_MESH_SKIP=R, rank R never starts CMD (it
# writes "skipped"): a rank that never joins.
set -u
dir=$1
shift
rank=${SLURM_PROCID:?mesh_rank.sh runs under srun}
if [[ $rank == "${PP_MESH_SKIP:-}" ]]; then
	echo skipped >"$dir/st.$rank"
	exit 0
fi
st=0
"$@" || st=$?
echo "$st" >"$dir/st.$rank"
exit "$st"
