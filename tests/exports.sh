#!/usr/bin/env bash
# Fails when a shared library exports a symbol outside the public API (tl_*): internal helpers
# (rig_*, sample_*, mat4_*) must stay local (cmake/tailor.map).
#   tests/exports.sh build/libtailor.so
set -euo pipefail
lib=$1
symbols=$(nm -D --defined-only "$lib" | awk '{print $3}')
count=$(printf '%s\n' "$symbols" | grep -c . || true)
if [ "$count" -eq 0 ]; then
    echo "exports: $lib exports nothing" >&2
    exit 1
fi
stray=$(printf '%s\n' "$symbols" | grep -v '^tl_' || true)
if [ -n "$stray" ]; then
    echo "exports: $lib exports symbols outside tl_*:" >&2
    printf '  %s\n' $stray >&2
    exit 1
fi
echo "exports: $lib exports $count symbols, all tl_*"
