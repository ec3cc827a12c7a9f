// Samples glTF clips with three.js (GLTFLoader + AnimationMixer) and prints every node's
// world matrix as JSON, so test_scene can check tailor's clip sampling against a player
// that people actually use.
//
//   node tests/three_sample.mjs FILE CLIP_INDEX TIME [TIME ...]
//
// CLIP_INDEX -1 plays nothing: the nodes as the file stores them (the default pose).
//
// Output: {"clip": name, "duration": s, "times": [...], "nodes": N,
//          "world": [[16 floats per node, column-major, node order] per time]}
// A node three.js did not create (none in practice) prints null.
//
// Textures: under node there is no DOM to decode images, so a loader plugin (GLTFLoader's
// own extension point, consulted before the built-in texture loader) answers every
// texture with null. Materials lose their maps; nodes, skins and animations are untouched.
import fs from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

const [file, clipArg, ...timeArgs] = process.argv.slice(2);
if (!file || clipArg === undefined || timeArgs.length === 0) {
  console.error('usage: node three_sample.mjs FILE CLIP_INDEX TIME [TIME ...]');
  process.exit(2);
}
const bytes = fs.readFileSync(file);
const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
const loader = new GLTFLoader();
loader.register(() => ({ name: 'tailor_no_textures', loadTexture: () => Promise.resolve(null) }));
const gltf = await loader.parseAsync(data, '');

const clipIndex = Number(clipArg);
const clip = clipIndex === -1 ? new THREE.AnimationClip('(none)', 0, []) : gltf.animations[clipIndex];
if (!clip) {
  console.error(`no clip ${clipIndex} (file has ${gltf.animations.length})`);
  process.exit(1);
}
// Map glTF node index → three.js object through the loader's associations.
const nodeCount = (gltf.parser.json.nodes || []).length;
const objects = new Array(nodeCount).fill(null);
gltf.scene.traverse((object) => {
  const assoc = gltf.parser.associations.get(object);
  if (assoc && assoc.nodes !== undefined && objects[assoc.nodes] === null) objects[assoc.nodes] = object;
});
// Nodes outside the default scene are not in gltf.scene; three.js does not animate them.
const root = gltf.scene;
const mixer = new THREE.AnimationMixer(root);
const action = mixer.clipAction(clip);
action.play();

const out = { clip: clip.name, duration: clip.duration, times: [], nodes: nodeCount, world: [] };
for (const arg of timeArgs) {
  const t = Number(arg);
  mixer.setTime(t);
  root.updateMatrixWorld(true);
  out.times.push(t);
  out.world.push(objects.map((o) => (o ? Array.from(o.matrixWorld.elements) : null)));
}
process.stdout.write(JSON.stringify(out));
