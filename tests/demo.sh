#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The demo: from a fresh machine, install what is missing, build, and run a
# real rc_pingpong server and client over RDMA, printing their output.  Where
# the host has no RDMA device, they run on Soft-RoCE in a QEMU guest (see
# docs/dev/testing.md); with one, they run right here on it.
#
# Usage: bash tests/demo.sh [CLIENT-OPTIONS...]   e.g. -s 65536 -n 500 -c
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${PP_BUILD_DIR:-$top/build}
cd "$top"

bash tests/install-deps.sh
cmake -S . -B "$build" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
PP_BIN=$build exec tests/softroce/guest.sh tests/e2e/demo.sh "$@"
