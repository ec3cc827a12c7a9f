// Plays a file's VRM spring bones with the real runtime: three.js's GLTFLoader with
// @pixiv/three-vrm-springbone's VRMSpringBoneLoaderPlugin, the clip on an AnimationMixer, one
// VRMSpringBoneManager.update(1 / FPS) per frame, as an app does. test_vrm compares it with
// tailor's own implementation of the rule (tl_vrm_play) and with tailor's player.
//
//   node tests/vrm_three.mjs FILE CLIP_INDEX FRAMES [FPS]
//
// Frame 0: the clip at time 0, then manager.reset() (each joint at its node's transform); frame
// f > 0: mixer.setTime(f / FPS) (the clip loops), scene world update, manager.update(1 / FPS).
// CLIP_INDEX -1: no clip (the file's stored pose).
//
// Output: {"warnings": [console.warn texts during load and play], "version": 1 | 0 | null (the
// extension the plugin read), "springs": [{"nodes": [node per joint],
// "positions": [[[x, y, z] per joint] per frame], "angle": largest angle of any bone's local
// rotation from its value at frame 0, degrees}], "v0_joints": joints the plugin made}
// Springs are listed for VRMC_springBone files (from its JSON); for VRM 0.x only the joint
// count the plugin made is given.
//
// Loaded by tests/vrm_load.mjs (textures answered with null).
import * as THREE from 'three';
import { loadVrm } from './vrm_load.mjs';

const [file, clipArg, framesArg, fpsArg] = process.argv.slice(2);
if (!file || clipArg === undefined || !framesArg) {
  console.error('usage: node vrm_three.mjs FILE CLIP_INDEX FRAMES [FPS]');
  process.exit(2);
}
const warnings = [];
const warn = console.warn;
console.warn = (...args) => {
  warnings.push(args.map(String).join(' '));
};
const gltf = await loadVrm(file);
const manager = gltf.userData.vrmSpringBoneManager;
const json = gltf.parser.json;
const ext = json.extensions && json.extensions.VRMC_springBone;
const version = manager ? (ext ? 1 : 0) : null;

const fps = fpsArg ? Number(fpsArg) : 60;
const frames = Number(framesArg);
const clipIndex = Number(clipArg);
const root = gltf.scene;
const mixer = new THREE.AnimationMixer(root);
if (clipIndex >= 0) {
  const clip = gltf.animations[clipIndex];
  if (!clip) {
    console.error(`no clip ${clipIndex}`);
    process.exit(1);
  }
  mixer.clipAction(clip).play();
}
const springs = [];
for (const s of (ext && ext.springs) || []) {
  const nodes = s.joints.map((j) => j.node);
  const objects = [];
  for (const n of nodes) objects.push(await gltf.parser.getDependency('node', n));
  springs.push({ nodes, objects, positions: [], start: null, angle: 0 });
}
const v = new THREE.Vector3();
for (let f = 0; f < frames; ++f) {
  mixer.setTime(f / fps);
  root.updateMatrixWorld(true);
  if (manager) {
    if (f === 0) manager.reset();
    else manager.update(1 / fps);
  }
  for (const s of springs) {
    s.positions.push(s.objects.map((o) => v.setFromMatrixPosition(o.matrixWorld).toArray()));
    const bones = s.objects.slice(0, -1).map((o) => o.quaternion.clone());
    if (f === 0) s.start = bones;
    for (let k = 0; k < bones.length; ++k)
      s.angle = Math.max(s.angle, (bones[k].angleTo(s.start[k]) * 180) / Math.PI);
  }
}
console.warn = warn;
const out = {
  warnings,
  version,
  v0_joints: manager ? manager.joints.size : 0,
  springs: springs.map((s) => ({ nodes: s.nodes, positions: s.positions, angle: s.angle })),
};
process.stdout.write(JSON.stringify(out));
