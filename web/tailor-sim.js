// tailor-sim.js — tailor's spring-chain solver (src/sim, built for wasm32-wasi) for three.js.
//
//   import { loadTailorSim } from 'tailor-sim';
//   const sim = await loadTailorSim();                  // tailor_sim.wasm beside this file
//   const gltf = await new GLTFLoader().loadAsync('fox-rigged.glb');
//   const mixer = new THREE.AnimationMixer(gltf.scene);
//   mixer.clipAction(gltf.animations[0]).play();
//   const rig = sim.attach(gltf, { mixer });            // one chain per part of extras.tailor
//   // every frame:  mixer.update(dt); rig.update(dt); renderer.render(scene, camera);
//
// No three.js import: the module works on whatever three.js objects it is given (Object3D,
// Bone, SkinnedMesh, AnimationMixer). The manual is docs/web.md; the file schema is
// docs/schema.md.

export const SCHEMA_VERSION = 2; // the newest extras.tailor version this reader knows
const MAX_BONES = 64; // TL_CHAIN_MAX_BONES

// tl_chain_settings in declaration order, with the reader's ranges (docs/schema.md).
const SETTINGS = [
  ['root_frequency', 1.2, '>', 0],
  ['tip_frequency', 0.45, '>', 0],
  ['damping_ratio', 0.65, '>=', 0],
  ['gravity', 1, '>=', 0],
  ['carry_deg', 50, 'finite'],
  ['rest_curve', 0, 'unit'],
  ['coupling_rate', 12, '>=', 0],
  ['bend_limit_deg', 30, '>', 0],
  ['ground_clearance', 0.025, '>=', 0],
  ['slip_damping', 8, '>=', 0],
];
const PART_KEYS = new Set(['version', 'kind', 'attachment', 'attachment_name', 'bones',
  'bone_names', 'radii', 'chain', 'cloth', 'hit_radius']);
const FLT_MAX = 3.4028234663852886e38;
const LOOP_ONCE = 2200; // THREE.LoopOnce (no three.js import)
// The player's sleep window (TL_PLAY_SLEEP_SECONDS, include/tailor/play.h): attach() gives it
// to every chain, so a character held still stops costing CPU after a second.
export const PLAY_SLEEP_SECONDS = 1;
// A body collider's shapes in tl_collider_shape's order (include/tailor/sim.h), named as in the
// file (docs/schema.md, skins[s].extras.tailor.colliders); a skin stores at most
// TL_BODY_COLLIDERS_MAX; every number within TL_SCENE_MAX_MAGNITUDE.
const COLLIDER_SHAPES = ['sphere', 'capsule', 'plane', 'ellipsoid'];
const COLLIDERS_MAX = 26;
const MAX_MAGNITUDE = 1e12;
// A collider passed to the solver: shape, a (3), b (3), radius, the semi-axes (3 x 3); the glue's
// layout (web/tailor_sim_glue.c, tl_web_collider_floats).
export const COLLIDER_FLOATS = 17;
// A sheet tie passed to the solver: chain a, chain b, their links, the points along them, the
// seam (web/tailor_sim_glue.c, tl_web_tie_floats).
const TIE_FLOATS = 7;
const COLLIDER_KEYS = new Set(['joint', 'joint_name', 'role', 'side', 'shape', 'a', 'b', 'radius', 'axes', 'vertices']);
// tl_chain_stats in the glue's order (web/tailor_sim_glue.c, tl_web_chain_stats).
const STATS = ['steps', 'nonfiniteInputs', 'nonfiniteStates', 'teleports', 'cuts', 'clampedFrames',
  'contacts', 'sleeps', 'asleep'];

// The few WASI imports a wasm32-wasi reactor built with wasi-libc links (fd_write for stdio,
// which the solver never uses, fd_seek, fd_close, proc_exit, clocks): enough to instantiate.
function wasiShim(getMemory) {
  const ENOSYS = 52;
  return {
    fd_write(fd, iovs, count, written) {
      const view = new DataView(getMemory().buffer);
      let n = 0;
      for (let i = 0; i < count; ++i) n += view.getUint32(iovs + 8 * i + 4, true);
      view.setUint32(written, n, true);
      return 0;
    },
    fd_seek: () => ENOSYS,
    fd_close: () => 0,
    fd_fdstat_get: () => ENOSYS,
    proc_exit(code) { throw new Error(`tailor-sim: the solver exited (${code})`); },
    clock_time_get(id, precision, out) {
      new DataView(getMemory().buffer).setBigUint64(out, BigInt(Math.round(Date.now() * 1e6)), true);
      return 0;
    },
    environ_sizes_get(count, size) {
      const view = new DataView(getMemory().buffer);
      view.setUint32(count, 0, true);
      view.setUint32(size, 0, true);
      return 0;
    },
    environ_get: () => 0,
    args_sizes_get(count, size) {
      const view = new DataView(getMemory().buffer);
      view.setUint32(count, 0, true);
      view.setUint32(size, 0, true);
      return 0;
    },
    args_get: () => 0,
  };
}

// Loads the solver. `source`: the .wasm as a URL/string, an ArrayBuffer/typed array, a
// Response, or a compiled WebAssembly.Module; default tailor_sim.wasm beside this module.
export async function loadTailorSim(source) {
  let bytes = source;
  if (bytes === undefined) bytes = new URL('./tailor_sim.wasm', import.meta.url);
  if (typeof bytes === 'string' || bytes instanceof URL) bytes = await fetch(bytes);
  if (typeof Response !== 'undefined' && bytes instanceof Response) bytes = await bytes.arrayBuffer();
  let memory = null;
  const imports = { wasi_snapshot_preview1: wasiShim(() => memory) };
  const module = bytes instanceof WebAssembly.Module ? bytes : await WebAssembly.compile(bytes);
  const instance = await WebAssembly.instantiate(module, imports);
  memory = instance.exports.memory;
  if (instance.exports._initialize) instance.exports._initialize();
  return new TailorSim(instance.exports);
}

// One chain of the solver (tl_chain). Poses are 8 numbers: position, rotation (x, y, z, w),
// scale, in the caller's world frame.
export class Chain {
  constructor(sim, pointer, boneCount) {
    this.sim = sim;
    this.pointer = pointer;
    this.boneCount = boneCount;
  }

  // tl_chain_step: the attachment moved from `start` to `target` over dt seconds; with
  // `colliderCount` body colliders packed at `colliders` (a pointer into the solver's memory,
  // COLLIDER_FLOATS floats each: packCollider) where the frame ends, or none; `growth` (a
  // pointer, 0: none) grows each per link (tl_chain_input.collider_growth: Sim.colliderGrowth).
  step(start, target, dt, colliders = 0, colliderCount = 0, growth = 0) {
    const s = this.sim;
    s.f32(s.scratch, 8).set(start);
    s.f32(s.scratch + 32, 8).set(target);
    s.x.tl_web_chain_step_grown(this.pointer, s.scratch, s.scratch + 32, dt, colliders, colliderCount, growth);
  }

  // tl_chain_reset: at rest on the rest arc under `pose`, still.
  reset(pose) {
    const s = this.sim;
    s.f32(s.scratch, 8).set(pose);
    s.x.tl_web_chain_reset(this.pointer, s.scratch);
  }

  clear() { this.sim.x.tl_chain_clear(this.pointer); }
  // tl_chain_get_stats: {steps, nonfiniteInputs, nonfiniteStates, teleports, cuts,
  // clampedFrames, contacts, sleeps, asleep (a boolean: the last step simulated nothing)}.
  stats() {
    const s = this.sim;
    const at = s.scratch + 512;
    s.x.tl_web_chain_stats(this.pointer, at);
    const f = new Float64Array(s.x.memory.buffer, at, STATS.length);
    const out = {};
    STATS.forEach((key, i) => { out[key] = f[i]; });
    out.asleep = out.asleep !== 0;
    return out;
  }
  // Copies of the outputs (valid whatever happens to the wasm memory later).
  localRotations() { return this.sim.f32(this.sim.x.tl_chain_local_rotations(this.pointer), 4 * this.boneCount).slice(); }
  tipPositions() { return this.sim.f32(this.sim.x.tl_chain_tip_positions(this.pointer), 3 * this.boneCount).slice(); }
  linkLengths() { return this.sim.f32(this.sim.x.tl_chain_link_lengths(this.pointer), this.boneCount).slice(); }

  destroy() {
    if (this.pointer) this.sim.x.tl_chain_destroy(this.pointer);
    this.pointer = 0;
  }
}

// One pendulum of the solver (tl_pendulum, a pendulum part: docs/cloth.md "Pendulum and aim").
// Pivot poses are 8 numbers as a chain's; nothing is allocated after create.
export class Pendulum {
  constructor(sim, pointer) {
    this.sim = sim;
    this.pointer = pointer;
  }

  pass(pose, call) {
    this.sim.f32(this.sim.scratch, 8).set(pose);
    call(this.sim.scratch);
  }

  // tl_pendulum_step: the pivot moved from its last pose to `pivot` over dt seconds.
  step(pivot, dt) { this.pass(pivot, (at) => this.sim.x.tl_web_pendulum_step(this.pointer, at, dt)); }
  // tl_pendulum_reset: the particle at rest under `pivot`, still.
  reset(pivot) { this.pass(pivot, (at) => this.sim.x.tl_web_pendulum_reset(this.pointer, at)); }
  // tl_pendulum_carry: a cut, the particle carried rigidly with the pivot.
  carry(pivot) { this.pass(pivot, (at) => this.sim.x.tl_web_pendulum_carry(this.pointer, at)); }
  // tl_pendulum_rotation: the joint's world rotation (x, y, z, w), the look-at.
  rotation() {
    const at = this.sim.scratch + 32;
    this.sim.x.tl_pendulum_rotation(this.pointer, at);
    return this.sim.f32(at, 4).slice();
  }
  swingDeg() { return this.sim.x.tl_pendulum_swing_deg(this.pointer); }

  destroy() {
    if (this.pointer) this.sim.x.tl_web_free(this.pointer);
    this.pointer = 0;
  }
}

// tl_pendulum_def's keys in the glue's order (web/tailor_sim_glue.c), with their sizes.
const PENDULUM_DEF = [['length', 1], ['rest_direction', 3], ['up', 3], ['scale', 1], ['gravity', 1],
  ['damping', 1], ['stiffness', 1], ['max_angle_deg', 1], ['fixed_step', 1], ['max_substeps', 1],
  ['teleport_distance', 1]];

export class TailorSim {
  constructor(exports) {
    this.x = exports;
    this.paramCount = exports.tl_web_param_count();
    if (exports.tl_web_stats_count() !== STATS.length || typeof exports.tl_web_collider_floats !== 'function' ||
      exports.tl_web_collider_floats() !== COLLIDER_FLOATS || typeof exports.tl_web_tie_floats !== 'function' ||
      exports.tl_web_tie_floats() !== TIE_FLOATS) throw new Error('tailor-sim: tailor_sim.wasm does not match tailor-sim.js');
    this.collidersMax = exports.tl_web_colliders_max();
    this.scratch = exports.tl_web_alloc(1024); // poses and matrices passed to the solver
  }

  f32(pointer, count) { return new Float32Array(this.x.memory.buffer, pointer, count); }
  // The NUL-terminated message the solver wrote at pointer (at most size bytes).
  message(pointer, size) {
    const bytes = new Uint8Array(this.x.memory.buffer, pointer, size);
    return new TextDecoder().decode(bytes.slice(0, Math.max(0, bytes.indexOf(0))));
  }

  // tl_default_chain_def's world, time and sleep settings and tl_default_chain_settings.
  defaults() {
    const p = this.x.tl_web_alloc(4 * this.paramCount);
    this.x.tl_web_default_params(p);
    const f = this.f32(p, this.paramCount).slice();
    this.x.tl_web_free(p);
    const settings = {};
    SETTINGS.forEach(([name], i) => { settings[name] = f[19 + i]; });
    return {
      up: [f[0], f[1], f[2]], scale: f[3], floorEnabled: f[4] !== 0, floorHeight: f[5],
      hipsPlaneEnabled: f[6] !== 0, fixedStep: f[7], maxSubsteps: f[8], teleportDistance: f[9],
      hipsLateral: [f[10], f[11], f[12]], hipsUp: [f[13], f[14], f[15]],
      hipsForward: [f[16], f[17], f[18]], settings, sleepSpeed: f[29], sleepSeconds: f[30],
    };
  }

  // A chain from a def shaped like tl_chain_def: {boneCount, restTranslations (3N),
  // restRotations (4N), tipTranslation (3) or null, jointRadii (N) or null, and any of
  // defaults()'s keys, among them sleepSpeed and sleepSeconds: tl_chain_def's sleep, 0 s = never
  // sleeps}. Throws with the solver's message on invalid geometry.
  createChain(def) {
    const d = { ...this.defaults(), ...def, settings: { ...this.defaults().settings, ...(def.settings || {}) } };
    const n = d.boneCount;
    if (!(n >= 1 && n <= MAX_BONES)) throw new Error(`tailor-sim: bone count ${n} out of 1..${MAX_BONES}`);
    const params = [...d.up, d.scale, d.floorEnabled ? 1 : 0, d.floorHeight,
      d.hipsPlaneEnabled ? 1 : 0, d.fixedStep, d.maxSubsteps, d.teleportDistance,
      ...d.hipsLateral, ...d.hipsUp, ...d.hipsForward, ...SETTINGS.map(([name]) => d.settings[name]),
      d.sleepSpeed, d.sleepSeconds];
    if (params.length !== this.paramCount) throw new Error('tailor-sim: tailor_sim.wasm does not match tailor-sim.js');
    const floats = 3 * n + 4 * n + 3 + n + this.paramCount;
    const block = this.x.tl_web_alloc(4 * floats + 512);
    const at = (k) => block + 4 * k;
    const t = at(0), q = at(3 * n), tip = at(7 * n), radii = at(7 * n + 3), par = at(8 * n + 3);
    const message = at(floats);
    this.f32(t, 3 * n).set(d.restTranslations);
    this.f32(q, 4 * n).set(d.restRotations);
    if (d.tipTranslation) this.f32(tip, 3).set(d.tipTranslation);
    if (d.jointRadii) this.f32(radii, n).set(d.jointRadii);
    this.f32(par, this.paramCount).set(params);
    const pointer = this.x.tl_web_chain_create(n, t, q, d.tipTranslation ? tip : 0,
      d.jointRadii ? radii : 0, par, message, 512);
    const text = pointer ? '' : this.message(message, 512);
    this.x.tl_web_free(block);
    if (!pointer) throw new Error(`tailor-sim: ${text}`);
    return new Chain(this, pointer, n);
  }

  // tl_default_pendulum_def, keyed as tl_pendulum_def (snake_case, as in the file).
  pendulumDefaults() {
    const count = this.x.tl_web_pendulum_param_count();
    const p = this.x.tl_web_alloc(4 * count);
    this.x.tl_web_default_pendulum_params(p);
    const f = this.f32(p, count).slice();
    this.x.tl_web_free(p);
    const out = {};
    let k = 0;
    for (const [key, n] of PENDULUM_DEF) out[key] = n === 1 ? f[k] : Array.from(f.subarray(k, k + n)), k += n;
    return out;
  }

  // A pendulum from a def shaped like tl_pendulum_def (any keys missing: the defaults).
  // Throws with the solver's message on a bad def.
  createPendulum(def) {
    const d = { ...this.pendulumDefaults(), ...def };
    const params = PENDULUM_DEF.flatMap(([key, n]) => (n === 1 ? [d[key]] : Array.from(d[key])));
    const block = this.x.tl_web_alloc(4 * params.length + 512);
    const message = block + 4 * params.length;
    this.f32(block, params.length).set(params);
    const pointer = this.x.tl_web_pendulum_create(block, message, 512);
    const text = pointer ? '' : this.message(message, 512);
    this.x.tl_web_free(block);
    if (!pointer) throw new Error(`tailor-sim: ${text}`);
    return new Pendulum(this, pointer);
  }

  // tl_aim_solve: `rotation` (world) turned so the aim axis points from `position` toward
  // `target`, limited and weighted by `aim` ({aim_axis, weight, max_angle_deg}).
  aimSolve(aim, rotation, position, target) {
    const s = this.scratch + 384;
    this.f32(s, 5).set([...aim.aim_axis, aim.weight, aim.max_angle_deg]);
    this.f32(s + 32, 4).set(rotation);
    this.f32(s + 48, 3).set(position);
    this.f32(s + 64, 3).set(target);
    this.x.tl_web_aim_solve(s, s + 32, s + 48, s + 64, s + 80);
    return this.f32(s + 80, 4).slice();
  }

  // tl_chain_local_from_binds: a joint's neutral local transform from inverse bind matrices.
  localFromBinds(parentInverseBind, inverseBind) {
    const s = this.scratch;
    this.f32(s, 16).set(parentInverseBind);
    this.f32(s + 64, 16).set(inverseBind);
    this.x.tl_chain_local_from_binds(s, s + 64, s + 128, s + 140);
    return { translation: this.f32(s + 128, 3).slice(), rotation: this.f32(s + 140, 4).slice() };
  }

  // A lock's collider growth (src/play/chain_growth.c, the C player's rule): the collider packed
  // in the rest-world frame (COLLIDER_FLOATS), grown by the lock's thickness `hit` for each of
  // `links` links as far as each rest tip (tips: 3 numbers each, the link tips) stays outside.
  // null when no link meets it, else the growth per link.
  colliderGrowth(packed, hit, tips, links) {
    const s = this.scratch, n = tips.length / 3;
    if (COLLIDER_FLOATS * 4 + 12 * n + 4 * links > 1024) throw new Error('tailor-sim: too long a chain');
    this.f32(s, COLLIDER_FLOATS).set(packed);
    this.f32(s + 4 * COLLIDER_FLOATS, 3 * n).set(tips);
    const out = s + 4 * COLLIDER_FLOATS + 12 * n;
    if (!this.x.tl_web_collider_growth(s, hit, s + 4 * COLLIDER_FLOATS, n, links, out)) return null;
    return this.f32(out, links).slice();
  }

  // tl_chain_pose_from_matrix (a struct returned through a pointer in the wasm32 C ABI).
  poseFromMatrix(matrix) {
    const s = this.scratch;
    this.f32(s + 256, 16).set(matrix);
    this.x.tl_chain_pose_from_matrix(s + 320, s + 256);
    return this.f32(s + 320, 8).slice();
  }

  // Reads the parts of a loaded file and makes one chain per tail/hair part. `loaded`: what
  // GLTFLoader gives (preferred: its parser maps node indices to objects), or its scene
  // (then nodes are found by the names stored beside the indices). Options: mixer (the
  // clips' AnimationMixer, for sampling at the solver's step), root (the frame the chains
  // live in; default the loaded scene), sleepSeconds (every chain's sleep window, as the C
  // player's; default PLAY_SLEEP_SECONDS, 0 = never sleeps), colliders (default true: each tail
  // keeps out of the body colliders the file stores, those its bind pose lies in left out, as the
  // C player runs a chain without a hit radius, and a hair part with the lock thickness tailor
  // rig stores keeps out of them grown by it, as the C player's; rig.setColliders turns them off
  // and on), sheet (default true: neighbouring hair locks held together by the ties the file
  // stores, as the C player holds them; rig.setSheet), hairColliders (a probe, default false:
  // hair by the tails' rule, for files rigged before session 24, docs/web.md "Session 23").
  // attach(scene) reads no colliders and no sheet.
  attach(loaded, options = {}) {
    return new TailorRig(this, loaded, options);
  }
}

// --- reading extras.tailor (the rules of src/scene/parts.c, docs/schema.md) ---

function fail(file, pointer, what) {
  throw new Error(`${file}: ${pointer}: ${what}`);
}

function checkVersion(record, pointer, file) {
  const v = record.version;
  if (v === undefined) fail(file, pointer, 'version: missing');
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(file, `${pointer}/version`, 'must be an integer');
  if (v > SCHEMA_VERSION) fail(file, `${pointer}/version`, `version ${v} is newer than this reader (${SCHEMA_VERSION})`);
  if (v < 1) fail(file, `${pointer}/version`, `must be >= 1, is ${v}`);
  return v;
}

function readSettings(chain, pointer, file) {
  const out = {};
  for (const [name, def, rule, bound] of SETTINGS) {
    const v = chain ? chain[name] : undefined;
    if (v === undefined) { out[name] = def; continue; }
    const at = `${pointer}/chain/${name}`;
    if (typeof v !== 'number') fail(file, at, `must be a number, is a ${typeof v}`);
    if (!Number.isFinite(v) || Math.abs(v) > FLT_MAX) fail(file, at, 'must be finite');
    if (rule === '>' && !(v > bound)) fail(file, at, `must be > ${bound}, is ${v}`);
    if (rule === '>=' && !(v >= bound)) fail(file, at, `must be >= ${bound}, is ${v}`);
    if (rule === 'unit' && !(v >= 0 && v <= 1)) fail(file, at, `must be in [0, 1], is ${v}`);
    out[name] = Math.fround(v);
  }
  return out;
}

// The float settings of a pendulum or an aim (docs/schema.md; src/scene/schema.c's ranges):
// [key, default, low, low open, high].
const PENDULUM_SETTINGS = [
  ['length', 0.2, 0, true, Infinity], ['gravity', 9.81, -Infinity, false, Infinity],
  ['damping', 0.05, 0, false, 0.999], ['stiffness', 0.02, 0, false, 1],
  ['max_angle_deg', 60, 0, true, 180], ['teleport_distance', 1, 0, true, Infinity],
];
const AIM_SETTINGS = [['weight', 1, 0, false, 1], ['max_angle_deg', 45, 0, false, 180]];

// A settings object at ptr (missing: the defaults) with its direction key, as the C reader.
function readJointSettings(o, ptr, file, notes, table, directionKey, direction) {
  const out = {};
  for (const [key, def] of table) out[key] = Math.fround(def);
  out[directionKey] = direction;
  if (o === undefined) return out;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) fail(file, ptr, 'must be an object');
  for (const [key, , lo, open, hi] of table) {
    const v = o[key];
    if (v === undefined) continue;
    const at = `${ptr}/${key}`;
    if (typeof v !== 'number') fail(file, at, `must be a number, is a ${typeof v}`);
    const f = Math.fround(v); // judged as stored, a float (tl_schema_setting_check)
    if (!Number.isFinite(f)) fail(file, at, `must be a finite number, is ${v}`);
    if (open ? !(f > lo) : !(f >= lo)) fail(file, at, `must be ${open ? '>' : '>='} ${lo}, is ${v}`);
    if (!(f <= Math.fround(hi))) fail(file, at, `must be <= ${hi}, is ${v}`);
    out[key] = f;
  }
  const d = o[directionKey];
  if (d !== undefined) {
    const at = `${ptr}/${directionKey}`;
    if (!Array.isArray(d) || d.length !== 3) fail(file, at, 'must be an array of 3 numbers');
    const f = d.map((x, k) => {
      if (typeof x !== 'number' || !Number.isFinite(Math.fround(x))) fail(file, `${at}/${k}`, 'must be a finite number');
      return Math.fround(x);
    });
    const n = Math.hypot(...f);
    if (!(n > 1e-6 && Number.isFinite(n))) fail(file, at, 'must not be zero');
    out[directionKey] = f.map((x) => Math.fround(x / n));
  }
  const known = new Set([...table.map(([key]) => key), directionKey]);
  for (const k of Object.keys(o)) if (!known.has(k)) notes.push(`${file}: ${ptr}/${k}: unknown key, ignored`);
  return out;
}

// A part of kind pendulum or aim on node i (src/scene/parts_joint.c): {node, kind, skin,
// joint (the node it turns), pendulum or aim settings, target (aims: a node)}.
function readJointPart(json, i, rec, ptr, file, notes, resolveName) {
  const skins = json.skins || [];
  const skin = skins.findIndex((s) => (s.joints || []).includes(i));
  if (skin < 0) fail(file, ptr, `node ${i} is not a joint of any skin (a ${rec.kind} turns a joint)`);
  const part = { node: i, kind: rec.kind, skin, joint: i };
  let renamed = false;
  if (rec.kind === 'pendulum') {
    const s = readJointSettings(rec.pendulum, `${ptr}/pendulum`, file, notes, PENDULUM_SETTINGS, 'rest_direction', [0, -1, 0]);
    part.pendulum = s;
  } else {
    if (rec.target === undefined) fail(file, `${ptr}/target`, 'is missing');
    let target;
    [target, renamed] = resolveName(rec.target, rec.target_name, `${ptr}/target`, `${ptr}/target_name`);
    if (!skins[skin].joints.includes(target)) fail(file, `${ptr}/target`, `node ${target} is not a joint of skin ${skin}`);
    if (jointUnder(json, skin, target, i))
      fail(file, `${ptr}/target`, `node ${target} is ${target === i ? 'the aimed joint itself' : 'below the aimed joint'} (node ${i}): turning it would move its own target (a cycle)`);
    part.target = target;
    part.aim = readJointSettings(rec.aim, `${ptr}/aim`, file, notes, AIM_SETTINGS, 'aim_axis', [1, 0, 0]);
  }
  if (renamed) notes.push(`${file}: ${ptr}: node indices disagree with the node names stored beside them (the nodes were renumbered); the names were used`);
  const known = new Set(rec.kind === 'pendulum' ? ['version', 'kind', 'pendulum'] : ['version', 'kind', 'target', 'target_name', 'aim']);
  for (const k of Object.keys(rec)) if (!known.has(k)) notes.push(`${file}: ${ptr}/${k}: unknown key, ignored`);
  return part;
}

// The joint of `skin` above node `node` (its nearest ancestor that is a joint), or -1.
function parentJoint(json, skin, node) {
  const joints = new Set(json.skins[skin].joints);
  const parentOf = new Map();
  (json.nodes || []).forEach((n, p) => (n.children || []).forEach((c) => parentOf.set(c, p)));
  for (let a = parentOf.get(node); a !== undefined; a = parentOf.get(a)) if (joints.has(a)) return a;
  return -1;
}

function jointUnder(json, skin, below, joint) {
  for (let j = below, steps = 0; j >= 0 && steps <= json.nodes.length; j = parentJoint(json, skin, j), ++steps)
    if (j === joint) return true;
  return false;
}

// The C player's order (tl_scene.joint_parts): the pendulums, then each aim after the aims on
// its target's joint and above it; a joint a chain turns too, or a cycle of aims, is refused.
function orderJointParts(json, parts, jointParts, file) {
  for (const p of jointParts) {
    const q = parts.find((c) => c.skin === p.skin && c.bones.includes(p.joint));
    if (q) fail(file, `/nodes/${p.node}/extras/tailor`, `joint ${json.skins[p.skin].joints.indexOf(p.joint)} is a bone of the ${q.kind} part at /nodes/${q.node} (two parts would turn it)`);
  }
  const order = jointParts.filter((p) => p.kind === 'pendulum');
  const aimAt = new Map(jointParts.filter((p) => p.kind === 'aim').map((p) => [p.node, p]));
  const state = new Map();
  for (const first of aimAt.values()) {
    if (state.has(first)) continue;
    const stack = [first];
    state.set(first, 1);
    while (stack.length) {
      const p = stack[stack.length - 1];
      let wait = null;
      for (let j = p.target; j >= 0 && !wait; j = parentJoint(json, p.skin, j)) {
        const a = aimAt.get(j);
        if (a && a.skin === p.skin && state.get(a) !== 2) wait = a;
      }
      if (!wait) {
        order.push(stack.pop());
        state.set(p, 2);
      } else if (state.get(wait) === 1) {
        fail(file, `/nodes/${p.node}/extras/tailor/target`, `its target moves with the aim at /nodes/${wait.node}, which waits for this one (a cycle of aims)`);
      } else {
        stack.push(wait);
        state.set(wait, 1);
      }
    }
  }
  return order;
}

function typeName(v) {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

// `count` finite numbers within MAX_MAGNITUDE at ptr (src/scene/parts.c read_numbers).
function readNumbers(v, count, ptr, file) {
  if (!Array.isArray(v) || v.length !== count) fail(file, ptr, `must be an array of ${count} numbers, is ${Array.isArray(v) ? 'an array of another length' : typeName(v)}`);
  return v.map((x, k) => {
    if (typeof x !== 'number') fail(file, `${ptr}/${k}`, `must be a number, is ${typeName(x)}`);
    if (!(Math.abs(x) <= MAX_MAGNITUDE)) fail(file, `${ptr}/${k}`, `must be finite and within 1e+12, is ${x}`);
    return x;
  });
}

// C's printf %.Ng (the C reader's messages quote numbers that way).
function formatG(x, precision) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const trim = (t) => (t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t);
  const [mantissa, exponent] = x.toExponential(precision - 1).split('e');
  const e = Number(exponent);
  if (e < -4 || e >= precision) return `${trim(mantissa)}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return trim(x.toFixed(precision - 1 - e));
}

// skins[s].extras.tailor.frame (src/scene/parts.c read_frame, docs/schema.md): the character's
// up, forward and lateral in the skin's rest-world frame, as floats; null when the file has none.
// Each unit, the three orthogonal, forward = lateral x up, all within FRAME_TOLERANCE.
const FRAME_TOLERANCE = 1e-3;
const FRAME_KEYS = ['up', 'forward', 'lateral'];
function readSkinFrame(json, s, file, notes) {
  const o = json.skins[s].extras.tailor.frame, ptr = `/skins/${s}/extras/tailor/frame`;
  if (o === undefined) return null;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) fail(file, ptr, `must be an object, is ${typeName(o)}`);
  const v = FRAME_KEYS.map((k) => {
    const x = readNumbers(o[k], 3, `${ptr}/${k}`, file), len = Math.hypot(...x);
    if (!(Math.abs(len - 1) <= FRAME_TOLERANCE)) fail(file, `${ptr}/${k}`, `must be a unit vector, has length ${formatG(len, 6)}`);
    return x;
  });
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  for (const [a, b] of [[1, 0], [2, 0], [2, 1]]) { // forward.up, lateral.up, lateral.forward
    const d = dot(v[a], v[b]);
    if (!(Math.abs(d) <= FRAME_TOLERANCE)) fail(file, `${ptr}/${FRAME_KEYS[a]}`, `must be orthogonal to ${FRAME_KEYS[b]} (cosine ${formatG(d, 3)})`);
  }
  const [u, f, l] = v, cross = [l[1] * u[2] - l[2] * u[1], l[2] * u[0] - l[0] * u[2], l[0] * u[1] - l[1] * u[0]];
  const off = Math.max(...cross.map((c, i) => Math.abs(c - f[i])));
  if (!(off <= FRAME_TOLERANCE)) fail(file, `${ptr}/forward`, `must be lateral x up (a right-handed frame), is ${formatG(off, 3)} off it`);
  for (const k of Object.keys(o)) if (!FRAME_KEYS.includes(k)) notes.push(`${file}: ${ptr}/${k}: unknown key, ignored`);
  return { up: u.map(Math.fround), forward: f.map(Math.fround), lateral: l.map(Math.fround) };
}

// One stored collider (src/scene/parts.c read_collider): {joint (a node), shape (an index of
// COLLIDER_SHAPES), a, b, radius, axes}, floats in its joint's frame as the C reader keeps them.
function readCollider(json, s, o, at, file, notes, resolveName) {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) fail(file, at, `must be an object, is ${typeName(o)}`);
  const shape = COLLIDER_SHAPES.indexOf(o.shape);
  if (shape < 0) fail(file, `${at}/shape`, `must be "sphere", "capsule", "plane" or "ellipsoid", is ${typeof o.shape === 'string' ? o.shape : typeName(o.shape)}`);
  const [joint, renamed] = resolveName(o.joint, o.joint_name, `${at}/joint`, `${at}/joint_name`);
  if (!json.skins[s].joints.includes(joint)) fail(file, `${at}/joint`, `node ${joint} is not a joint of skin ${s}`);
  const a = readNumbers(o.a, 3, `${at}/a`, file).map(Math.fround);
  const c = { joint, shape, a, b: a.slice(), radius: 0, axes: [[0, 0, 0], [0, 0, 0], [0, 0, 0]], renamed };
  const name = COLLIDER_SHAPES[shape];
  if (name === 'capsule' || name === 'plane') {
    const b = readNumbers(o.b, 3, `${at}/b`, file), n = Math.hypot(...b);
    if (name === 'plane' && !(n > 0)) fail(file, `${at}/b`, 'the plane\'s normal must not be zero');
    c.b = b.map((x) => Math.fround(name === 'plane' ? x / n : x));
  }
  if (name === 'sphere' || name === 'capsule') {
    if (typeof o.radius !== 'number') fail(file, `${at}/radius`, `must be a number, is ${typeName(o.radius)}`);
    if (!(Math.fround(o.radius) > 0 && o.radius <= MAX_MAGNITUDE)) fail(file, `${at}/radius`, `must be > 0 and within 1e+12, is ${o.radius}`);
    c.radius = Math.fround(o.radius);
  }
  if (name === 'ellipsoid') {
    if (!Array.isArray(o.axes) || o.axes.length !== 3) fail(file, `${at}/axes`, `must be an array of 3 semi-axes, is ${typeName(o.axes)}`);
    c.axes = o.axes.map((e, k) => {
      const f = readNumbers(e, 3, `${at}/axes/${k}`, file).map(Math.fround); // judged as stored
      if (!(f[0] * f[0] + f[1] * f[1] + f[2] * f[2] > 0)) fail(file, `${at}/axes/${k}`, 'a semi-axis must not be zero');
      return f;
    });
    c.axes.forEach((e, k) => {
      for (let m = 0; m < k; ++m) {
        const f = c.axes[m], dot = e[0] * f[0] + e[1] * f[1] + e[2] * f[2], ee = Math.hypot(...e), ff = Math.hypot(...f);
        if (!(Math.abs(dot) <= 1e-3 * ee * ff)) fail(file, `${at}/axes/${k}`, `must be orthogonal to semi-axis ${m} (cosine ${(dot / (ee * ff)).toPrecision(3)})`);
      }
    });
  }
  for (const k of Object.keys(o)) if (!COLLIDER_KEYS.has(k)) notes.push(`${file}: ${at}/${k}: unknown key, ignored`);
  return c;
}

// skins[s].extras.tailor.colliders (docs/schema.md): the skin's stored body colliders, [] when
// none. (role, side and vertices are informational: not checked here.)
function readSkinColliders(json, s, file, notes, resolveName) {
  const rec = json.skins[s].extras.tailor, base = `/skins/${s}/extras/tailor`;
  for (const k of Object.keys(rec)) if (!['version', 'frame', 'colliders', 'sheet', 'hair_fit'].includes(k)) notes.push(`${file}: ${base}/${k}: unknown key, ignored`);
  if (rec.colliders === undefined) return [];
  const ptr = `${base}/colliders`;
  if (!Array.isArray(rec.colliders)) fail(file, ptr, `must be an array of colliders, is ${typeName(rec.colliders)}`);
  if (rec.colliders.length > COLLIDERS_MAX) fail(file, ptr, `must list at most ${COLLIDERS_MAX} colliders, lists ${rec.colliders.length}`);
  const out = rec.colliders.map((o, k) => readCollider(json, s, o, `${ptr}/${k}`, file, notes, resolveName));
  if (out.some((c) => c.renamed)) notes.push(`${file}: ${ptr}: node indices disagree with the node names stored beside them (the nodes were renumbered); the names were used`);
  out.forEach((c) => delete c.renamed);
  return out;
}

// --- cloth parts (src/scene/parts.c read_cloth, docs/schema.md; played as src/play/cloth_play.c) ---

// tl_cloth_settings' floats in declaration order (the glue's, web/tailor_sim_glue.c) with the
// reader's ranges (src/scene/schema.c): [key, low, low open, high].
const CLOTH_SETTINGS = [['damping', 0, false, 0.999], ['edge_damping', 0, false, 0.999],
  ['contact_damping', 0, false, 1], ['stretch_stiffness', 0, false, 1], ['shear_stiffness', 0, false, 1],
  ['gravity', -Infinity, false, Infinity], ['wind', -Infinity, false, Infinity],
  ['edge_wind', -Infinity, false, Infinity], ['world_motion', 0, false, 1], ['edge_world_motion', 0, false, 1],
  ['max_distance_top', 0, true, Infinity], ['max_distance_bottom', 0, true, Infinity],
  ['edge_max_distance', 0, true, Infinity], ['collision_margin', 0, false, Infinity]];
const CLOTH_KEYS = new Set(['rows', 'columns', 'closed', 'bone_columns', 'particles', 'particle_joints', 'settings']);
const CLOTH_MAX_SIDE = 1024; // TL_CLOTH_MAX_SIDE

// extras.tailor.cloth of a part of kind cloth whose bones list has `listed` nodes: {rows, columns,
// closed, boneColumns, particles (bind space, floats), particleJoints (node indices), settings
// (the file's, by name; missing ones are the solver's defaults, filled in by the rig)}.
function readCloth(json, skin, rec, listed, ptr, file, notes) {
  const at = `${ptr}/cloth`, o = rec.cloth;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) fail(file, at, `must be an object, is ${typeName(o)}`);
  const count = (key, lo, hi) => (Number.isInteger(o[key]) && o[key] >= lo && o[key] <= hi ? o[key] : null);
  const R = count('rows', 2, CLOTH_MAX_SIDE), C = count('columns', 2, CLOTH_MAX_SIDE);
  const BC = C === null ? null : count('bone_columns', 1, C);
  if (R === null || C === null || BC === null)
    fail(file, at, `needs integer rows (2..${CLOTH_MAX_SIDE}), columns (2..${CLOTH_MAX_SIDE}) and bone_columns`);
  const closed = o.closed === true;
  if ((R - 1) * BC !== listed || BC !== (closed ? Math.floor(C / 2) : Math.floor((C + 1) / 2)))
    fail(file, at, `a ${R} x ${C} lattice with ${BC} bone columns has ${(R - 1) * BC} bones, bones lists ${listed}`);
  const N = R * C;
  if (!Array.isArray(o.particles) || o.particles.length !== 3 * N) fail(file, `${at}/particles`, `must be an array of ${3 * N} numbers (rows x columns x 3)`);
  if (!Array.isArray(o.particle_joints) || o.particle_joints.length !== N) fail(file, `${at}/particle_joints`, `must be an array of ${N} node indices`);
  const particles = o.particles.map((v, i) => {
    if (typeof v !== 'number' || !Number.isFinite(Math.fround(v))) fail(file, `${at}/particles/${i}`, 'must be a finite number');
    return Math.fround(v);
  });
  const joints = json.skins[skin].joints;
  const particleJoints = o.particle_joints.map((v, i) => {
    if (!Number.isInteger(v) || !joints.includes(v)) fail(file, `${at}/particle_joints/${i}`, `must be the node index of a joint of skin ${skin}`);
    return v;
  });
  const settings = {};
  const so = o.settings, sat = `${at}/settings`;
  if (so !== undefined) {
    if (typeof so !== 'object' || so === null || Array.isArray(so)) fail(file, sat, `must be an object, is ${typeName(so)}`);
    if (so.iterations !== undefined) {
      if (!Number.isInteger(so.iterations) || so.iterations < 0 || so.iterations > 1000) fail(file, `${sat}/iterations`, 'must be an integer in 0..1000');
      settings.iterations = so.iterations;
    }
    for (const [key, lo, open, hi] of CLOTH_SETTINGS) {
      const v = so[key];
      if (v === undefined) continue;
      if (typeof v !== 'number') fail(file, `${sat}/${key}`, `must be a number, is ${typeName(v)}`);
      const f = Math.fround(v); // judged as stored, a float
      if (!Number.isFinite(f)) fail(file, `${sat}/${key}`, `must be a finite number, is ${v}`);
      if (open ? !(f > lo) : !(f >= lo)) fail(file, `${sat}/${key}`, `must be ${open ? '>' : '>='} ${lo}, is ${v}`);
      if (!(f <= Math.fround(hi))) fail(file, `${sat}/${key}`, `must be <= ${hi}, is ${v}`);
      settings[key] = f;
    }
    const known = new Set(['iterations', ...CLOTH_SETTINGS.map(([key]) => key)]);
    for (const k of Object.keys(so)) if (!known.has(k)) notes.push(`${file}: ${sat}/${k}: unknown key, ignored`);
  }
  for (const k of Object.keys(o)) if (!CLOTH_KEYS.has(k)) notes.push(`${file}: ${at}/${k}: unknown key, ignored`);
  return { rows: R, columns: C, closed, boneColumns: BC, particles, particleJoints, settings };
}

// The parts of a glTF JSON (parser.json): [{node, kind, attachment, bones, end, radii,
// settings, notes}], node indices resolved through the stored names as the C reader does;
// colliders[s]: skin s's stored body colliders (readSkinColliders); frames[s]: its stored frame
// or null (readSkinFrame).
export function readParts(json, file = 'file') {
  const nodes = json.nodes || [];
  const notes = [];
  const byName = new Map();
  nodes.forEach((n, i) => {
    if (n.name === undefined) return;
    if (!byName.has(n.name)) byName.set(n.name, []);
    byName.get(n.name).push(i);
  });
  const frames = (json.skins || []).map((skin, s) => {
    if (!skin.extras || skin.extras.tailor === undefined) return null;
    const rec = skin.extras.tailor;
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) fail(file, `/skins/${s}/extras/tailor`, `must be an object, is ${typeName(rec)}`);
    checkVersion(rec, `/skins/${s}/extras/tailor`, file);
    return readSkinFrame(json, s, file, notes);
  });
  const parts = [], jointParts = [];
  // a node index checked against the name stored beside it (the C reader's rule); [node, renamed]
  const resolveName = (index, name, at, nameAt) => {
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= nodes.length)
      fail(file, at, `no node ${index}`);
    if (name === undefined || nodes[index].name === name) return [index, false];
    const hits = byName.get(name) || [];
    if (hits.length === 0) fail(file, nameAt, `no node is named "${name}" (the index says node ${index})`);
    if (hits.length > 1) fail(file, nameAt, `${hits.length} nodes are named "${name}" (nodes ${hits.join(' and ')}) and node ${index} is none of them`);
    return [hits[0], true];
  };
  nodes.forEach((node, i) => {
    const rec = node.extras && node.extras.tailor;
    if (rec === undefined) return;
    const ptr = `/nodes/${i}/extras/tailor`;
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) fail(file, ptr, 'must be an object');
    checkVersion(rec, ptr, file);
    if (!['tail', 'hair', 'cloth', 'pendulum', 'aim'].includes(rec.kind)) fail(file, `${ptr}/kind`, `unknown kind ${JSON.stringify(rec.kind)}`);
    if (rec.kind === 'pendulum' || rec.kind === 'aim') {
      jointParts.push(readJointPart(json, i, rec, ptr, file, notes, resolveName));
      return;
    }
    for (const k of Object.keys(rec)) if (!PART_KEYS.has(k)) notes.push(`${file}: ${ptr}/${k}: unknown key, ignored`);
    let renumbered = false;
    const resolve = (index, name, at, nameAt) => {
      const [node, renamed] = resolveName(index, name, at, nameAt);
      renumbered = renumbered || renamed;
      return node;
    };
    if (!Array.isArray(rec.bones) || rec.bones.length < 2 || rec.bones.length > MAX_BONES + 1)
      fail(file, `${ptr}/bones`, `must be an array of 2..${MAX_BONES + 1} node indices`);
    if (rec.bone_names !== undefined && (!Array.isArray(rec.bone_names) || rec.bone_names.length !== rec.bones.length))
      fail(file, `${ptr}/bone_names`, 'must be as long as bones');
    const attachment = resolve(rec.attachment, rec.attachment_name, `${ptr}/attachment`, `${ptr}/attachment_name`);
    const list = rec.bones.map((b, k) => resolve(b, rec.bone_names && rec.bone_names[k], `${ptr}/bones/${k}`, `${ptr}/bone_names/${k}`));
    if (new Set([attachment, ...list]).size !== list.length + 1) fail(file, `${ptr}/bones`, 'lists a node twice');
    const count = list.length - 1;
    let radii = new Array(count).fill(0);
    if (rec.radii !== undefined) {
      if (!Array.isArray(rec.radii) || rec.radii.length !== count) fail(file, `${ptr}/radii`, `must be an array of ${count} numbers`);
      rec.radii.forEach((r, k) => {
        if (typeof r !== 'number' || !Number.isFinite(r) || r < 0) fail(file, `${ptr}/radii/${k}`, 'must be a finite number >= 0');
      });
      radii = rec.radii.slice();
    }
    if (rec.chain !== undefined && (typeof rec.chain !== 'object' || rec.chain === null || Array.isArray(rec.chain)))
      fail(file, `${ptr}/chain`, 'must be an object');
    let hitRadius = -1; // (the C reader's rule, src/scene/parts_hair.c)
    if (rec.hit_radius !== undefined) {
      if (rec.kind !== 'hair') fail(file, `${ptr}/hit_radius`, 'only a hair part has one');
      if (typeof rec.hit_radius !== 'number') fail(file, `${ptr}/hit_radius`, `must be a number, is ${typeName(rec.hit_radius)}`);
      if (!(rec.hit_radius >= 0 && Number.isFinite(Math.fround(rec.hit_radius)))) fail(file, `${ptr}/hit_radius`, `must be >= 0, is ${rec.hit_radius}`);
      hitRadius = Math.fround(rec.hit_radius);
    }
    const skin = (json.skins || []).findIndex((s) => (s.joints || []).includes(attachment) && (s.joints || []).includes(list[0]));
    if (skin < 0) fail(file, ptr, 'attachment and bones are not joints of one skin');
    list.forEach((b, k) => {
      if (!json.skins[skin].joints.includes(b)) fail(file, `${ptr}/bones/${k}`, `node ${b} is not a joint of skin ${skin}`);
    });
    if (renumbered) notes.push(`${file}: ${ptr}: node indices disagree with the node names stored beside them (the nodes were renumbered); the names were used`);
    const part = { node: i, kind: rec.kind, skin, attachment, bones: list.slice(0, count), end: list[count], radii,
      settings: readSettings(rec.chain, ptr, file), hitRadius, renumbered };
    if (rec.kind === 'cloth') part.cloth = readCloth(json, skin, rec, list.length, ptr, file, notes);
    parts.push(part);
  });
  const colliders = (json.skins || []).map((skin, s) =>
    (skin.extras && skin.extras.tailor !== undefined ? readSkinColliders(json, s, file, notes, resolveName) : []));
  const sheets = (json.skins || []).map((skin, s) => readSheet(json, s, parts, file, notes));
  return { parts, jointParts: orderJointParts(json, parts, jointParts, file), colliders, sheets, frames, notes };
}

// skins[s].extras.tailor.sheet (docs/schema.md): the ties tailor rig found between the skin's
// hair parts (play_sheet_ties_find), checked by the C reader's rules (src/scene/parts_hair.c);
// [] when none, or when the nodes were renumbered (its ties name parts by node index alone).
function readSheet(json, s, parts, file, notes) {
  const rec = json.skins[s].extras && json.skins[s].extras.tailor;
  if (!rec || rec.sheet === undefined) return [];
  const base = `/skins/${s}/extras/tailor/sheet`;
  if (!Array.isArray(rec.sheet)) fail(file, base, `must be an array of ties, is ${typeName(rec.sheet)}`);
  if (parts.some((p) => p.renumbered)) {
    notes.push(`${file}: ${base}: the nodes were renumbered, so the ties name no part: ignored`);
    return [];
  }
  const pair = (v, at) => {
    if (!(Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number' && Number.isInteger(x))))
      fail(file, at, 'must be an array of 2 integers');
    return v;
  };
  return rec.sheet.map((o, k) => {
    const at = `${base}/${k}`;
    if (typeof o !== 'object' || o === null || Array.isArray(o)) fail(file, at, `must be an object, is ${typeName(o)}`);
    const nodes = pair(o.parts, `${at}/parts`);
    const p = nodes.map((n) => parts.find((q) => q.kind === 'hair' && q.skin === s && q.node === n));
    p.forEach((q, i) => { if (!q) fail(file, `${at}/parts`, `node ${nodes[i]} is no hair part of skin ${s}`); });
    if (p[0] === p[1]) fail(file, `${at}/parts`, 'ties a part to itself');
    const links = pair(o.links, `${at}/links`);
    links.forEach((l, i) => {
      if (l < 0 || l >= p[i].bones.length) fail(file, `${at}/links`, `link ${l} of a part of ${p[i].bones.length} bones`);
    });
    if (!(Array.isArray(o.at) && o.at.length === 2 && o.at.every((x) => typeof x === 'number' && x >= 0 && x <= 1)))
      fail(file, `${at}/at`, 'must be an array of 2 numbers in [0, 1]');
    if (typeof o.seam !== 'number') fail(file, `${at}/seam`, `must be a number, is ${typeName(o.seam)}`);
    if (!(o.seam >= 0 && Number.isFinite(Math.fround(o.seam)))) fail(file, `${at}/seam`, `must be >= 0, is ${o.seam}`);
    for (const key of Object.keys(o)) if (!['parts', 'links', 'at', 'seam'].includes(key)) notes.push(`${file}: ${at}/${key}: unknown key, ignored`);
    return { parts: nodes.slice(), links: links.slice(), at: o.at.slice(), seam: o.seam };
  });
}

// --- the runtime on a three.js scene ---

function sanitize(name) {
  // three.js's PropertyBinding.sanitizeNodeName: spaces to _, reserved characters dropped
  return name.replace(/\s/g, '_').replace(/[[\].:/]/g, '');
}

export class TailorRig {
  constructor(sim, loaded, options) {
    this.sim = sim;
    const isGltf = loaded && loaded.scene && loaded.parser;
    this.scene = isGltf ? loaded.scene : loaded;
    this.root = options.root || this.scene;
    this.mixer = options.mixer || null;
    this.sleepSeconds = options.sleepSeconds ?? PLAY_SLEEP_SECONDS;
    this.collidersOn = options.colliders ?? true; // the chains keep out of the body colliders
    this.hairColliders = options.hairColliders ?? false; // (a probe: see attach)
    this.sheetOn = options.sheet ?? true; // neighbouring hair locks held together (the C player's)
    // the clips whose actions' loop wraps are cuts: the file's and the caller's
    this.clips = [...(isGltf ? loaded.animations || [] : []), ...(options.clips || [])];
    this.clipTimes = new Map(); // a looping action's clip time when last seen
    this.enabled = true;
    this.chains = [];
    const json = isGltf ? loaded.parser.json : null;
    const objectOf = new Map();
    if (isGltf) {
      this.scene.traverse((o) => {
        const a = loaded.parser.associations.get(o);
        if (a && a.nodes !== undefined && !objectOf.has(a.nodes)) objectOf.set(a.nodes, o);
      });
    }
    let parts, jointParts = [], colliders = [], sheets = [];
    this.frames = [];
    if (json) {
      ({ parts, jointParts, colliders, sheets, frames: this.frames, notes: this.notes } = readParts(json, options.file || 'file'));
    } else {
      ({ parts, notes: this.notes } = this.partsFromScene());
    }
    this.parts = parts;
    const find = (node, name) => objectOf.get(node) || (name !== undefined && this.scene.getObjectByName(sanitize(name)));
    this.scene.updateMatrixWorld(true);
    // the skins' stored body colliders, each on its joint's object (what a viewer draws)
    this.colliders = colliders.flatMap((list, skin) => list.map((c) => {
      const object = find(c.joint, json.nodes[c.joint].name);
      if (!object) throw new Error('tailor-sim: a collider\'s joint is not in the scene');
      return { ...c, skin, object };
    }));
    this.cloths = [];
    for (const part of parts) {
      const names = json ? (i) => json.nodes[i].name : (i) => part.names.get(i);
      const attachment = find(part.attachment, names(part.attachment));
      const bones = part.bones.map((b) => find(b, names(b)));
      const end = find(part.end, names(part.end));
      if (!attachment || bones.some((b) => !b)) throw new Error('tailor-sim: a part\'s joint is not in the scene');
      if (part.kind === 'cloth') {
        const joints = part.cloth.particleJoints.map((j) => find(j, names(j)));
        if (!end || joints.some((j) => !j)) throw new Error('tailor-sim: a part\'s joint is not in the scene');
        this.cloths.push(this.buildCloth(part, attachment, [...bones, end], joints));
        continue;
      }
      this.chains.push(this.buildChain(part, attachment, bones, end));
    }
    this.sheet = this.buildSheet(sheets || []);
    // pendulum and aim parts, in the C player's order (applied after the chains, aims last)
    this.joints = jointParts.map((part) => {
      const joint = find(part.joint, json.nodes[part.joint].name);
      const target = part.kind === 'aim' ? find(part.target, json.nodes[part.target].name) : null;
      if (!joint || (part.kind === 'aim' && !target)) throw new Error('tailor-sim: a part\'s joint is not in the scene');
      return this.buildJoint(part, joint, target);
    });
    this.jointsStarted = false;
    this.home = [0, 0, 0];
    this.lastTime = undefined;
  }

  // attach(scene) alone: the records from the objects' userData (GLTFLoader copies extras
  // there); node indices are unknown, so the stored names (version 2) find the nodes.
  partsFromScene() {
    const nodes = [];
    const named = new Map();
    this.scene.traverse((o) => {
      if (o.userData && o.userData.tailor) nodes.push(o);
    });
    const parts = [];
    for (const o of nodes) {
      const rec = o.userData.tailor;
      checkVersion(rec, `${o.name}/extras/tailor`, 'scene');
      if (!rec.bone_names || rec.attachment_name === undefined)
        throw new Error('tailor-sim: attach(scene) needs version 2 names; pass the loaded gltf instead');
      if (rec.kind === 'cloth') continue; // (its particles' joints are node indices: attach(gltf) plays it)
      const names = new Map([[rec.attachment, rec.attachment_name]]);
      rec.bones.forEach((b, k) => names.set(b, rec.bone_names[k]));
      const count = rec.bones.length - 1;
      parts.push({ kind: rec.kind, attachment: rec.attachment, bones: rec.bones.slice(0, count), end: rec.bones[count],
        radii: rec.radii || new Array(count).fill(0), settings: readSettings(rec.chain, o.name, 'scene'), names });
      named.set(o, true);
    }
    return { parts, notes: [] };
  }

  // The skin binding joints a and b: its skeleton, its meshes, the inverse bind of a joint and
  // the rest-world frame of tl_scene (M = the top joint's stored world x its inverse bind, the
  // top joint being the skeleton root with the most joints below it; the skin's rest vertices
  // are M x bind positions), and a joint's rest_world there (M x its inverse bind, inverted).
  restSkin(a, b) {
    let skeleton = null;
    const meshes = [];
    this.scene.traverse((o) => {
      if (o.isSkinnedMesh && o.skeleton.bones.includes(a) && o.skeleton.bones.includes(b)) {
        if (!skeleton) skeleton = o.skeleton;
        meshes.push(o);
      }
    });
    if (!skeleton) throw new Error('tailor-sim: no skinned mesh binds the part\'s joints');
    const ibm = (o) => skeleton.boneInverses[skeleton.bones.indexOf(o)].elements;
    const inSkeleton = new Set(skeleton.bones);
    let top = null, topCount = -1;
    for (const j of skeleton.bones) {
      let up = j.parent;
      while (up && !inSkeleton.has(up)) up = up.parent;
      if (up) continue;
      let count = 0;
      j.traverse((o) => { if (inSkeleton.has(o)) count++; });
      if (count > topCount) top = j, topCount = count;
    }
    const M = this.relativeWorld(top).multiply(new top.matrixWorld.constructor().fromArray(ibm(top)));
    const m = M.elements;
    return { skeleton, meshes, ibm, m, restWorld: (o) => mat4Mul(m, invert(ibm(o))) };
  }

  // Skin s's frame in its rest-world (tl_scene_skin up, forward, lateral): the one the file
  // stores (skins[s].extras.tailor.frame, written by tailor rig), else glTF's +Y up, +Z forward,
  // +X lateral. Gravity, the hips axes, H and the floor of its chains and pendulums follow it.
  skinFrame(skinIndex) {
    const f = this.frames[skinIndex];
    return f ? { up: f.up.slice(), forward: f.forward.slice(), lateral: f.lateral.slice() }
      : { up: [0, 1, 0], forward: [0, 0, 1], lateral: [1, 0, 0] };
  }

  // A rest vertex's height along `up` in the rest-world (M x its bind position).
  static restAlong(m, up, x, y, z) {
    let h = 0;
    for (let r = 0; r < 3; ++r) h += up[r] * (m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r]);
    return h;
  }

  // The skin's rest height along up (tl_scene_skin.height), from restSkin's meshes.
  static restHeight({ meshes, m }, up = [0, 1, 0]) {
    let lo = Infinity, hi = -Infinity;
    for (const mesh of meshes) {
      const pos = mesh.geometry.attributes.position;
      for (let v = 0; v < pos.count; ++v) {
        const h = TailorRig.restAlong(m, up, pos.getX(v), pos.getY(v), pos.getZ(v));
        lo = Math.min(lo, h);
        hi = Math.max(hi, h);
      }
    }
    return hi > lo ? hi - lo : 0;
  }

  // The chain of one part: rest geometry from the skin's inverse binds (as tl_player does),
  // scale H / 1.8 from the skin's rest height, the floor under the body's rest skin.
  buildChain(part, attachment, bones, end) {
    const sim = this.sim;
    const { skeleton, meshes, ibm, m, restWorld } = this.restSkin(attachment, bones[0]);
    const n = bones.length;
    const t = new Float32Array(3 * n), q = new Float32Array(4 * n);
    let parent = attachment;
    bones.forEach((b, i) => {
      const l = sim.localFromBinds(ibm(parent), ibm(b));
      t.set(l.translation, 3 * i);
      q.set(l.rotation, 4 * i);
      parent = b;
    });
    let tip = null;
    if (end && skeleton.bones.includes(end)) tip = sim.localFromBinds(ibm(bones[n - 1]), ibm(end)).translation;
    // height along the skin's up, and the floor: the lowest rest vertex no chain bone dominates
    const frame = this.skinFrame(part.skin);
    let lo = Infinity, hi = -Infinity, floor = Infinity;
    const chainBones = new Set(bones);
    for (const mesh of meshes) {
      const pos = mesh.geometry.attributes.position, si = mesh.geometry.attributes.skinIndex,
        sw = mesh.geometry.attributes.skinWeight;
      for (let v = 0; v < pos.count; ++v) {
        const x = pos.getX(v), y = pos.getY(v), z = pos.getZ(v);
        const h = TailorRig.restAlong(m, frame.up, x, y, z);
        lo = Math.min(lo, h);
        hi = Math.max(hi, h);
        let best = -1, dom = 0;
        for (let k = 0; k < 4; ++k) {
          const w = sw.getComponent(v, k);
          if (w > best) best = w, dom = si.getComponent(v, k);
        }
        if (!chainBones.has(mesh.skeleton.bones[dom])) floor = Math.min(floor, h);
      }
    }
    const height = hi > lo ? hi - lo : 0;
    // the hips axes: the skin's lateral, up and forward, in the attachment's rest frame
    // (tl_scene's rest_world: M x the inverse of its inverse bind, as the C player takes them; the
    // bind frame alone turns them wherever the skeleton's root is turned or scaled)
    const rest = restWorld(attachment);
    const local = (v) => {
      const out = [0, 1, 2].map((c) => {
        const col = Math.hypot(rest[4 * c], rest[4 * c + 1], rest[4 * c + 2]);
        return col > 0 ? (rest[4 * c] * v[0] + rest[4 * c + 1] * v[1] + rest[4 * c + 2] * v[2]) / col : 0;
      });
      const len = Math.hypot(...out);
      return out.map((c) => (len > 0 ? c / len : 0));
    };
    const chain = sim.createChain({
      boneCount: n, restTranslations: t, restRotations: q, tipTranslation: tip,
      jointRadii: part.radii, settings: part.settings, up: frame.up,
      scale: height > 0 ? height / 1.8 : 1, floorHeight: Number.isFinite(floor) ? floor : lo,
      hipsLateral: local(frame.lateral), hipsUp: local(frame.up), hipsForward: local(frame.forward),
      hipsPlaneEnabled: part.kind !== 'hair', // (hair hangs in front of the shoulders too)
      sleepSeconds: this.sleepSeconds,
    });
    const { kept: colliders, growth } = this.chainColliders(part, skeleton, restWorld, bones, end);
    let growthBlock = 0;
    if (growth && growth.length) {
      growthBlock = sim.x.tl_web_alloc(4 * growth.length);
      sim.f32(growthBlock, growth.length).set(growth);
    }
    return {
      part, chain, attachment, bones, height, restTranslations: t,
      restQuaternions: bones.map((b) => b.quaternion.clone()),
      fixedStep: sim.defaults().fixedStep, start: null, colliders,
      colliderBlock: colliders.length ? sim.x.tl_web_alloc(4 * COLLIDER_FLOATS * colliders.length) : 0,
      seatBlock: colliders.length ? sim.x.tl_web_alloc(4 * COLLIDER_FLOATS * colliders.length) : 0,
      growthBlock, posedCount: 0, seatCount: 0,
    };
  }

  // The stored colliders a chain runs with (src/play/chain_colliders.c, a chain without a hit
  // radius): its skin's, less those its bind pose's points (bone heads, end joint) lie in, such
  // as the pelvis around a tail's root. Judged in tl_scene's rest-world frame: a joint's
  // rest_world is M x its inverse bind, inverted (restSkin).
  chainColliders(part, skeleton, restWorld, bones, end) {
    const points = [...bones, ...(end && skeleton.bones.includes(end) ? [end] : [])].map((o) => restWorld(o).slice(12, 15));
    const rest = new Float64Array(COLLIDER_FLOATS);
    // hair with the lock thickness tailor rig stored: the C player's colliders grown by it per
    // link (chain_growth.c, in the wasm), those no link meets left out
    if (part.kind === 'hair' && part.hitRadius > 0 && !this.hairColliders) {
      const kept = [], growth = [];
      for (const c of this.colliders) {
        if (c.skin !== part.skin || !skeleton.bones.includes(c.object)) continue;
        packCollider(c, restWorld(c.object), rest);
        const g = this.sim.colliderGrowth(rest, part.hitRadius, points.slice(1).flat(), bones.length);
        if (g) kept.push(c), growth.push(...g);
      }
      if (kept.length > this.sim.collidersMax) throw new Error(`tailor-sim: ${kept.length} colliders, more than ${this.sim.collidersMax}`);
      return { kept, growth };
    }
    // other hair: none (a file rigged before session 24 stores no thickness; `hairColliders`
    // probes the tails' rule on it, docs/web.md "Session 23")
    if (part.kind !== 'tail' && !this.hairColliders) return { kept: [], growth: null };
    const kept = this.colliders.filter((c) => {
      if (c.skin !== part.skin || !skeleton.bones.includes(c.object)) return false;
      packCollider(c, restWorld(c.object), rest);
      return points.every((p) => !(colliderDepth(rest, p) > 0));
    });
    if (kept.length > this.sim.collidersMax) throw new Error(`tailor-sim: ${kept.length} colliders, more than ${this.sim.collidersMax}`);
    return { kept, growth: null };
  }

  // Chain c's colliders posed now (each its joint's world matrix in the root's frame times its
  // stored shape) into its block in the solver's memory; their count (0: none, or turned off).
  poseColliders(c) {
    if (!this.collidersOn || !c.colliders.length) return 0;
    const out = this.sim.f32(c.colliderBlock, COLLIDER_FLOATS * c.colliders.length);
    // (relativeWorld without its copies: the root's inverse once, one scratch matrix; a collider
    // many chains share, as a head's locks do, posed once a pose: poseStamp)
    const Matrix = this.root.matrixWorld.constructor;
    if (this.rootStamp !== this.poseStamp) {
      this.root.updateWorldMatrix(true, false);
      this.rootInverse = (this.rootInverse || new Matrix()).copy(this.root.matrixWorld).invert();
      this.rootStamp = this.poseStamp;
    }
    this.posed = this.posed || new Matrix();
    c.colliders.forEach((k, i) => {
      if (k.stamp !== this.poseStamp || this.poseStamp === undefined) {
        k.object.updateWorldMatrix(true, false);
        k.packed = k.packed || new Float32Array(COLLIDER_FLOATS);
        packCollider(k, this.posed.multiplyMatrices(this.rootInverse, k.object.matrixWorld).elements, k.packed);
        k.stamp = this.poseStamp;
      }
      out.set(k.packed, COLLIDER_FLOATS * i);
    });
    return c.colliders.length;
  }

  // --- cloth parts: a lattice driving bones, as src/play/cloth_play.c plays one (the glue's
  // tl_web_cloth_*: the lattice set-up and the bones' motion are the C player's own code) ---

  // The cloth of one part: its rest lattice (M x the stored bind-space particles), the skin's
  // stored colliders fitted to it as the C player fits them, the skin its bones drive (the skin
  // points of an open lattice), the skin's up and H / 1.8 m. bones: the part's bones and end.
  buildCloth(part, attachment, bones, joints) {
    const sim = this.sim, x = sim.x, cl = part.cloth;
    const { skeleton, meshes, ibm, m, restWorld } = this.restSkin(attachment, bones[0]);
    const n = cl.rows * cl.columns, count = bones.length;
    const point = (M, p, k) => M[12 + k] + M[k] * p[0] + M[4 + k] * p[1] + M[8 + k] * p[2];
    const rest = new Float32Array(3 * n);
    for (let i = 0; i < n; ++i) for (let k = 0; k < 3; ++k) rest[3 * i + k] = point(m, cl.particles.slice(3 * i, 3 * i + 3), k);
    // the skin the bones drive: more than half its weight on them (cloth_play.c part_rest_mesh)
    const ours = new Set(bones), mesh = [];
    for (const g of meshes) {
      const pos = g.geometry.attributes.position, si = g.geometry.attributes.skinIndex, sw = g.geometry.attributes.skinWeight;
      for (let v = 0; v < pos.count; ++v) {
        let w = 0;
        for (let k = 0; k < si.itemSize; ++k) if (ours.has(g.skeleton.bones[si.getComponent(v, k)])) w += sw.getComponent(v, k);
        if (w > 0.5) for (let k = 0; k < 3; ++k) mesh.push(point(m, [pos.getX(v), pos.getY(v), pos.getZ(v)], k));
      }
    }
    const colliders = this.colliders.filter((c) => c.skin === part.skin && skeleton.bones.includes(c.object));
    if (colliders.length > sim.collidersMax) throw new Error(`tailor-sim: ${colliders.length} colliders, more than ${sim.collidersMax}`);
    const pc = x.tl_web_cloth_param_count(), k = colliders.length;
    const params = x.tl_web_alloc(4 * pc);
    x.tl_web_default_cloth_params(params);
    const p = sim.f32(params, pc);
    const { up } = this.skinFrame(part.skin);
    const height = TailorRig.restHeight({ meshes, m }, up);
    p.set(up, 0);
    p[3] = height > 0 ? height / 1.8 : 1;
    if (cl.settings.iterations !== undefined) p[4] = cl.settings.iterations;
    CLOTH_SETTINGS.forEach(([key], i) => { if (cl.settings[key] !== undefined) p[5 + i] = cl.settings[key]; });
    const block = x.tl_web_alloc(4 * (3 * n + COLLIDER_FLOATS * k + k + mesh.length) + 512);
    const at = (f) => block + 4 * f;
    const restAt = at(0), colAt = at(3 * n), keptAt = at(3 * n + COLLIDER_FLOATS * k), meshAt = at(3 * n + COLLIDER_FLOATS * k + k);
    const message = at(3 * n + COLLIDER_FLOATS * k + k + mesh.length);
    sim.f32(restAt, 3 * n).set(rest);
    const packed = sim.f32(colAt, COLLIDER_FLOATS * k);
    colliders.forEach((c, i) => packCollider(c, restWorld(c.object), packed, COLLIDER_FLOATS * i));
    sim.f32(meshAt, mesh.length).set(mesh);
    const pointer = x.tl_web_cloth_create(cl.rows, cl.columns, cl.closed ? 1 : 0, restAt, params, colAt, keptAt, k,
      meshAt, mesh.length / 3, message, 512);
    const text = pointer ? '' : sim.message(message, 512);
    // the colliders kept, as fitted (rest-world), each moved by its joint's motion from rest
    const kept = new Int32Array(x.memory.buffer, keptAt, k).slice(), fitted = sim.f32(colAt, COLLIDER_FLOATS * k).slice();
    x.tl_web_free(block);
    x.tl_web_free(params);
    if (!pointer) throw new Error(`tailor-sim: ${text}`);
    const used = [];
    colliders.forEach((c, i) => {
      if (!kept[i]) return;
      const f = fitted.subarray(COLLIDER_FLOATS * i, COLLIDER_FLOATS * (i + 1));
      used.push({ shape: f[0], a: Array.from(f.subarray(1, 4)), b: Array.from(f.subarray(4, 7)), radius: f[7],
        axes: [0, 1, 2].map((e) => Array.from(f.subarray(8 + 3 * e, 11 + 3 * e))), object: c.object,
        restInverse: invert(restWorld(c.object)) });
    });
    // per frame: frame (8), targets (3n), colliders, the bones' rest worlds and attachment, locals
    const frameAt = x.tl_web_alloc(4 * (8 + 3 * n + COLLIDER_FLOATS * Math.max(1, used.length) + 16 * (2 * count + 1)));
    const targetsAt = frameAt + 32, usedAt = targetsAt + 12 * n, restWorldAt = usedAt + 4 * COLLIDER_FLOATS * Math.max(1, used.length);
    const attachAt = restWorldAt + 64 * count, localAt = attachAt + 64;
    bones.forEach((b, i) => sim.f32(restWorldAt + 64 * i, 16).set(restWorld(b)));
    // each particle's skinning matrix is its joint's W x IBM: the distinct joints, once a step
    const distinct = [...new Set(joints)];
    return {
      part, pointer, attachment, bones, joints, distinct, jointSlot: joints.map((j) => distinct.indexOf(j)),
      jointIbm: distinct.map((j) => ibm(j)), particles: cl.particles, height, colliders: used,
      attachInverse: invert(restWorld(attachment)), frameAt, targetsAt, usedAt, restWorldAt, attachAt, localAt,
      rest: bones.map((b) => ({ position: b.position.clone(), quaternion: b.quaternion.clone(), scale: b.scale.clone() })),
      started: false,
    };
  }

  // Cloth c's input now in the solver's memory: its frame (the attachment's motion from rest), its
  // particles' targets (each its rest position skinned to its joint) and, colliders on, its
  // colliders posed; their count.
  clothInput(c) {
    const sim = this.sim;
    const world = (o) => this.relativeWorld(o).elements;
    sim.f32(c.frameAt, 8).set(sim.poseFromMatrix(mat4Mul(world(c.attachment), c.attachInverse)));
    const skins = c.distinct.map((j, i) => mat4Mul(world(j), c.jointIbm[i]));
    const t = sim.f32(c.targetsAt, c.particles.length), p = c.particles;
    for (let i = 0; i < c.jointSlot.length; ++i) {
      const M = skins[c.jointSlot[i]];
      for (let k = 0; k < 3; ++k) t[3 * i + k] = M[12 + k] + M[k] * p[3 * i] + M[4 + k] * p[3 * i + 1] + M[8 + k] * p[3 * i + 2];
    }
    if (!this.collidersOn || !c.colliders.length) return 0;
    const out = sim.f32(c.usedAt, COLLIDER_FLOATS * c.colliders.length);
    c.colliders.forEach((k, i) => packCollider(k, Float32Array.from(mat4Mul(world(k.object), k.restInverse)), out, COLLIDER_FLOATS * i));
    return c.colliders.length;
  }

  // Cloth c at rest on its targets under the pose now (play_cloths_start).
  startCloth(c) {
    const n = this.clothInput(c);
    this.sim.x.tl_web_cloth_start(c.pointer, c.frameAt, c.targetsAt, c.usedAt, n);
    c.started = true;
  }

  // One frame of dt seconds ending at the pose now; with `cut`, dt 0: carried rigidly to it.
  stepCloth(c, dt, cut = false) {
    const n = this.clothInput(c);
    this.sim.x.tl_web_cloth_step(c.pointer, c.frameAt, c.targetsAt, c.usedAt, n, dt, cut ? 1 : 0);
  }

  // Cloth c's bones from its lattice: their locals (the glue's, as tl_player_apply writes them).
  writeCloth(c) {
    const sim = this.sim;
    sim.f32(c.attachAt, 16).set(this.relativeWorld(c.attachment).elements);
    sim.x.tl_web_cloth_bones(c.pointer, c.part.cloth.boneColumns, c.bones.length, c.restWorldAt, c.attachAt, c.localAt);
    const local = sim.f32(c.localAt, 16 * c.bones.length);
    const Matrix = c.attachment.matrix.constructor, scratch = this.clothMatrix || (this.clothMatrix = new Matrix());
    c.bones.forEach((b, i) => scratch.fromArray(local, 16 * i).decompose(b.position, b.quaternion, b.scale));
  }

  // The particles of cloth c after its last step (root frame; rows x columns x 3), a copy.
  clothPositions(c) {
    return this.sim.f32(this.sim.x.tl_web_cloth_positions(c.pointer), c.particles.length).slice();
  }

  // Chains just placed at rest are kept out of the colliders of the pose they were placed in,
  // in a step of no time before their first step (as tl_chain_step_sampled seats them in the C
  // player; a plain step would seat them in its own colliders instead): those colliders kept.
  seat(chains) {
    this.poseStamp = (this.poseStamp || 0) + 1;
    for (const c of chains) {
      c.seatCount = this.poseColliders(c);
      if (c.seatCount) this.sim.f32(c.seatBlock, COLLIDER_FLOATS * c.seatCount).set(this.sim.f32(c.colliderBlock, COLLIDER_FLOATS * c.seatCount));
    }
  }

  // The sheet (src/play/sheet_hold.c, in the wasm) of the ties the file stores between its hair
  // parts (readSheet), over every chain, as tl_player_create makes it; null without ties.
  buildSheet(sheets) {
    const index = new Map(this.chains.map((c, i) => [c.part.node, i]));
    const ties = sheets.flat().filter((t) => index.has(t.parts[0]) && index.has(t.parts[1]));
    if (!ties.length) return null;
    const x = this.sim.x, n = this.chains.length;
    // one block: bone counts, the ties, then per frame the starts (8 floats a chain) and counts
    const block = x.tl_web_alloc(4 * n + 4 * TIE_FLOATS * ties.length + 32 * n + 4 * n);
    new Int32Array(x.memory.buffer, block, n).set(this.chains.map((c) => c.bones.length));
    const packed = this.sim.f32(block + 4 * n, TIE_FLOATS * ties.length);
    ties.forEach((t, k) => packed.set([index.get(t.parts[0]), index.get(t.parts[1]), t.links[0], t.links[1], t.at[0], t.at[1], t.seam], TIE_FLOATS * k));
    const pointer = x.tl_web_sheet_create(n, block, block + 4 * n, ties.length);
    if (!pointer) {
      x.tl_web_free(block);
      throw new Error('tailor-sim: the sheet\'s ties do not fit its chains (or out of memory)');
    }
    this.chains.forEach((c, i) => x.tl_web_sheet_chain(pointer, i, c.chain.pointer, c.colliderBlock, c.growthBlock));
    const starts = block + 4 * n + 4 * TIE_FLOATS * ties.length;
    return { pointer, block, starts, counts: starts + 32 * n, ties: ties.length };
  }

  // The chains' start poses into the sheet's block.
  sheetStarts() {
    const f = this.sim.f32(this.sheet.starts, 8 * this.chains.length);
    this.chains.forEach((c, i) => f.set(c.start, 8 * i));
  }

  // The ties' rest from the chains at rest (play_sheet_rest; after every chain's reset).
  restSheet() {
    if (!this.sheet || this.chains.some((c) => !c.start)) return;
    this.sheetStarts();
    this.sim.x.tl_web_sheet_rest(this.sheet.pointer, this.sheet.starts);
  }

  // After every chain's step: neighbouring locks held together (play_sheet_hold), each chain
  // against the colliders its step saw.
  holdSheet() {
    if (!this.sheet || !this.sheetOn) return;
    this.sheetStarts();
    new Int32Array(this.sim.x.memory.buffer, this.sheet.counts, this.chains.length).set(this.chains.map((c) => c.posedCount));
    this.sim.x.tl_web_sheet_hold(this.sheet.pointer, this.sheet.starts, this.sheet.counts);
  }

  // How many sweeps over its ties the sheet's last hold ran (0 without a sheet).
  sheetSweeps() {
    return this.sheet ? this.sim.x.tl_web_sheet_sweeps(this.sheet.pointer) : 0;
  }

  // Neighbouring hair locks held together by the file's sheet (true, attach's default) or not.
  setSheet(on) {
    this.sheetOn = Boolean(on);
  }

  // The chains keep out of the body colliders (true, attach's default) or run free of them.
  setColliders(on) {
    this.collidersOn = Boolean(on);
  }

  // A pendulum or aim part on its joint (src/play/joint_play.c): a pendulum's length, gravity
  // and teleport distance scaled by H / 1.8 m of its skin, up the skin's (skinFrame).
  buildJoint(part, joint, target) {
    const entry = { part, joint, target, animated: joint.quaternion.clone(), posed: joint.quaternion.clone(),
      written: null, pendulum: null, height: 0 };
    if (part.kind === 'pendulum') {
      const { up } = this.skinFrame(part.skin);
      const height = TailorRig.restHeight(this.restSkin(joint, joint), up);
      const scale = Math.fround(height > 0 ? height / 1.8 : 1);
      entry.height = height;
      entry.pendulum = this.sim.createPendulum({ ...part.pendulum, scale, length: Math.fround(part.pendulum.length * scale), up });
    }
    return entry;
  }

  // The joint parts' joints as the clip poses them: a rotation this rig wrote and the mixer
  // did not overwrite goes back to the one it replaced (three.js's mixer writes a value only
  // when it changed: a joint the clip holds still, or does not animate, keeps what was written).
  unwriteJoints() {
    for (const j of this.joints) if (j.written && j.joint.quaternion.equals(j.written)) j.joint.quaternion.copy(j.posed);
  }

  // A pendulum's pivot: its joint's pose in the root's frame relative to home.
  pivotPose(j) {
    const f = this.sim.poseFromMatrix(this.relativeWorld(j.joint).elements);
    for (let c = 0; c < 3; ++c) f[c] -= this.home[c];
    return f;
  }

  // The C player's floating origin for the pendulums: the first one's joint snapped to a grid
  // of a power of two of at least 8 heights (at the start and at every cut).
  rehomeJoints() {
    const first = this.joints.find((j) => j.pendulum);
    if (!first) return;
    const m = this.relativeWorld(first.joint).elements;
    const grid = 2 ** Math.ceil(Math.log2(8 * (first.height > 0 ? first.height : 1)));
    const away = (x) => Math.sign(x) * Math.round(Math.abs(x)); // roundf: halves away from 0
    this.home = [0, 1, 2].map((c) => (Number.isFinite(m[12 + c]) ? grid * away(m[12 + c] / grid) : this.home[c]));
  }

  // The floating origin, then each pendulum at rest under its joint.
  startJoints() {
    this.rehomeJoints();
    for (const j of this.joints) {
      if (j.pendulum) j.pendulum.reset(this.pivotPose(j));
      j.animated.copy(j.joint.quaternion);
    }
    this.jointsStarted = true;
  }

  // The world rotation (root frame) of a joint's parent as posed now.
  parentRotation(joint) {
    if (!joint.parent || joint === this.root) return [0, 0, 0, 1];
    return Array.from(this.sim.poseFromMatrix(this.relativeWorld(joint.parent).elements).subarray(3, 7));
  }

  // Writes the joint parts after the chains (as tl_player_apply): each pendulum's look-at as a
  // local rotation under its parent as posed, then each aim on the pose they left.
  writeJoints() {
    if (!this.jointsStarted) return;
    const setLocal = (j, world) => {
      const local = quatMul(quatConjugate(this.parentRotation(j.joint)), world);
      j.posed.copy(j.joint.quaternion);
      j.joint.quaternion.set(local[0], local[1], local[2], local[3]);
      j.written = j.joint.quaternion.clone();
    };
    for (const j of this.joints) if (j.pendulum) setLocal(j, j.pendulum.rotation());
    for (const j of this.joints) {
      if (j.pendulum) continue;
      const a = j.animated;
      const given = quatMul(this.parentRotation(j.joint), [a.x, a.y, a.z, a.w]);
      const at = this.relativeWorld(j.joint).elements, to = this.relativeWorld(j.target).elements;
      setLocal(j, this.sim.aimSolve(j.part.aim, given, [at[12], at[13], at[14]], [to[12], to[13], to[14]]));
    }
  }

  // An object's world matrix in the root's frame (the file's world: the root may be moved).
  relativeWorld(o) {
    o.updateWorldMatrix(true, false);
    this.root.updateWorldMatrix(true, false);
    return o.matrixWorld.clone().premultiply(this.root.matrixWorld.clone().invert());
  }

  // The attachment joint's pose in the root's frame.
  attachmentPose(c) {
    return this.sim.poseFromMatrix(this.relativeWorld(c.attachment).elements);
  }

  // Puts every chain at rest under the current pose (a new clip, a jump of the scrubber).
  reset() {
    this.unwriteJoints();
    this.startJoints();
    for (const c of this.chains) {
      c.start = this.attachmentPose(c);
      c.chain.clear();
      c.chain.reset(c.start);
    }
    for (const c of this.cloths) this.startCloth(c);
    this.restSheet();
    this.seat(this.chains);
    this.lastTime = this.mixer ? this.mixer.time : undefined;
    this.played = 0; // (the feed's grid starts here)
    this.clipTimes.clear(); // (a scrub back is no wrap)
    this.wrappedAction(this.lastTime);
  }

  // After mixer.update(dt) (or any pose change) and before rendering: advances the chains by
  // dt seconds and writes the bones' local rotations. With a mixer whose time went forward by
  // about dt, the clip is sampled at the solver's fixed step in between (the pose sampler);
  // otherwise the chains see the frame's two poses (start = last frame's, target = now).
  update(dt) {
    if (!this.enabled) {
      this.holdRest();
      return;
    }
    this.unwriteJoints();
    const started = this.chains.filter((c) => !c.start);
    for (const c of started) {
      c.start = this.attachmentPose(c);
      c.chain.reset(c.start);
    }
    for (const c of this.cloths) if (!c.started) this.startCloth(c);
    if (started.length) this.restSheet();
    this.seat(started);
    if (!this.jointsStarted) this.startJoints();
    const now = this.mixer ? this.mixer.time : undefined;
    const span = now !== undefined && this.lastTime !== undefined ? now - this.lastTime : 0;
    if (this.lastTime === undefined || !(span > 0 && span <= 1.5 * dt + 1e-6)) this.played = 0;
    if (dt > 0 && span > 0 && span <= 1.5 * dt + 1e-6) {
      // the C player's feed (tl_player_advance): the clip sampled on a grid of the fixed step
      // from the start, then at the frame's time; the clip times as its floats, so a frame
      // whose float times overshoot the grid gets its short extra sub-frame there too (hair:
      // one more hold of the sheet). Each sub-frame lasts its clip time over the mixer's rate.
      const step = this.chains.length ? this.chains[0].fixedStep : 1 / 120, rate = dt / span;
      const from = this.played, to = from + Math.fround(Math.fround(now) - Math.fround(this.lastTime));
      let last = from, at = this.lastTime;
      for (let k = Math.floor(from / step + 1e-6) + 1; k * step < to - 1e-7; ++k) {
        const t = Math.min(now, Math.max(at, this.lastTime + (k * step - from))); // (never back)
        this.mixer.setTime(t);
        this.stepTo(at, t, Math.fround(k * step - last) * rate);
        last = k * step, at = t;
      }
      this.mixer.setTime(now);
      if (to > last) this.stepTo(at, now, Math.fround(to - last) * rate);
      this.played = to;
    } else if (dt > 0) {
      this.stepAll(dt);
    }
    this.wrappedAction(now); // (a wrap over a jump of the mixer's time: no cut, as before)
    this.lastTime = now;
    this.write();
  }

  // The first running looping action of the mixer (now at mixer time `to`) whose clip time went
  // back since it was last seen, with the mixer time of its wrap; every action's time noted.
  wrappedAction(to) {
    let wrapped = null;
    if (!this.mixer || to === undefined) return wrapped;
    for (const clip of this.clips) {
      const a = this.mixer.existingAction(clip);
      if (!a || !a.isRunning() || a.loop === LOOP_ONCE) continue;
      const before = this.clipTimes.get(a), rate = a.getEffectiveTimeScale() * this.mixer.timeScale;
      if (!wrapped && before !== undefined && rate > 0 && a.time < before) wrapped = { action: a, at: to - a.time / rate };
      this.clipTimes.set(a, a.time);
    }
    return wrapped;
  }

  // One sub-step from mixer time `from` to `to` (the mixer at `to`), dt seconds. A loop's wrap on
  // the way is a cut, as in the C player (src/play/player.c, feed): the parts reach the wrap with
  // the clip's last pose and start again from its first (glTF loops jump from one to the other;
  // stepped through, the jump would swing a pendulum differently at every frame rate).
  stepTo(from, to, dt) {
    const wrapped = this.wrappedAction(to);
    if (!wrapped) {
      this.stepAll(dt);
      return;
    }
    const { action, at } = wrapped;
    const share = to > from ? Math.min(1, Math.max(0, (at - from) / (to - from))) : 0;
    action.time = action.getClip().duration; // (a zero update does not wrap it: the last pose)
    this.mixer.update(0);
    this.stepAll(dt * share);
    action.time = 0;
    this.mixer.update(0);
    this.cut();
    this.mixer.setTime(to);
    this.wrappedAction(to);
    this.stepAll(dt * (1 - share));
  }

  // A cut (tl_player_cut) under the pose now: each chain starts again from its attachment (the
  // solver carries it rigidly), the floating origin is set again and each pendulum is carried
  // rigidly to its joint.
  cut() {
    for (const c of this.chains) c.start = this.attachmentPose(c);
    for (const c of this.cloths) this.stepCloth(c, 0, true);
    this.rehomeJoints();
    for (const j of this.joints) if (j.pendulum) j.pendulum.carry(this.pivotPose(j));
  }

  stepAll(dt) {
    this.poseStamp = (this.poseStamp || 0) + 1; // (the pose changed: colliders posed anew)
    for (const c of this.chains) {
      if (c.seatCount && dt > 0) c.chain.step(c.start, c.start, 0, c.seatBlock, c.seatCount, c.growthBlock);
      if (dt > 0) c.seatCount = 0;
      const target = this.attachmentPose(c);
      const colliders = (c.posedCount = this.poseColliders(c));
      c.chain.step(c.start, target, dt, colliders ? c.colliderBlock : 0, colliders, c.growthBlock);
      c.start = target;
    }
    for (const c of this.cloths) this.stepCloth(c, dt);
    if (dt > 0) this.holdSheet();
    for (const j of this.joints) {
      if (j.pendulum) j.pendulum.step(this.pivotPose(j), dt);
      j.animated.copy(j.joint.quaternion); // an aim turns the clip's rotation of its last step
    }
  }

  // How many chains sleep (their last step simulated nothing: the body was held still).
  asleepCount() {
    return this.chains.filter((c) => c.chain.stats().asleep).length;
  }

  write() {
    for (const c of this.chains) {
      const q = c.chain.localRotations();
      c.bones.forEach((b, i) => b.quaternion.set(q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]));
    }
    for (const c of this.cloths) if (c.started) this.writeCloth(c);
    this.writeJoints();
  }

  // Physics off: the bones as the file has them (the rigid tail), the chains forgotten.
  holdRest() {
    for (const c of this.chains) {
      c.bones.forEach((b, i) => b.quaternion.copy(c.restQuaternions[i]));
      c.start = null;
    }
    for (const c of this.cloths) {
      c.bones.forEach((b, i) => {
        b.position.copy(c.rest[i].position);
        b.quaternion.copy(c.rest[i].quaternion);
        b.scale.copy(c.rest[i].scale);
      });
      c.started = false;
    }
    this.unwriteJoints();
    for (const j of this.joints) j.written = null;
    this.jointsStarted = false;
    this.lastTime = undefined;
    this.clipTimes.clear();
  }

  dispose() {
    for (const c of this.chains) {
      c.chain.destroy();
      if (c.colliderBlock) this.sim.x.tl_web_free(c.colliderBlock);
      if (c.growthBlock) this.sim.x.tl_web_free(c.growthBlock);
      if (c.seatBlock) this.sim.x.tl_web_free(c.seatBlock);
    }
    if (this.sheet) {
      this.sim.x.tl_web_sheet_destroy(this.sheet.pointer);
      this.sim.x.tl_web_free(this.sheet.block);
      this.sheet = null;
    }
    for (const j of this.joints) if (j.pendulum) j.pendulum.destroy();
    for (const c of this.cloths) {
      this.sim.x.tl_web_cloth_destroy(c.pointer);
      this.sim.x.tl_web_free(c.frameAt);
    }
    this.cloths = [];
    this.chains = [];
    this.joints = [];
  }
}

// A stored collider `c` ({shape, a, b, radius, axes} in its joint's frame) moved by the
// column-major affine matrix m with uniform scale, as tl_collider_transform moves one: points
// and semi-axes by m, a plane's normal turned and kept unit, the radius times the scale. Written
// as COLLIDER_FLOATS floats at out[at..] (the glue's layout).
export function packCollider(c, m, out, at = 0) {
  const point = (p, k) => m[12 + k] + m[k] * p[0] + m[4 + k] * p[1] + m[8 + k] * p[2];
  const turn = (v, k) => m[k] * v[0] + m[4 + k] * v[1] + m[8 + k] * v[2];
  out[at] = c.shape;
  for (let k = 0; k < 3; ++k) {
    out[at + 1 + k] = point(c.a, k);
    out[at + 4 + k] = COLLIDER_SHAPES[c.shape] === 'plane' ? turn(c.b, k) : point(c.b, k);
    for (let e = 0; e < 3; ++e) out[at + 8 + 3 * e + k] = turn(c.axes[e], k);
  }
  if (COLLIDER_SHAPES[c.shape] === 'plane') {
    const n = Math.hypot(turn(c.b, 0), turn(c.b, 1), turn(c.b, 2));
    for (let k = 0; k < 3; ++k) out[at + 4 + k] = n > 0 ? turn(c.b, k) / n : c.b[k];
  }
  const det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) +
    m[8] * (m[1] * m[6] - m[2] * m[5]);
  const scale = Math.cbrt(Math.abs(det));
  out[at + 7] = c.radius * (scale > 0 ? scale : 1);
  return out;
}

// How deep the point p lies inside the packed collider f[at..] (tl_collider_depth: <= 0
// outside; an ellipsoid's along the ray from its centre in its unit-sphere space).
export function colliderDepth(f, p, at = 0) {
  const shape = COLLIDER_SHAPES[f[at]];
  const d = [0, 1, 2].map((k) => p[k] - f[at + 1 + k]);
  if (shape === 'plane') return -(d[0] * f[at + 4] + d[1] * f[at + 5] + d[2] * f[at + 6]);
  if (shape === 'ellipsoid') {
    const axis = (e) => [0, 1, 2].map((i) => f[at + 8 + 3 * e + i]);
    let q2 = 0, shortest = Infinity;
    const q = [0, 1, 2].map((e) => {
      const x = axis(e), r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
      const t = r2 > 0 ? (d[0] * x[0] + d[1] * x[1] + d[2] * x[2]) / r2 : 0;
      q2 += t * t;
      shortest = Math.min(shortest, Math.sqrt(r2));
      return t;
    });
    const rho = Math.sqrt(q2);
    if (!(rho > 1e-12)) return shortest;
    const surface = [0, 1, 2].map((i) => [0, 1, 2].reduce((sum, e) => sum + (q[e] / rho) * axis(e)[i], 0));
    return (1 - rho) * Math.hypot(...surface);
  }
  const ab = [0, 1, 2].map((k) => (shape === 'capsule' ? f[at + 4 + k] - f[at + 1 + k] : 0));
  const len2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
  let t = len2 > 0 ? (ab[0] * d[0] + ab[1] * d[1] + ab[2] * d[2]) / len2 : 0;
  t = Math.min(1, Math.max(0, t));
  return f[at + 7] - Math.hypot(d[0] - t * ab[0], d[1] - t * ab[1], d[2] - t * ab[2]);
}

// The product a b of two column-major 4x4 matrices.
function mat4Mul(a, b) {
  const out = new Array(16);
  for (let c = 0; c < 4; ++c)
    for (let r = 0; r < 4; ++r)
      out[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] + a[12 + r] * b[4 * c + 3];
  return out;
}

// Quaternions (x, y, z, w) as arrays: the Hamilton product a b, and the conjugate.
function quatMul(a, b) {
  return [a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]];
}

function quatConjugate(q) {
  return [-q[0], -q[1], -q[2], q[3]];
}

function invert(m) {
  // a general 4x4 inverse (column-major), for the attachment's rest matrix from its IBM
  const inv = new Array(16);
  const [a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23, a30, a31, a32, a33] = m;
  const b00 = a00 * a11 - a01 * a10, b01 = a00 * a12 - a02 * a10, b02 = a00 * a13 - a03 * a10;
  const b03 = a01 * a12 - a02 * a11, b04 = a01 * a13 - a03 * a11, b05 = a02 * a13 - a03 * a12;
  const b06 = a20 * a31 - a21 * a30, b07 = a20 * a32 - a22 * a30, b08 = a20 * a33 - a23 * a30;
  const b09 = a21 * a32 - a22 * a31, b10 = a21 * a33 - a23 * a31, b11 = a22 * a33 - a23 * a32;
  const det = 1 / (b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06);
  inv[0] = (a11 * b11 - a12 * b10 + a13 * b09) * det;
  inv[1] = (a02 * b10 - a01 * b11 - a03 * b09) * det;
  inv[2] = (a31 * b05 - a32 * b04 + a33 * b03) * det;
  inv[3] = (a22 * b04 - a21 * b05 - a23 * b03) * det;
  inv[4] = (a12 * b08 - a10 * b11 - a13 * b07) * det;
  inv[5] = (a00 * b11 - a02 * b08 + a03 * b07) * det;
  inv[6] = (a32 * b02 - a30 * b05 - a33 * b01) * det;
  inv[7] = (a20 * b05 - a22 * b02 + a23 * b01) * det;
  inv[8] = (a10 * b10 - a11 * b08 + a13 * b06) * det;
  inv[9] = (a01 * b08 - a00 * b10 - a03 * b06) * det;
  inv[10] = (a30 * b04 - a31 * b02 + a33 * b00) * det;
  inv[11] = (a21 * b02 - a20 * b04 - a23 * b00) * det;
  inv[12] = (a11 * b07 - a10 * b09 - a12 * b06) * det;
  inv[13] = (a00 * b09 - a01 * b07 + a02 * b06) * det;
  inv[14] = (a31 * b01 - a30 * b03 - a32 * b00) * det;
  inv[15] = (a20 * b03 - a21 * b01 + a22 * b00) * det;
  return inv;
}
