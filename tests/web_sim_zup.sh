#!/usr/bin/env bash
# Turns shared cases Z-up in their bind data (tests/web/zup_case.mjs), rigs them with
# `tailor rig` (which stores the skin's frame) and runs tests/web/sim_colliders.mjs on each
# CASE.glb:CLIP[:touch]: the web player's chains against `tailor play --json` with the stored
# frame, and far off it without (`frame`); then the frame refusals (tests/web/frame_refusals.mjs)
# on the first.
#   tests/web_sim_zup.sh TAILOR WORKDIR TAILOR_SIM.WASM CASE.glb:CLIP[:touch]...
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tailor=$1 work=$2 wasm=$3
shift 3
mkdir -p "$work"
failed=0 first=
for spec in "$@"; do
  IFS=: read -r case clip touch <<<"$spec"
  zup="$work/$(basename "$case" .glb)-zup.glb"
  rigged="$work/$(basename "$case" .glb)-zup-rigged.glb"
  node --no-warnings "$here/tests/web/zup_case.mjs" "$case" "$zup"
  "$tailor" rig "$zup" -o "$rigged" --force >/dev/null
  first=${first:-$rigged}
  node --no-warnings "$here/tests/web/sim_colliders.mjs" "$wasm" "$rigged" "$tailor" "$clip" frame $touch || failed=1
done
node --no-warnings "$here/tests/web/frame_refusals.mjs" "$first" || failed=1
exit "$failed"
