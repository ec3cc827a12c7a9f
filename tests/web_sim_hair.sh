#!/usr/bin/env bash
# Rigs shared hair cases with `tailor rig` (which stores the colliders, each lock's thickness and
# the sheet's ties) and runs tests/web/sim_hair.mjs on each CASE.glb:CLIP: the web player's hair
# against `tailor play --json`.
#   tests/web_sim_hair.sh TAILOR WORKDIR TAILOR_SIM.WASM CASE.glb:CLIP...
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tailor=$1 work=$2 wasm=$3
shift 3
mkdir -p "$work"
failed=0
for spec in "$@"; do
  IFS=: read -r case clip <<<"$spec"
  rigged="$work/$(basename "$case" .glb)-rigged.glb"
  "$tailor" rig "$case" -o "$rigged" --force >/dev/null
  node --no-warnings "$here/tests/web/sim_hair.mjs" "$wasm" "$rigged" "$tailor" "$clip" || failed=1
done
exit "$failed"
