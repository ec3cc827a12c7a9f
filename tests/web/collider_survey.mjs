// A survey of the web player's chains and the stored body colliders (docs/web.md "Session 23"):
// one pass of a clip in node (GLTFLoader, an AnimationMixer at f / 60, rig.update) against
// `tailor play --json` (the C player, colliders on). Prints per part kind: the largest joint
// distance from the C player's, the deepest particle in the colliders a chain without a hit
// radius keeps (play_chain_colliders' rule, over H), and the edge stretch of the skin the
// chains' bones dominate (skinned / rest length: p99, max, torn beyond 1.5 or 0.67).
//   node collider_survey.mjs TAILOR_SIM.WASM RIGGED.glb TAILOR CLIP [on|off|hair]
// on: attach's default (tails keep out of the colliders, hair does not); off: none; hair: hair
// too, by the tails' rule (the `hairColliders` probe).
import * as THREE from 'three';
import { execFileSync } from 'node:child_process';
import * as tailorSim from '../../web/tailor-sim.js';
import { loadCase } from './node_case.mjs';

const [wasmFile, file, tailor, clipName, mode = 'on'] = process.argv.slice(2);
const { sim, gltf } = await loadCase(wasmFile, file);
const clip = gltf.animations.find((a) => a.name === clipName || a.name.endsWith(`|${clipName}`));
const frames = execFileSync(tailor, ['play', file, '--clip', clipName, '--json'], { maxBuffer: 1 << 29 })
  .toString().trim().split('\n').map((l) => JSON.parse(l)).slice(1);
// the colliders each chain would keep by the tails' rule (measured whatever the chain runs with)
const probe = sim.attach(gltf, { file, hairColliders: true });
const rule = probe.chains.map((c) => c.colliders);
probe.dispose();
const mixer = new THREE.AnimationMixer(gltf.scene);
mixer.clipAction(clip).play();
const rig = sim.attach(gltf, { mixer, file, colliders: mode !== 'off', hairColliders: mode === 'hair' });
const H = rig.chains[0].height;
// the chains' skin: edges between vertices a chain bone dominates
const chainBones = new Set(rig.chains.flatMap((c) => c.bones));
const skins = [];
gltf.scene.traverse((m) => {
  if (!m.isSkinnedMesh) return;
  const g = m.geometry, si = g.attributes.skinIndex, sw = g.attributes.skinWeight, pos = g.attributes.position;
  const inChain = new Uint8Array(pos.count);
  for (let v = 0; v < pos.count; ++v) {
    let best = -1, dom = 0;
    for (let k = 0; k < 4; ++k) if (sw.getComponent(v, k) > best) best = sw.getComponent(v, k), dom = si.getComponent(v, k);
    inChain[v] = chainBones.has(m.skeleton.bones[dom]) ? 1 : 0;
  }
  const index = g.index ? g.index.array : Array.from({ length: pos.count }, (_, i) => i);
  const edges = new Map();
  for (let t = 0; t + 2 < index.length; t += 3)
    for (const [a, b] of [[index[t], index[t + 1]], [index[t + 1], index[t + 2]], [index[t + 2], index[t]]]) {
      if (!inChain[a] && !inChain[b]) continue;
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      const rest = new THREE.Vector3().fromBufferAttribute(pos, a).distanceTo(new THREE.Vector3().fromBufferAttribute(pos, b));
      if (rest > 0) edges.set(key, [Math.min(a, b), Math.max(a, b), rest]);
    }
  if (edges.size) skins.push({ mesh: m, edges: [...edges.values()] });
});
const kinds = {};
const of = (kind) => (kinds[kind] = kinds[kind] || { off: 0, deep: 0 });
const ratios = [];
const posed = new Float64Array(17);
for (let f = 0; f < frames.length; ++f) {
  mixer.update(f / 60 - mixer.time);
  rig.update(f ? 1 / 60 : 0);
  gltf.scene.updateMatrixWorld(true);
  rig.chains.forEach((c, i) => {
    const k = of(c.part.kind), tips = c.chain.tipPositions(), joints = frames[f].chains[i];
    for (let b = 1; b < joints.length; ++b)
      k.off = Math.max(k.off, Math.hypot(tips[3 * b - 3] - joints[b][0], tips[3 * b - 2] - joints[b][1], tips[3 * b - 1] - joints[b][2]) / H);
    for (const col of rule[i] || []) { // (none from a module without colliders: main before session 23)
      tailorSim.packCollider(col, col.object.matrixWorld.elements, posed);
      for (let b = 0; b < c.bones.length; ++b) k.deep = Math.max(k.deep, tailorSim.colliderDepth(posed, [tips[3 * b], tips[3 * b + 1], tips[3 * b + 2]]) / H);
    }
  });
  for (const s of skins) {
    const cache = new Map();
    const at = (v) => {
      if (!cache.has(v)) cache.set(v, s.mesh.getVertexPosition(v, new THREE.Vector3()));
      return cache.get(v);
    };
    for (const [a, b, rest] of s.edges) ratios.push(at(a).distanceTo(at(b)) / rest);
  }
}
ratios.sort((x, y) => x - y);
const torn = ratios.filter((r) => r > 1.5 || r < 0.67).length;
console.log(`${clipName} ${mode}: ${frames.length} frames; ` + Object.entries(kinds).map(([kind, k]) =>
  `${kind}: off C ${k.off.toExponential(2)} H, deepest ${k.deep.toExponential(2)} H`).join('; ') +
  `; chain skin stretch p99 ${ratios[Math.floor(0.99 * (ratios.length - 1))].toFixed(3)}, max ${ratios[ratios.length - 1].toFixed(3)}, torn ${(100 * torn / ratios.length).toFixed(3)}%`);
