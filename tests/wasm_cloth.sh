#!/usr/bin/env bash
# The cloth solver and the pendulum (tailor/cloth.h, tailor/pendulum.h) built for WebAssembly
# (clang --target=wasm32-wasi, Debian's wasi-libc) and run under Node's WASI compute bit for
# bit what the native build's scalar kernel computes (tests/wasm/cloth_main.c: inputs from
# + - * / and sqrt only; no FMA on either side: x86-64 without -march has none, GCC in ISO C
# mode does not contract, wasm32 has no fused multiply-add). The native SSE2/AVX2 kernels
# (reciprocal square root estimate + one Newton step) are compared too and their largest
# difference printed, not asserted (they are a different rounding, not the wasm build's).
# Given the reactor tailor_sim.wasm, it also checks that it exports every function cloth.h and
# pendulum.h declare.
#   tests/wasm_cloth.sh WORKDIR [CLOTH.wasm [TAILOR_SIM.wasm]]   (the CMake target
#                        tailor_sim_wasm builds both; without them the script builds its own)
# Prints "N passed, N failed"; exits non-zero on any differing bit or missing export.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
prebuilt=${2:-} # the CMake target tailor_sim_wasm's cloth.wasm, when built
reactor=${3:-}  # ... and its tailor_sim.wasm
mkdir -p "$work"
sources=("$here/tests/wasm/cloth_main.c" "$here"/src/sim/*.c "$here/src/base/error.c")
flags=(-O2 -std=c11 -Wall -Wextra -pedantic -Werror -I"$here/include" -I"$here/src")
sysroot=/usr/include/wasm32-wasi
libs=/usr/lib/wasm32-wasi
for need in clang node "$sysroot/assert.h" "$libs/libc.a" "$libs/crt1-command.o"; do
    if [ ! -e "$need" ] && ! command -v "$need" >/dev/null; then
        echo "wasm_cloth: missing $need (scripts/setup.sh installs clang, lld and wasi-libc)"
        echo "0 passed, 1 failed"
        exit 1
    fi
done
cc "${flags[@]}" "${sources[@]}" -lm -o "$work/cloth-native"
wasm=$prebuilt
if [ -z "$wasm" ]; then
    wasm=$work/cloth.wasm
    clang --target=wasm32-wasi -isystem "$sysroot" "${flags[@]}" "${sources[@]}" -nostdlib \
        "$libs/crt1-command.o" -L"$libs" -lc -lm -fuse-ld=lld -o "$wasm"
fi
"$work/cloth-native" > "$work/native.txt"
"$work/cloth-native" simd > "$work/native-simd.txt"
node --no-warnings "$here/tests/wasm/run_wasi.mjs" "$wasm" > "$work/wasm.txt"
passed=0 failed=0
if [ -n "$reactor" ]; then
    # every tl_* function declared in the two headers (a return type, then the name and "(")
    grep -ohE '[a-z_0-9]+[ *]+tl_[a-z_0-9]+\(' "$here/include/tailor/cloth.h" \
        "$here/include/tailor/pendulum.h" | sed -E 's/.*(tl_[a-z_0-9]+)\($/\1/' |
        sort -u > "$work/declared.txt"
    node --no-warnings "$here/tests/wasm/list_exports.mjs" "$reactor" | sort -u > "$work/exported.txt"
    missing=$(comm -23 "$work/declared.txt" "$work/exported.txt")
    if [ -z "$missing" ] && [ "$(wc -l < "$work/declared.txt")" -gt 30 ]; then
        echo "wasm_cloth: $(wc -l < "$work/declared.txt") cloth.h/pendulum.h functions, all exported"
        passed=$((passed + 1))
    else
        echo "wasm_cloth: $reactor does not export:" $missing
        failed=$((failed + 1))
    fi
fi
if python3 - "$work/native.txt" "$work/wasm.txt" "$work/native-simd.txt" <<'PY'
import sys
def rows(path):
    return open(path).read().split('\n')
def compare(a, b):
    assert len(a) == len(b) and len(a) > 100, "different line counts"
    worst, differing = 0.0, 0
    for x, y in zip(a, b):
        fx, fy = x.split(), y.split()
        assert len(fx) == len(fy), (x, y)
        for u, v in zip(fx, fy):
            try:
                d = abs(float(u) - float(v))
            except ValueError:
                assert u == v, (x, y)
                continue
            worst = max(worst, d)
            differing += u != v  # %.9g round-trips a float: equal text is equal bits
    return worst, differing
native, wasm, simd = rows(sys.argv[1]), rows(sys.argv[2]), rows(sys.argv[3])
worst, differing = compare(native, wasm)
print(f"wasm_cloth: {len(native) - 1} lines, wasm32 vs native scalar: {differing} differing "
      f"numbers, largest difference {worst:.3g}")
sw, sd = compare(simd, wasm)
print(f"wasm_cloth: wasm32 vs native SIMD kernels (not asserted): {sd} differing numbers, "
      f"largest difference {sw:.3g}")
assert differing == 0 and worst == 0.0
PY
then
    passed=$((passed + 1))
else
    echo "wasm_cloth: native and wasm32 outputs differ"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
