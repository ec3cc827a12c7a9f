#!/usr/bin/env bash
# Rigs a shared case with `tailor rig` and runs tests/web/sim_fox.mjs on it.
#   tests/web_sim_fox.sh TAILOR WORKDIR TAILOR_SIM.WASM CASE.glb
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$2"
"$1" rig "$4" -o "$2/rigged.glb" --force >/dev/null
node --no-warnings "$here/tests/web/sim_fox.mjs" "$3" "$2/rigged.glb" "$1"
