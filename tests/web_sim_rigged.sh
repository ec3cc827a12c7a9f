#!/usr/bin/env bash
# Rigs shared cases with `tailor rig` (which stores the body colliders, and for hair each lock's
# thickness and the sheet's ties) and runs a node check, tests/web/SCRIPT, on each
# CASE.glb:CLIP[:ARG]: the web player against `tailor play --json` (sim_colliders.mjs: the
# chains with the colliders, ARG `touch`; sim_hair.mjs: the hair).
#   tests/web_sim_rigged.sh SCRIPT TAILOR WORKDIR TAILOR_SIM.WASM CASE.glb:CLIP[:ARG]...
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
script=$1 tailor=$2 work=$3 wasm=$4
shift 4
mkdir -p "$work"
failed=0
for spec in "$@"; do
  IFS=: read -r case clip arg <<<"$spec"
  rigged="$work/$(basename "$case" .glb)-rigged.glb"
  "$tailor" rig "$case" -o "$rigged" --force >/dev/null
  node --no-warnings "$here/tests/web/$script" "$wasm" "$rigged" "$tailor" "$clip" $arg || failed=1
done
exit "$failed"
