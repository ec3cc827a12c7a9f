#!/usr/bin/env bash
# The main job on a built-in character: a tailed biped whose tail an auto-rigger bound to the
# left shin and the thighs. tailor finds the tail, gives it a bone chain, measures the skin
# before and after, and plays a clip with the chain simulated.
set -euo pipefail
tailor=$1
out=$2
mkdir -p "$out"
sample="$out/tailed-biped.glb"
rigged="$out/tailed-biped-rigged.glb"

echo "== tailor sample tailed-biped: a character with a misbound tail"
"$tailor" sample tailed-biped -o "$sample" --truth "$out/tailed-biped.truth.json"
"$tailor" inspect "$sample" | head -n 12
echo
echo "== tailor rig: find the skin the skeleton does not cover, give the tail a chain"
"$tailor" rig "$sample" -o "$rigged" --report "$out/rig-report.json"
echo
echo "== tailor measure: edge stretch of the tail as bound, rigid, and with the chain"
"$tailor" measure "$sample" --clip Walk
echo
echo "== tailor play: the rigged file's Walk with the chain simulated (tip positions)"
"$tailor" play "$rigged" --clip Walk --fps 10
echo
echo "demo: wrote $sample, $rigged and $out/rig-report.json"
