#!/usr/bin/env bash
# Rigs a character with a pendulum and an aim part (`tailor rig --pendulum / --aim`) and runs
# tests/web/sim_joints.mjs on it for each clip of CLIPS (comma-separated): the web player
# against `tailor play --json`. TURN (zup, facex): the character turned in its bind data first
# (tests/web/turn_case.mjs), so the pendulum plays by the skin's frame the file stores.
#   tests/web_sim_joints.sh TAILOR WORKDIR TAILOR_SIM.WASM CHARACTER.glb CLIPS PENDULUM AIM [ROTATIONS [TURN]]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$2"
character=$4
if [ -n "${9:-}" ]; then
  character="$2/turned.glb"
  node --no-warnings "$here/tests/web/turn_case.mjs" "$4" "$character" "$9"
fi
"$1" rig "$character" -o "$2/joints.glb" --force --pendulum "$6" --aim "$7" >/dev/null
IFS=, read -ra clips <<<"$5"
failed=0
for clip in "${clips[@]}"; do
  node --no-warnings "$here/tests/web/sim_joints.mjs" "$3" "$2/joints.glb" "$1" "$clip" ${8:-} || failed=1
done
exit "$failed"
