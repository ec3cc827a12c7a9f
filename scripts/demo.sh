#!/usr/bin/env bash
# The main job on a built-in character: write the sample, then show what tailor sees in it.
set -euo pipefail
tailor=$1
out=$2
mkdir -p "$out"
"$tailor" sample tailed-biped -o "$out/tailed-biped.glb"
"$tailor" inspect "$out/tailed-biped.glb"
echo
echo "demo: wrote $out/tailed-biped.glb"
