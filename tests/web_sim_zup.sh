#!/usr/bin/env bash
# Turns shared cases in their bind data (tests/web/turn_case.mjs: zup, Z-up; facex, facing +X),
# rigs them with `tailor rig` (which stores the skin's frame) and runs tests/web/sim_colliders.mjs
# on each CASE.glb:CLIP:TURN[:touch]: the web player's chains against `tailor play --json` with
# the stored frame, and far off it without (`frame`); then the frame refusals
# (tests/web/frame_refusals.mjs) on the first.
#   tests/web_sim_zup.sh TAILOR WORKDIR TAILOR_SIM.WASM CASE.glb:CLIP:TURN[:touch]...
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tailor=$1 work=$2 wasm=$3
shift 3
mkdir -p "$work"
failed=0 first=
for spec in "$@"; do
  IFS=: read -r case clip turn touch <<<"$spec"
  turned="$work/$(basename "$case" .glb)-$turn.glb"
  rigged="$work/$(basename "$case" .glb)-$turn-rigged.glb"
  node --no-warnings "$here/tests/web/turn_case.mjs" "$case" "$turned" "$turn"
  "$tailor" rig "$turned" -o "$rigged" --force >/dev/null
  first=${first:-$rigged}
  node --no-warnings "$here/tests/web/sim_colliders.mjs" "$wasm" "$rigged" "$tailor" "$clip" frame $touch || failed=1
done
node --no-warnings "$here/tests/web/frame_refusals.mjs" "$first" || failed=1
exit "$failed"
