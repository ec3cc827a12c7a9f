#!/usr/bin/env bash
# Rigs a character with a pendulum and an aim part (`tailor rig --pendulum / --aim`) and runs
# tests/web/sim_joints.mjs on it for each clip of CLIPS (comma-separated): the web player
# against `tailor play --json`.
#   tests/web_sim_joints.sh TAILOR WORKDIR TAILOR_SIM.WASM CHARACTER.glb CLIPS PENDULUM AIM [ROTATIONS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$2"
"$1" rig "$4" -o "$2/joints.glb" --force --pendulum "$6" --aim "$7" >/dev/null
IFS=, read -ra clips <<<"$5"
failed=0
for clip in "${clips[@]}"; do
  node --no-warnings "$here/tests/web/sim_joints.mjs" "$3" "$2/joints.glb" "$1" "$clip" ${8:-} || failed=1
done
exit "$failed"
