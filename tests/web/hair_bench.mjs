// Not a test: what a rigged hair style costs a frame in the web runtime (docs/web.md "Session
// 24"). The time of mixer.update + rig.update playing CLIP at 60 fps, 600 frames after 60 to warm
// up, in microseconds a frame (one run: alternate runs of two modules and take min and median).
//   node hair_bench.mjs TAILOR_SIM.WASM RIGGED.glb CLIP
import * as THREE from 'three';
import { loadCase } from './node_case.mjs';

const [wasmFile, file, clipName] = process.argv.slice(2);
const { sim, gltf } = await loadCase(wasmFile, file);
const clip = gltf.animations.find((a) => a.name === clipName || a.name.endsWith(`|${clipName}`));
const mixer = new THREE.AnimationMixer(gltf.scene);
mixer.clipAction(clip).play();
const rig = sim.attach(gltf, { mixer, sheet: process.env.SHEET !== '0', colliders: process.env.COLS !== '0' });
rig.update(0);
for (let f = 0; f < 60; ++f) mixer.update(1 / 60), rig.update(1 / 60);
const t0 = process.hrtime.bigint();
for (let f = 0; f < 600; ++f) mixer.update(1 / 60), rig.update(1 / 60);
console.log((Number(process.hrtime.bigint() - t0) / 1e3 / 600).toFixed(1));
rig.dispose();
