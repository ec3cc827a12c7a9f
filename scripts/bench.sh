#!/usr/bin/env bash
# Runs every benchmark program in a build directory (built with -DTL_BUILD_BENCH=ON), one
# after another, each printing its own CSV under a "# name" line. Usage: bench.sh BUILD_DIR
set -euo pipefail
build="${1:?usage: bench.sh BUILD_DIR}"
found=0
for program in "$build"/bench_*; do
    [ -f "$program" ] && [ -x "$program" ] || continue
    found=1
    echo "# $(basename "$program")"
    "$program"
done
if [ "$found" = 0 ]; then
    echo "bench.sh: no bench_* programs in $build (configure with -DTL_BUILD_BENCH=ON)" >&2
    exit 1
fi
