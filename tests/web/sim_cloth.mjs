// web/tailor-sim.js plays a cloth part (a skirt, a cape) as tailor's C player does (docs/web.md
// "Session 24"). A three.js app's loop in node (GLTFLoader, an AnimationMixer advanced to f / 60
// each frame, rig.update) against the C player's cloth bones (web_cloth_bones: tailor play's
// loop, which --json does not print for cloth) over the clip and half a second on, through the
// loop's wrap (a cut in both players):
//   - the web player keeps as many of the skin's stored colliders as the C player fits;
//   - with colliders (attach's default), every cloth bone within TOLERANCE x H of the C player's;
//   - with `touch`: the colliders matter in this clip, so without them (rig.setColliders(false))
//     some bone is more than 100 x TOLERANCE off the C player's.
//   node sim_cloth.mjs TAILOR_SIM.WASM RIGGED.glb WEB_CLOTH_BONES CLIP [touch]
import * as THREE from 'three';
import { execFileSync } from 'node:child_process';
import { loadCase, checker } from './node_case.mjs';

const [wasmFile, file, clothBones, clipName, touch] = process.argv.slice(2);
// Both players run the same float solver and the same lattice set-up and bone write
// (src/play/cloth_lattice.c), on inputs that differ by rounding: three.js samples the clip and
// composes the joints' matrices in double where C composes in float, and wasm's libm is not
// glibc's. Measured over every clip of the rigged skirt (3) and of the rigged knight with a
// length (69; docs/web.md "Session 24"): at most 1.68e-5 H (the knight's Death_A), 4.6e-6 H in
// the clips tested here. The bar is 1e-4 H, the chains' (tests/web/sim_colliders.mjs): rounding,
// where a cloth that moves otherwise (no colliders, no cloth) puts a bone 0.06-0.18 H off.
const TOLERANCE = 1e-4;

const { sim, gltf } = await loadCase(wasmFile, file);
const { check, failures: failureCount } = checker();
const clip = gltf.animations.find((a) => a.name === clipName || a.name.endsWith(`|${clipName}`));
check(clip, `no clip ${clipName}`);
const seconds = clip.duration + 0.5;
const lines = execFileSync(clothBones, [file, clipName, '60', String(seconds)], { maxBuffer: 1 << 28 }).toString().trim().split('\n')
  .map((l) => JSON.parse(l));
const [head, ...frames] = lines;
check(head.length > 0, 'the C player plays no cloth part');
const bones = head.map((c) => c.bones.map((name) => gltf.scene.getObjectByName(name)));
check(bones.every((list) => list.every((b) => b)), 'a cloth bone is not in the scene');

// One pass of the clip in the web player: the worst cloth bone off the C player's, over H.
function play(colliders) {
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(clip).play();
  const rig = sim.attach(gltf, { mixer, file });
  rig.setColliders(colliders);
  const cloths = rig.cloths || [];
  check(cloths.length === head.length, `${cloths.length} cloths here, ${head.length} in C`);
  cloths.forEach((c, i) => check(c.colliders.length === head[i].colliders,
    `cloth ${i}: ${c.colliders.length} colliders kept here, ${head[i].colliders} by the C player`));
  let off = 0;
  const p = new THREE.Vector3();
  for (let f = 0; f < frames.length; ++f) {
    mixer.update(f / 60 - mixer.time);
    rig.update(f ? 1 / 60 : 0);
    gltf.scene.updateMatrixWorld(true);
    head.forEach((c, i) => bones[i].forEach((b, k) => {
      p.setFromMatrixPosition(b.matrixWorld);
      const q = frames[f][i][k];
      off = Math.max(off, Math.hypot(p.x - q[0], p.y - q[1], p.z - q[2]) / c.height);
    }));
  }
  mixer.stopAllAction();
  rig.holdRest();
  rig.dispose();
  return { off, kept: cloths.map((c) => c.colliders.length) };
}

const on = play(true);
console.log(`${clipName}: ${frames.length} frames; with the colliders (${on.kept.join(', ')} kept, C: ` +
  `${head.map((c) => c.colliders).join(', ')}): cloth bones off the C player's by ${on.off.toExponential(2)} H`);
check(on.off <= TOLERANCE, `a cloth bone is ${on.off} H off the C player's`);
if (touch) {
  const off = play(false);
  console.log(`${clipName}: without them: off the C player's by ${off.off.toExponential(2)} H`);
  check(off.off > 100 * TOLERANCE, `without the colliders the cloth is only ${off.off} H off the C player's (they do not matter here)`);
}
const failures = failureCount();
console.log(failures ? `0 passed, ${failures} failed` : '1 passed, 0 failed');
process.exitCode = failures ? 1 : 0;
