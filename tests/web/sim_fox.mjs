// web/tailor-sim.js on a rigged shared case in node, the way a three.js app uses it:
// GLTFLoader parses the file, an AnimationMixer plays each clip at 60 fps, rig.update(dt)
// after mixer.update(dt). Checks, at every frame: the first bone's head sits on the
// attachment joint where the rest geometry puts it (within 1e-5 H), the bones three.js
// poses from the written rotations reach the solver's joint positions (within 1e-3 H), and
// the tail is live: in every clip its tip, in the attachment joint's frame, leaves its first
// frame's place by more than 0.1% of H, and by more than 1% of H in the clip that moves it most
// (an idle clip may move the body too little for more: a still body keeps a still tail). The
// stored body colliders are read, and a bad one refused with the C reader's message.
//   node sim_fox.mjs TAILOR_SIM.WASM RIGGED.glb
import fs from 'node:fs';
import * as THREE from 'three';
import { execFileSync } from 'node:child_process';
import { readParts } from '../../web/tailor-sim.js';
import { loadCase, checker } from './node_case.mjs';

const [wasmFile, file, tailor] = process.argv.slice(2);
const { sim, gltf, bytes } = await loadCase(wasmFile, file);
const { check, failures: failureCount } = checker();
let mostMoved = 0;
for (const clip of gltf.animations) {
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(clip).play();
  const rig = sim.attach(gltf, { mixer, file });
  check(rig.chains.length >= 1, `${clip.name}: no chain read from extras.tailor`);
  const c = rig.chains[0];
  const H = c.height;
    let worstHead = 0, worstJoint = 0, moved = 0, frames = 0;
  const head = new THREE.Vector3(), p = new THREE.Vector3(), tipRigid = new THREE.Vector3();
  const frameCount = Math.max(2, Math.round(clip.duration * 60));
  for (let f = 0; f < frameCount; ++f) {
    mixer.update(f ? 1 / 60 : 0);
    rig.update(f ? 1 / 60 : 0);
    gltf.scene.updateMatrixWorld(true);
    head.fromArray(c.restTranslations, 0).applyMatrix4(c.attachment.matrixWorld);
    worstHead = Math.max(worstHead, head.distanceTo(c.bones[0].getWorldPosition(p)));
    const tips = c.chain.tipPositions();
    for (let i = 1; i < c.bones.length; ++i) {
      c.bones[i].getWorldPosition(p);
      worstJoint = Math.max(worstJoint, Math.hypot(p.x - tips[3 * i - 3], p.y - tips[3 * i - 2], p.z - tips[3 * i - 1]));
    }
    // the tip in the attachment joint's frame: a rigid tail keeps it still
    const last = c.bones.length - 1;
    c.attachment.worldToLocal(c.bones[last].getWorldPosition(p));
    if (f === 0) tipRigid.copy(p);
    moved = Math.max(moved, p.distanceTo(tipRigid) * c.attachment.matrixWorld.getMaxScaleOnAxis());
    frames++;
  }
  console.log(`${clip.name}: ${frames} frames, H ${H.toFixed(4)}, head off the attachment by at most ` +
    `${(worstHead / H).toExponential(2)} H, joints off the solver's by ${(worstJoint / H).toExponential(2)} H, ` +
    `tip moved in the attachment frame by up to ${(moved / H).toFixed(3)} H`);
  check(worstHead <= 1e-5 * H, `${clip.name}: the chain left its attachment`);
  check(worstJoint <= 1e-3 * H, `${clip.name}: the bones do not follow the solver`);
  check(moved > 1e-3 * H, `${clip.name}: the chain does not move`);
  mostMoved = Math.max(mostMoved, moved / H);
  rig.holdRest();
  rig.dispose();
  mixer.stopAllAction();
}

check(mostMoved > 0.01, `no clip moves the chain by 1% of H (at most ${mostMoved.toFixed(4)} H)`);

// A pendulum part (docs/schema.md) is read beside the chains (its defaults filled in, the chains
// read as before); a bad setting is refused with its JSON pointer, as the C reader does.
{
  const withPendulum = JSON.parse(JSON.stringify(gltf.parser.json));
  const head = withPendulum.skins[0].joints.find((j) => !(withPendulum.nodes[j].extras || {}).tailor);
  withPendulum.nodes[head].extras = { tailor: { version: 2, kind: 'pendulum', pendulum: {} } };
  const before = readParts(gltf.parser.json, file).parts.length;
  const read = readParts(withPendulum, file);
  check(head !== undefined && read.parts.length === before, `a pendulum part changed the chains read (${read.parts.length}, was ${before})`);
  const p = read.jointParts[0];
  check(read.jointParts.length === 1 && p.kind === 'pendulum' && p.joint === head && p.pendulum.length === Math.fround(0.2) &&
    p.pendulum.max_angle_deg === 60 && p.pendulum.rest_direction.join() === '0,-1,0', 'the pendulum part is not read with its defaults');
  withPendulum.nodes[head].extras.tailor.pendulum = { damping: 1 };
  let message = '';
  try {
    readParts(withPendulum, file);
  } catch (e) {
    message = e.message;
  }
  check(message === `${file}: /nodes/${head}/extras/tailor/pendulum/damping: must be <= 0.999, is 1`, `damping 1 refused: "${message}"`);
}

// The stored body colliders (skins[s].extras.tailor.colliders, docs/schema.md) are read, each
// on its joint; a bad one is refused with the C reader's message (checked below through
// `tailor play`), here a radius out of range.
const stored = gltf.parser.json.skins[0].extras.tailor.colliders || [];
const read = readParts(gltf.parser.json, file).colliders[0];
check(stored.length > 0 && read.length === stored.length && read.every((c, k) => c.joint === stored[k].joint),
  `${read.length} colliders read, ${stored.length} stored`);
const badCollider = JSON.parse(JSON.stringify(gltf.parser.json));
const round = badCollider.skins[0].extras.tailor.colliders.findIndex((c) => c.radius !== undefined);
badCollider.skins[0].extras.tailor.colliders[round].radius = -1;
const colliderMessage = (name) => `${name}: /skins/0/extras/tailor/colliders/${round}/radius: must be > 0 and within 1e+12, is -1`;
let jsCollider = '';
try {
  readParts(badCollider, file);
} catch (e) {
  jsCollider = e.message;
}
check(round >= 0 && jsCollider === colliderMessage(file), `radius -1 refused: "${jsCollider}"`);

// The version rule of docs/schema.md: a part written by a newer writer is refused by the JS
// reader with the C reader's message (the same file, patched, through `tailor play`).
const json = JSON.parse(JSON.stringify(gltf.parser.json));
const partNode = json.nodes.findIndex((n) => n.extras && n.extras.tailor);
json.nodes[partNode].extras.tailor.version = 3;
let jsMessage = '';
try {
  readParts(json, file);
} catch (e) {
  jsMessage = e.message;
}
check(jsMessage === `${file}: /nodes/${partNode}/extras/tailor/version: version 3 is newer than this reader (2)`,
  `version 3 refused: "${jsMessage}"`);
// The C player's message on the glb with its JSON chunk replaced by `patch` (padded with spaces
// to 4 bytes), as `${suffix}.glb` beside the file.
function cRefusal(patch, suffix) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(12, true);
  let text = JSON.stringify(patch);
  while (text.length % 4) text += ' ';
  const rest = bytes.subarray(20 + jsonLength);
  const head = Buffer.alloc(20);
  head.writeUInt32LE(0x46546c67, 0), head.writeUInt32LE(2, 4);
  head.writeUInt32LE(20 + text.length + rest.length, 8);
  head.writeUInt32LE(text.length, 12), head.writeUInt32LE(0x4e4f534a, 16);
  const patched = `${file}.${suffix}.glb`;
  fs.writeFileSync(patched, Buffer.concat([head, Buffer.from(text), rest]));
  try {
    execFileSync(tailor, ['play', patched, '--clip', gltf.animations[0].name], { stdio: 'pipe' });
  } catch (e) {
    return { name: patched.split('/').pop(), message: String(e.stderr) };
  }
  return { name: patched.split('/').pop(), message: '' };
}
if (tailor) {
  const c = cRefusal(badCollider, 'collider');
  check(c.message.includes(colliderMessage(c.name)), `the C reader refuses the collider alike: ${c.message.trim()}`);
}
if (tailor) {
  const c = cRefusal(json, 'v3');
  const expected = `${c.name}: /nodes/${partNode}/extras/tailor/version: version 3 is newer than this reader (2)`;
  check(c.message.includes(expected), `the C reader refuses it alike: ${c.message.trim()}`);
  let js2 = '';
  try {
    readParts(json, c.name);
  } catch (e) {
    js2 = e.message;
  }
  check(js2 === expected, 'the two messages agree');
}
const failures = failureCount();
console.log(failures ? `0 passed, ${failures} failed` : '1 passed, 0 failed');
process.exitCode = failures ? 1 : 0;
