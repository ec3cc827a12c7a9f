#!/usr/bin/env bash
# web/tailor-sim.js (the ES module over the wasm32 build of src/sim, in node) computes what
# the native solver computes: tests/web/chain_scene.c natively and tests/web/sim_compare.mjs
# through the module, every joint of every frame within 1e-5 of the chain's length.
#   tests/web_sim.sh WORKDIR TAILOR_SIM.WASM
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$1
wasm=$2
mkdir -p "$work"
cc -O2 -std=c11 -Wall -Wextra -pedantic -Werror -I"$here/include" -I"$here/src" \
    "$here/tests/web/chain_scene.c" "$here"/src/sim/*.c "$here/src/base/error.c" -lm \
    -o "$work/chain-scene-native"
"$work/chain-scene-native" > "$work/scene-native.txt"
node --no-warnings "$here/tests/web/sim_compare.mjs" "$wasm" > "$work/scene-wasm.txt"
if python3 - "$work/scene-native.txt" "$work/scene-wasm.txt" <<'PY'
import sys
a = open(sys.argv[1]).read().split('\n')
b = open(sys.argv[2]).read().split('\n')
assert len(a) == len(b) and len(a) > 100, "different line counts"
length = float(a[0].split()[1])
assert length > 0 and abs(float(b[0].split()[1]) - length) <= 1e-5 * length, (a[0], b[0])
worst = 0.0
for x, y in zip(a[1:], b[1:]):
    fx, fy = x.split(), y.split()
    assert fx[:2] == fy[:2], (x, y)
    for u, v in zip(fx[2:], fy[2:]):
        worst = max(worst, abs(float(u) - float(v)))
print(f"web_sim: {len(a) - 2} joint positions, chain length {length:.4g}, "
      f"largest difference {worst:.3g} ({worst / length:.3g} of the length)")
assert worst <= 1e-5 * length, worst
PY
then
    echo "1 passed, 0 failed"
else
    echo "web_sim: native and tailor-sim.js differ"
    echo "0 passed, 1 failed"
    exit 1
fi
