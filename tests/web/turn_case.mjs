// A Y-up glTF character turned in its bind data (docs/web.md "Session 24"), by R: `zup` +90
// degrees about X (+Y up becomes +Z up), `facex` +90 degrees about Y (a character facing +Z
// faces +X, its thighs along Z). Every skinned mesh's vertices (positions, normals, tangents,
// morph deltas) turned by R, every inverse bind matrix IBM x R^-1, and each skin's top joints (their
// parent is no joint) given P^-1 R P on the left of their rest transform and of every key of
// their clip channels (P: the parent's world), so every joint's world is R x what it was. The
// skinned result is the same figure turned; nothing above the joints is touched.
//   node turn_case.mjs IN.glb OUT.glb zup|facex
import fs from 'node:fs';
import * as THREE from 'three';

const [input, output, turn] = process.argv.slice(2);
if (turn !== 'zup' && turn !== 'facex') throw new Error(`turn_case.mjs: turn ${turn}: zup or facex`);
const bytes = fs.readFileSync(input);
if (bytes.readUInt32LE(0) !== 0x46546c67) throw new Error(`${input}: not a GLB`);
const jsonLength = bytes.readUInt32LE(12);
const json = JSON.parse(bytes.subarray(20, 20 + jsonLength).toString('utf8'));
const binStart = 20 + jsonLength + 8;
const bin = Buffer.from(bytes.subarray(binStart, binStart + bytes.readUInt32LE(20 + jsonLength)));

const R = turn === 'zup' ? new THREE.Matrix4().makeRotationX(Math.PI / 2) : new THREE.Matrix4().makeRotationY(Math.PI / 2);
const done = new Set();
// Accessor a's floats as [element][component] views into bin (float, dense, any stride).
function elements(a) {
  const acc = json.accessors[a];
  if (acc.componentType !== 5126 || acc.sparse) throw new Error(`accessor ${a}: not dense floats`);
  const view = json.bufferViews[acc.bufferView];
  const size = { SCALAR: 1, VEC3: 3, VEC4: 4, MAT4: 16 }[acc.type];
  const stride = view.byteStride || 4 * size, base = (view.byteOffset || 0) + (acc.byteOffset || 0);
  return Array.from({ length: acc.count }, (_, i) => ({
    get: (c) => bin.readFloatLE(base + i * stride + 4 * c),
    set: (c, x) => bin.writeFloatLE(x, base + i * stride + 4 * c),
  }));
}
// Turns accessor a once: each element through fn([floats]) -> [floats]; POSITION bounds anew.
function turnAccessor(a, size, fn, bounds = false) {
  if (a === undefined || done.has(a)) return;
  done.add(a);
  const acc = json.accessors[a];
  const lo = new Array(size).fill(Infinity), hi = new Array(size).fill(-Infinity);
  for (const e of elements(a)) {
    const out = fn(Array.from({ length: size }, (_, c) => e.get(c)));
    out.forEach((x, c) => {
      e.set(c, x);
      const f = Math.fround(x);
      lo[c] = Math.min(lo[c], f), hi[c] = Math.max(hi[c], f);
    });
  }
  if (bounds) acc.min = lo, acc.max = hi;
}
const vector = (v) => new THREE.Vector3(v[0], v[1], v[2]).applyMatrix4(R).toArray();
const direction = (v) => [...new THREE.Vector3(v[0], v[1], v[2]).transformDirection(R).multiplyScalar(Math.hypot(v[0], v[1], v[2])).toArray(), ...v.slice(3)];

// the vertices of every skinned mesh, in bind space
const skinned = new Set(json.nodes.filter((n) => n.skin !== undefined && n.mesh !== undefined).map((n) => n.mesh));
for (const m of skinned) {
  for (const p of json.meshes[m].primitives) {
    turnAccessor(p.attributes.POSITION, 3, vector, true);
    turnAccessor(p.attributes.NORMAL, 3, direction);
    turnAccessor(p.attributes.TANGENT, 4, direction);
    for (const t of p.targets || []) {
      turnAccessor(t.POSITION, 3, direction, true);
      turnAccessor(t.NORMAL, 3, direction);
      turnAccessor(t.TANGENT, 3, direction);
    }
  }
}
// every inverse bind: IBM x R^-1
const Rinv = R.clone().invert();
for (const skin of json.skins) turnAccessor(skin.inverseBindMatrices, 16, (m) => new THREE.Matrix4().fromArray(m).multiply(Rinv).toArray());

// the top joints: rest transform and clip keys under C = P^-1 R P (a rotation and a shift)
const parent = new Map();
json.nodes.forEach((n, i) => (n.children || []).forEach((c) => parent.set(c, i)));
const local = (n) => (n.matrix ? new THREE.Matrix4().fromArray(n.matrix)
  : new THREE.Matrix4().compose(new THREE.Vector3(...(n.translation || [0, 0, 0])),
    new THREE.Quaternion(...(n.rotation || [0, 0, 0, 1])), new THREE.Vector3(...(n.scale || [1, 1, 1]))));
const world = (i) => (parent.has(i) ? world(parent.get(i)).multiply(local(json.nodes[i])) : local(json.nodes[i]));
const joints = new Set(json.skins.flatMap((s) => s.joints));
for (const t of joints) {
  if (joints.has(parent.get(t))) continue;
  const P = parent.has(t) ? world(parent.get(t)) : new THREE.Matrix4();
  const C = P.clone().invert().multiply(R).multiply(P);
  const c = new THREE.Quaternion().setFromRotationMatrix(new THREE.Matrix4().extractRotation(C));
  const node = json.nodes[t];
  if (node.matrix) {
    node.matrix = C.clone().multiply(local(node)).toArray();
  } else {
    const [p, q, s] = [new THREE.Vector3(), new THREE.Quaternion(), new THREE.Vector3()];
    C.clone().multiply(local(node)).decompose(p, q, s);
    node.translation = p.toArray(), node.rotation = q.toArray(), node.scale = s.toArray();
  }
  for (const anim of json.animations || [])
    for (const ch of anim.channels) {
      if (ch.target.node !== t) continue;
      const sampler = anim.samplers[ch.sampler], cubic = sampler.interpolation === 'CUBICSPLINE';
      // (a cubic spline's tangents turn without the shift: every third key is a value)
      const isValue = (k) => !cubic || k % 3 === 1;
      let k = 0;
      if (ch.target.path === 'translation')
        turnAccessor(sampler.output, 3, (v) => (isValue(k++) ? new THREE.Vector3(...v).applyMatrix4(C).toArray()
          : new THREE.Vector3(...v).applyQuaternion(c).toArray()));
      else if (ch.target.path === 'rotation')
        turnAccessor(sampler.output, 4, (v) => new THREE.Quaternion().multiplyQuaternions(c, new THREE.Quaternion(...v)).toArray());
    }
}

const text = Buffer.from(JSON.stringify(json));
const pad = (b, fill) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4, fill)]);
const jsonChunk = pad(text, 0x20), binChunk = pad(bin, 0);
const header = Buffer.alloc(12), jh = Buffer.alloc(8), bh = Buffer.alloc(8);
header.writeUInt32LE(0x46546c67, 0), header.writeUInt32LE(2, 4);
header.writeUInt32LE(12 + 8 + jsonChunk.length + 8 + binChunk.length, 8);
jh.writeUInt32LE(jsonChunk.length, 0), jh.writeUInt32LE(0x4e4f534a, 4);
bh.writeUInt32LE(binChunk.length, 0), bh.writeUInt32LE(0x004e4942, 4);
fs.writeFileSync(output, Buffer.concat([header, jh, jsonChunk, bh, binChunk]));
