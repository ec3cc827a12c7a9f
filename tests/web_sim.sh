#!/usr/bin/env bash
# web/tailor-sim.js (the ES module over the wasm32 build of src/sim, in node) computes what
# the native solver computes: tests/web/chain_scene.c natively and tests/web/sim_compare.mjs
# through the module, every joint of every frame within 1e-5 of the chain's length. Sleep
# (createChain's sleepSpeed and sleepSeconds, chain.stats()): the scene holds its pose still
# after frame 300; the stats of every frame are the same in both (the same frame falls asleep,
# the same internal step count), the chain falls asleep within its window plus 3 s of settling,
# its joints keep their bits while asleep, and the first moved frame wakes it and steps.
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
stats = [x for x in a if x.split()[1:2] == ["s"]]
assert stats == [y for y in b if y.split()[1:2] == ["s"]], "the stats differ"
# the held frames: those whose pose repeats the frame before (sleep needs the same floats)
hold, window = 300, 0.8  # tests/web/chain_scene.c: frames 301 .. 300 + HOLD, sleep_seconds
frames = {int(x.split()[0]): [int(v) for v in x.split()[2:]] for x in stats}
end = max(frames) - 60
asleep = [f for f in frames if frames[f][0]]
assert asleep, "the held chain never falls asleep"
first = min(asleep)
assert hold < first <= hold + 60 * (window + 3.0), f"fell asleep at frame {first}"
assert all(frames[f][0] for f in range(first, end + 1)), "woke while held"
assert frames[end][1] == 1 and frames[end][2] == frames[first][2], "stepped while asleep"
assert frames[end + 1][0] == 0 and frames[end + 1][2] > frames[end][2], "the moved frame did not wake it"
for rows in (a, b):
    joints = {}
    for x in rows[1:]:
        f = x.split()
        if len(f) == 5 and f[1] != "s":
            joints.setdefault(int(f[0]), []).append(f[2:])
    assert all(joints[f] == joints[first] for f in range(first, end + 1)), "moved while asleep"
    assert joints[end + 1] != joints[end], "the moved frame did not move the chain"
print(f"web_sim: asleep from frame {first} ({(first - hold) / 60:.2f} s after the hold, window "
      f"{window} s) to {end}, woken at {end + 1}: stats the same in both builds")
a, b = [x for x in a if x.split()[1:2] != ["s"]], [y for y in b if y.split()[1:2] != ["s"]]
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
