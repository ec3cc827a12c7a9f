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
    if [ "$(basename "$program")" = bench_sim ]; then
        "$program" | tee "$build/bench_sim.csv"
    else
        "$program"
    fi
done
# The spring-chain solver against @pixiv/three-vrm-springbone on the same scene, and the ratio.
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -f "$build/bench_sim.csv" ] && command -v node >/dev/null && [ -d "$root/node_modules/@pixiv/three-vrm-springbone" ]; then
    echo "# peer_springbone (node)"
    node "$root/bench/peer_springbone.mjs" | tee "$build/peer_springbone.csv"
    echo "# spring chain: ns per link-step, tailor vs three-vrm-springbone"
    echo "characters,tailor_ns,peer_ns,peer_over_tailor"
    awk -F, 'NR == FNR { if (FNR > 1 && $1 == "tailor") t[$2] = $5; next }
             FNR > 1 && ($2 in t) { printf "%s,%s,%s,%.1f\n", $2, t[$2], $5, $5 / t[$2] }' \
        "$build/bench_sim.csv" "$build/peer_springbone.csv"
fi
# KawaiiPhysics (Unreal) publishes about 100 ns per bone-step headless (a 200-bone chain,
# native): not run here, a different scene; the ratio is only a rough comparison.
if [ -f "$build/bench_sim.csv" ]; then
    awk -F, '$1 == "tailor" && $2 == 1000 { printf "# KawaiiPhysics published ~100 ns per bone-step; tailor at 1000 characters %s ns: %.1fx less\n", $5, 100 / $5 }' \
        "$build/bench_sim.csv"
fi
# The colliders' cost over the collider-free one (issue #11's bar: at most 2x), in the scene
# where the legs swing past the tail and in the one where it hangs against a bar.
if [ -f "$build/bench_sim.csv" ]; then
    awk -F, '$2 == 1000 { ns[$1] = $5 }
             END { printf "# at 1000 characters, six capsules over none: %.2fx (legs swinging), %.2fx (against a bar)\n",
                          ns["tailor_6_colliders"] / ns["tailor"], ns["tailor_6_colliders_contact"] / ns["tailor"] }' \
        "$build/bench_sim.csv"
fi
if [ "$found" = 0 ]; then
    echo "bench.sh: no bench_* programs in $build (configure with -DTL_BUILD_BENCH=ON)" >&2
    exit 1
fi
