// The skin a file's VRM spring bones move, as the real runtime shows it: three.js's GLTFLoader
// with @pixiv/three-vrm-springbone (as tests/vrm_three.mjs plays it), the clip on an
// AnimationMixer, one VRMSpringBoneManager.update(1 / FPS) per frame; at SAMPLES times spread
// over the frames after WARMUP, every edge of each skinned primitive that a spring joint
// dominates anywhere, skinned by three.js: its length over its bind length (measure.md's
// stretch S: torn above 1.5 or below 0.67).
//
//   node tests/vrm_hair_stretch.mjs FILE CLIP_INDEX FRAMES WARMUP SAMPLES [FPS]
//
// Output: {"edges", "samples", "p95", "p99", "max", "torn_pct", "springs"}.
// Loaded by tests/vrm_load.mjs (textures answered with null).
import * as THREE from 'three';
import { loadVrm } from './vrm_load.mjs';

const [file, clipArg, framesArg, warmupArg, samplesArg, fpsArg] = process.argv.slice(2);
if (!file || clipArg === undefined || !framesArg || !warmupArg || !samplesArg) {
  console.error('usage: node vrm_hair_stretch.mjs FILE CLIP_INDEX FRAMES WARMUP SAMPLES [FPS]');
  process.exit(2);
}
const warn = console.warn;
console.warn = () => {};
const gltf = await loadVrm(file);
console.warn = warn;
const manager = gltf.userData.vrmSpringBoneManager;
const json = gltf.parser.json;
const ext = json.extensions && json.extensions.VRMC_springBone;
const springJoints = new Set();
for (const s of (ext && ext.springs) || [])
  for (const j of s.joints) springJoints.add(await gltf.parser.getDependency('node', j.node));

// The primitives a spring joint dominates somewhere, and their unique triangle edges.
const parts = [];
gltf.scene.traverse((o) => {
  if (!o.isSkinnedMesh) return;
  const g = o.geometry, si = g.attributes.skinIndex, sw = g.attributes.skinWeight;
  let moved = false;
  for (let v = 0; v < si.count && !moved; ++v) {
    let best = -1, dom = 0;
    for (let k = 0; k < 4; ++k) {
      const w = sw.getComponent(v, k);
      if (w > best) best = w, dom = si.getComponent(v, k);
    }
    moved = springJoints.has(o.skeleton.bones[dom]);
  }
  if (!moved || !g.index) return;
  const seen = new Set(), edges = [];
  const idx = g.index.array;
  for (let t = 0; t + 2 < idx.length; t += 3)
    for (let e = 0; e < 3; ++e) {
      const a = idx[t + e], b = idx[t + ((e + 1) % 3)];
      const key = a < b ? a * 4294967296 + b : b * 4294967296 + a;
      if (a === b || seen.has(key)) continue;
      seen.add(key);
      edges.push(a, b);
    }
  const pos = g.attributes.position, rest = new Float64Array(edges.length / 2);
  for (let e = 0; e < rest.length; ++e) {
    const a = edges[2 * e], b = edges[2 * e + 1];
    rest[e] = Math.hypot(pos.getX(a) - pos.getX(b), pos.getY(a) - pos.getY(b), pos.getZ(a) - pos.getZ(b));
  }
  parts.push({ mesh: o, edges, rest, skinned: new Float32Array(3 * pos.count) });
});

const fps = fpsArg ? Number(fpsArg) : 60;
const frames = Number(framesArg), warmup = Number(warmupArg), samples = Number(samplesArg);
const root = gltf.scene;
const mixer = new THREE.AnimationMixer(root);
const clip = gltf.animations[Number(clipArg)];
if (!clip) {
  console.error(`no clip ${clipArg}`);
  process.exit(1);
}
mixer.clipAction(clip).play();
const sampleAt = new Set();
for (let s = 0; s < samples; ++s)
  sampleAt.add(warmup + Math.floor(((frames - 1 - warmup) * s) / Math.max(1, samples - 1)));
const ratios = [];
const v = new THREE.Vector3();
for (let f = 0; f < frames; ++f) {
  mixer.setTime(f / fps);
  root.updateMatrixWorld(true);
  if (manager && !process.env.TL_NO_SPRINGS) {
    if (f === 0) manager.reset();
    else manager.update(1 / fps);
  }
  if (!sampleAt.has(f)) continue;
  root.updateMatrixWorld(true);
  for (const p of parts) {
    p.mesh.skeleton.update();
    const count = p.mesh.geometry.attributes.position.count;
    for (let i = 0; i < count; ++i) {
      p.mesh.getVertexPosition(i, v);
      p.skinned[3 * i] = v.x, p.skinned[3 * i + 1] = v.y, p.skinned[3 * i + 2] = v.z;
    }
    const q = p.skinned;
    for (let e = 0; e < p.rest.length; ++e) {
      if (!(p.rest[e] > 0)) continue;
      const a = 3 * p.edges[2 * e], b = 3 * p.edges[2 * e + 1];
      ratios.push(Math.hypot(q[a] - q[b], q[a + 1] - q[b + 1], q[a + 2] - q[b + 2]) / p.rest[e]);
    }
  }
}
const sorted = Float64Array.from(ratios).sort();
const at = (x) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(x * sorted.length))] : 0);
let torn = 0;
for (const r of sorted) if (r > 1.5 || r < 0.67) ++torn;
process.stdout.write(JSON.stringify({
  edges: parts.reduce((n, p) => n + p.rest.length, 0), samples: sampleAt.size, p95: at(0.95),
  p99: at(0.99), max: sorted.length ? sorted[sorted.length - 1] : 0,
  torn_pct: sorted.length ? (100 * torn) / sorted.length : 0, springs: springJoints.size,
}) + '\n');
