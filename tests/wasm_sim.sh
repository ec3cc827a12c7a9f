#!/usr/bin/env bash
# The solver (src/sim) builds for WebAssembly (clang --target=wasm32-wasi, Debian's
# wasi-libc) and, run under Node's WASI, computes what the native build computes.
#   tests/wasm_sim.sh WORKDIR [CHAIN.wasm]   (the CMake target tailor_sim_wasm builds it;
#                                            without it the script builds its own)
# Prints "N passed, N failed"; exits non-zero on any difference beyond 1e-5 (float printing
# and libm differences, far below the solver's 1e-4 link-length tolerance).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
prebuilt=${2:-} # the CMake target tailor_sim_wasm's chain.wasm, when built
mkdir -p "$work"
sources=("$here/tests/wasm/chain_main.c" "$here"/src/sim/*.c "$here/src/base/error.c")
flags=(-O2 -std=c11 -Wall -Wextra -pedantic -Werror -I"$here/include" -I"$here/src")
sysroot=/usr/include/wasm32-wasi
libs=/usr/lib/wasm32-wasi
for need in clang node "$sysroot/assert.h" "$libs/libc.a" "$libs/crt1-command.o"; do
    if [ ! -e "$need" ] && ! command -v "$need" >/dev/null; then
        echo "wasm_sim: missing $need (scripts/setup.sh installs clang, lld and wasi-libc)"
        echo "0 passed, 1 failed"
        exit 1
    fi
done
cc "${flags[@]}" "${sources[@]}" -lm -o "$work/chain-native"
wasm=$prebuilt
if [ -z "$wasm" ]; then
    wasm=$work/chain.wasm
    clang --target=wasm32-wasi -isystem "$sysroot" "${flags[@]}" "${sources[@]}" -nostdlib \
        "$libs/crt1-command.o" -L"$libs" -lc -lm -fuse-ld=lld -o "$wasm"
fi
"$work/chain-native" > "$work/native.txt"
node --no-warnings "$here/tests/wasm/run_wasi.mjs" "$wasm" > "$work/wasm.txt"
if python3 - "$work/native.txt" "$work/wasm.txt" <<'PY'
import sys
a = open(sys.argv[1]).read().split('\n')
b = open(sys.argv[2]).read().split('\n')
assert len(a) == len(b) and len(a) > 10, "different line counts"
worst = 0.0
for x, y in zip(a, b):
    fx, fy = x.split(), y.split()
    assert len(fx) == len(fy), (x, y)
    for u, v in zip(fx, fy):
        try:
            worst = max(worst, abs(float(u) - float(v)))
        except ValueError:
            assert u == v, (x, y)
print(f"wasm_sim: {len(a) - 1} lines, largest difference {worst:.3g}")
assert worst <= 1e-5, worst
PY
then
    echo "1 passed, 0 failed"
else
    echo "wasm_sim: native and wasm32 outputs differ"
    echo "0 passed, 1 failed"
    exit 1
fi
