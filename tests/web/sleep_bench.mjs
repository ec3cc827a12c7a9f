// Not a test: what sleep saves in the web runtime (docs/web.md "Session 20 (web20)"). The
// time of rig.update on a rigged file whose clip is paused (the mixer's time held), with
// attach's sleepSeconds 0 (never) and 1 (the player's window), alternated 9 times; min and
// median in microseconds a frame.
//   node sleep_bench.mjs TAILOR_SIM.WASM RIGGED.glb [CLIP_INDEX]
import * as THREE from 'three';
import { loadCase } from './node_case.mjs';

const [wasmFile, file, clipIndex = '0'] = process.argv.slice(2);
const { sim, gltf } = await loadCase(wasmFile, file);
const clip = gltf.animations[Number(clipIndex)];
const run = (sleepSeconds) => {
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(clip).play();
  const rig = sim.attach(gltf, { mixer, sleepSeconds });
  mixer.update(0.5);
  rig.update(0);
  for (let f = 0; f < 600; ++f) rig.update(1 / 60); // paused: the body held still 10 s
  const asleep = rig.asleepCount();
  const t0 = process.hrtime.bigint();
  for (let f = 0; f < 3000; ++f) rig.update(1 / 60);
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / 3000;
  rig.dispose();
  mixer.stopAllAction();
  return { asleep, us };
};
const never = [], window = [];
let asleep = 0;
for (let k = 0; k < 9; ++k) {
  never.push(run(0).us);
  const r = run(1);
  asleep = r.asleep;
  window.push(r.us);
}
const med = (x) => x.slice().sort((u, v) => u - v)[x.length >> 1];
const show = (x) => `min ${Math.min(...x).toFixed(1)} us, median ${med(x).toFixed(1)} us`;
console.log(`${clip.name} paused at 0.5 s: sleepSeconds 0: ${show(never)}; sleepSeconds 1 ` +
  `(${asleep} chains asleep): ${show(window)}`);
