// Not a test: what the body colliders cost a frame in the web runtime (docs/web.md "Session
// 23"), and what its chains and cloth parts cost (a skirt, a cape: "Session 24"). The time of
// mixer.update + rig.update on a rigged file playing a clip at 60 fps, with attach's colliders on
// and off, and of mixer.update alone (no rig), alternated 9 times; min and median in
// microseconds a frame.
//   node collider_bench.mjs TAILOR_SIM.WASM RIGGED.glb [CLIP_INDEX]
import * as THREE from 'three';
import { loadCase } from './node_case.mjs';

const [wasmFile, file, clipIndex = '0'] = process.argv.slice(2);
const { sim, gltf } = await loadCase(wasmFile, file);
const clip = gltf.animations[Number(clipIndex)];
const run = (colliders, simulated = true) => {
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(clip).play();
  const rig = sim.attach(gltf, { mixer, colliders });
  rig.update(0);
  const t0 = process.hrtime.bigint();
  for (let f = 0; f < 1200; ++f) {
    mixer.update(1 / 60);
    if (simulated) rig.update(1 / 60);
  }
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / 1200;
  const kept = [...rig.chains, ...(rig.cloths || [])].reduce((n, c) => n + (colliders ? c.colliders.length : 0), 0);
  rig.dispose();
  mixer.stopAllAction();
  return { kept, us };
};
const off = [], on = [], mixerOnly = [];
let kept = 0;
for (let k = 0; k < 9; ++k) {
  mixerOnly.push(run(false, false).us);
  off.push(run(false).us);
  const r = run(true);
  kept = r.kept;
  on.push(r.us);
}
const med = (x) => x.slice().sort((u, v) => u - v)[x.length >> 1];
const show = (x) => `min ${Math.min(...x).toFixed(1)} us, median ${med(x).toFixed(1)} us`;
const probe = sim.attach(gltf, {});
const parts = `${probe.chains.length} chain(s), ${(probe.cloths || []).length} cloth(s)`;
probe.dispose();
console.log(`${clip.name} played (${parts}): mixer alone: ${show(mixerOnly)}; colliders off: ${show(off)}; on (${kept} kept): ${show(on)}`);
