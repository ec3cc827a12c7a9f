// web/tailor-sim.js keeps a tail out of the body colliders the file stores, as tailor's C player
// does (docs/web.md "Session 23"). A three.js app's loop in node (GLTFLoader, an AnimationMixer
// advanced to f / 60 each frame, rig.update) against `tailor play --json` (the C player, its
// colliders on) over one pass of the clip:
//   - with colliders (attach's default), every joint of every chain within TOLERANCE x H of the
//     C player's, and no particle deeper than the penetration bar in a collider it runs with;
//   - with `touch`: the colliders matter in this clip, so without them (attach's `colliders:
//     false`) the chain is more than 100 x TOLERANCE off the C player's and a particle goes
//     deeper than the bar;
//   - with `frame`: the file stores its skins' frame (skins[s].extras.tailor.frame, a Z-up
//     character: tests/web_sim_zup.sh), which matters: with the key removed (the runtime's
//     +Y up) the chain is more than 100 x TOLERANCE off the C player's.
//   node sim_colliders.mjs TAILOR_SIM.WASM RIGGED.glb TAILOR CLIP [frame] [touch]
import * as THREE from 'three';
import { execFileSync } from 'node:child_process';
import * as tailorSim from '../../web/tailor-sim.js';
import { loadCase, checker } from './node_case.mjs';

const [wasmFile, file, tailor, clipName, ...flags] = process.argv.slice(2);
const touch = flags.includes('touch');
// The two players run the same float solver on attachment poses and colliders that differ by
// rounding (C samples the clip and composes in float and double, three.js samples in float and
// composes in double; wasm's libm is not glibc's): over every clip of the seven rigged shared
// tail cases the chains agree within 3.9e-6 H (docs/web.md). 25 times that: rounding, where a
// collider that changes the path moves it by 0.1-0.4 H.
const TOLERANCE = 1e-4;
const BAR = 0.002; // measure.md's collider penetration bar, over H

const { sim, gltf } = await loadCase(wasmFile, file);
const { check, failures: failureCount } = checker();
const clip = gltf.animations.find((a) => a.name === clipName || a.name.endsWith(`|${clipName}`));
check(clip, `no clip ${clipName}`);
const lines = execFileSync(tailor, ['play', file, '--clip', clipName, '--json'], { maxBuffer: 1 << 28 })
  .toString().trim().split('\n').map((l) => JSON.parse(l));
const frames = lines.slice(1);

// One pass of the clip in the web player: the worst joint off the C player's and the deepest
// particle in the chain's colliders as three.js poses their joints, over H.
function play(colliders) {
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(clip).play();
  const rig = sim.attach(gltf, { mixer, file, colliders });
  const H = rig.chains[0].height;
  let off = 0, deep = 0, kept = 0;
  const posed = new Float64Array(tailorSim.COLLIDER_FLOATS);
  check(rig.chains.length === frames[0].chains.length, `${rig.chains.length} chains here, ${frames[0].chains.length} in C`);
  for (let f = 0; f < frames.length; ++f) {
    mixer.update(f / 60 - mixer.time);
    rig.update(f ? 1 / 60 : 0);
    gltf.scene.updateMatrixWorld(true);
    rig.chains.forEach((c, i) => {
      const tips = c.chain.tipPositions(), joints = frames[f].chains[i];
      for (let b = 1; b < joints.length; ++b)
        off = Math.max(off, Math.hypot(tips[3 * b - 3] - joints[b][0], tips[3 * b - 2] - joints[b][1], tips[3 * b - 1] - joints[b][2]) / H);
      kept = Math.max(kept, (c.colliders || []).length);
      for (const k of c.colliders || []) {
        tailorSim.packCollider(k, k.object.matrixWorld.elements, posed);
        for (let b = 0; b < c.bones.length; ++b)
          deep = Math.max(deep, tailorSim.colliderDepth(posed, [tips[3 * b], tips[3 * b + 1], tips[3 * b + 2]]) / H);
      }
    });
  }
  mixer.stopAllAction();
  rig.holdRest();
  rig.dispose();
  return { off, deep, kept };
}

const on = play(true);
console.log(`${clipName}: ${frames.length} frames; with the colliders (${on.kept} kept): off the C player's by ${on.off.toExponential(2)} H, ` +
  `deepest particle ${on.deep.toExponential(2)} H`);
check(on.kept > 0, 'the chain runs with no stored collider');
check(on.off <= TOLERANCE, `the chain is ${on.off} H off the C player's`);
check(on.deep <= BAR, `a particle is ${on.deep} H deep in a collider`);
if (touch) {
  const off = play(false);
  console.log(`${clipName}: without them: off the C player's by ${off.off.toExponential(2)} H, deepest particle ${off.deep.toExponential(2)} H`);
  check(off.off > 100 * TOLERANCE, `without the colliders the chain is only ${off.off} H off the C player's (they do not matter here)`);
  check(off.deep > BAR, `without the colliders no particle goes deeper than the bar (${off.deep} H)`);
}
if (flags.includes('frame')) {
  const skins = gltf.parser.json.skins.filter((s) => s.extras && s.extras.tailor && s.extras.tailor.frame);
  check(skins.length > 0, 'the file stores no frame');
  const stored = skins.map((s) => s.extras.tailor.frame);
  skins.forEach((s) => delete s.extras.tailor.frame);
  const off = play(true);
  skins.forEach((s, k) => (s.extras.tailor.frame = stored[k]));
  console.log(`${clipName}: without the stored frame: off the C player's by ${off.off.toExponential(2)} H`);
  check(off.off > 100 * TOLERANCE, `without the stored frame the chain is only ${off.off} H off the C player's (it does not matter here)`);
}
const failures = failureCount();
console.log(failures ? `0 passed, ${failures} failed` : '1 passed, 0 failed');
process.exitCode = failures ? 1 : 0;
