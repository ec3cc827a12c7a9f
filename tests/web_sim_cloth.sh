#!/usr/bin/env bash
# Rigs shared cases with `tailor rig` (a skirt's or a cape's cloth lattice, the body colliders)
# and runs tests/web/sim_cloth.mjs on each CASE.glb:CLIP[,CLIP...]: the web player's cloth bones
# against the C player's (WEB_CLOTH_BONES), with and without the colliders.
#   tests/web_sim_cloth.sh TAILOR WORKDIR TAILOR_SIM.WASM WEB_CLOTH_BONES CASE.glb:CLIPS...
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tailor=$1 work=$2 wasm=$3 bones=$4
shift 4
mkdir -p "$work"
failed=0
for spec in "$@"; do
  IFS=: read -r case clips <<<"$spec"
  rigged="$work/$(basename "$case" .glb)-rigged.glb"
  "$tailor" rig "$case" -o "$rigged" --force >/dev/null
  IFS=, read -ra list <<<"$clips"
  for clip in "${list[@]}"; do
    node --no-warnings "$here/tests/web/sim_cloth.mjs" "$wasm" "$rigged" "$bones" "$clip" touch || failed=1
  done
done
exit "$failed"
