#!/usr/bin/env bash
# Rigs shared cases with `tailor rig` (which stores the body colliders) and runs
# tests/web/sim_colliders.mjs on each CASE.glb:CLIP[:touch]: the web player's chains with the
# colliders against `tailor play --json`.
#   tests/web_sim_colliders.sh TAILOR WORKDIR TAILOR_SIM.WASM CASE.glb:CLIP[:touch]...
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tailor=$1 work=$2 wasm=$3
shift 3
mkdir -p "$work"
failed=0
for spec in "$@"; do
  IFS=: read -r case clip touch <<<"$spec"
  rigged="$work/$(basename "$case" .glb)-rigged.glb"
  "$tailor" rig "$case" -o "$rigged" --force >/dev/null
  node --no-warnings "$here/tests/web/sim_colliders.mjs" "$wasm" "$rigged" "$tailor" "$clip" $touch || failed=1
done
exit "$failed"
