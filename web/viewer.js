// The tailor viewer (tailor view / tailor report, docs/web.md): three copies of a character
// side by side — as the auto-rigger bound it (the input file), rigid (the rigged file with
// its chains held as the file has them) and with tailor's chains and cloth lattices simulated by
// the C solver in WebAssembly (tailor-sim.js). window.TAILOR gives the files' URLs; window.tailorViewer
// is the handle the browser test drives.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { loadTailorSim, PLAY_SLEEP_SECONDS } from './tailor-sim.js';

const T = window.TAILOR;
const $ = (id) => document.getElementById(id);
const fail = (e) => {
  $('error').textContent = String(e && e.message ? e.message : e);
  throw e;
};

async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return r.arrayBuffer();
}

async function main() {
  const [sim, rigged, input, measure] = await Promise.all([
    loadTailorSim(await fetchBytes(T.wasm)),
    fetchBytes(T.model),
    T.input ? fetchBytes(T.input) : null,
    fetchBytes(T.measure).then((b) => JSON.parse(new TextDecoder().decode(b))),
  ]);
  $('file').textContent = measure.file || '';
  const loader = new GLTFLoader();
  const parse = (b) => loader.parseAsync(b.slice(0), '');
  const copies = [];
  if (input) copies.push({ label: 'as the auto-rigger bound it', gltf: await parse(input) });
  copies.push({ label: 'rigid', gltf: await parse(rigged) });
  copies.push({ label: 'tailor chains', gltf: await parse(rigged), simulated: true });

  const stage = $('stage');
  const renderer = new THREE.WebGLRenderer({ antialias: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  stage.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xdfe4e8);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x667766, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2.0);
  sun.position.set(1, 2, 1.5);
  scene.add(sun);

  // side by side along x, each turned to face +x so the camera (on +z) sees the tails in profile
  copies.forEach((c) => { c.gltf.scene.rotation.y = Math.PI / 2; c.gltf.scene.updateMatrixWorld(true); });
  const box = new THREE.Box3().setFromObject(copies[0].gltf.scene);
  const size = box.getSize(new THREE.Vector3());
  const spacing = 1.15 * Math.max(size.x, 0.3 * size.y);
  const H = size.y || 1;
  copies.forEach((c, i) => {
    c.gltf.scene.position.x = (i - (copies.length - 1) / 2) * spacing - (box.min.x + box.max.x) / 2;
    c.gltf.scene.position.z = -(box.min.z + box.max.z) / 2;
    scene.add(c.gltf.scene);
    c.mixer = new THREE.AnimationMixer(c.gltf.scene);
    c.bones = new THREE.SkeletonHelper(c.gltf.scene);
    c.bones.visible = false;
    scene.add(c.bones);
  });
  const floorY = box.min.y;
  const extent = spacing * copies.length + size.y;
  const floor = new THREE.Mesh(new THREE.PlaneGeometry(extent * 2, extent * 2),
    new THREE.MeshLambertMaterial({ color: 0xc9cfc4 }));
  floor.rotation.x = -Math.PI / 2;
  floor.position.y = floorY;
  scene.add(floor);
  const grid = new THREE.GridHelper(extent * 2, 40, 0x99a095, 0xaab0a6);
  grid.position.y = floorY + 1e-3 * H;
  scene.add(grid);

  const chained = copies[copies.length - 1];
  // the C player's sleep window: a paused or idle character's chains stop simulating
  chained.rig = sim.attach(chained.gltf, { mixer: chained.mixer, file: measure.file, sleepSeconds: PLAY_SLEEP_SECONDS });
  for (const note of chained.rig.notes) console.warn(note);

  // guides: each chain of the rigged copies as a line from its attachment through its bones, and
  // each column of a cloth lattice's bones from its attachment down (the inspection mode: mesh,
  // mesh with guides, guides only); colour by part kind
  const KIND_COLOUR = { tail: 0xd03020, hair: 0x2050d0, cloth: 0x208020 };
  const guides = [];
  for (const c of copies.slice(input ? 1 : 0)) {
    const rig = c === chained ? chained.rig : sim.attach(c.gltf, { file: measure.file });
    const lines = rig.chains.map((ch) => ({ kind: ch.part.kind,
      joints: [ch.attachment, ...ch.bones, ...ch.bones[ch.bones.length - 1].children.filter((o) => o.isBone)] }));
    for (const cl of rig.cloths) {
      const columns = cl.part.cloth.boneColumns;
      for (let k = 0; k < columns; ++k)
        lines.push({ kind: 'cloth', joints: [cl.attachment, ...cl.bones.filter((b, i) => i % columns === k)] });
    }
    for (const { kind, joints } of lines) {
      const geometry = new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute(3 * joints.length, 3));
      const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: KIND_COLOUR[kind] || 0x208020, depthTest: false }));
      line.renderOrder = 2;
      line.frustumCulled = false;
      line.visible = false;
      scene.add(line);
      guides.push({ line, joints });
    }
    if (rig !== chained.rig) rig.dispose();
  }
  const p3 = new THREE.Vector3();
  const updateGuides = () => {
    for (const g of guides) {
      if (!g.line.visible) continue;
      const a = g.line.geometry.attributes.position;
      g.joints.forEach((j, i) => { j.getWorldPosition(p3); a.setXYZ(i, p3.x, p3.y, p3.z); });
      a.needsUpdate = true;
    }
  };
  // colliders: the body colliders the file stores (skins[s].extras.tailor.colliders, written by
  // tailor rig). Checked, the simulated copy's tails, hair and cloth keep out of them, as in tailor play; the
  // guide modes draw them as wireframes on that copy, each a child of its joint in its frame.
  const wires = chained.rig.colliders.map((c) => colliderWire(c)).filter((w) => w);
  const showWires = () => {
    const on = $('show').value !== 'mesh' && $('colliders').checked;
    for (const w of wires) w.visible = on;
  };
  const setShow = (mode) => {
    for (const g of guides) g.line.visible = mode !== 'mesh';
    for (const c of copies) c.gltf.scene.traverse((o) => { if (o.isMesh && !o.userData.tailorCollider) o.visible = mode !== 'guides'; });
    showWires();
    updateGuides();
    renderer.render(scene, camera);
  };
  $('show').addEventListener('change', () => setShow($('show').value));
  if (chained.rig.colliders.length) {
    $('colliders').checked = chained.rig.collidersOn;
    $('colliders').parentElement.title = `${chained.rig.colliders.length} body colliders: the tails, hair and cloth keep out of them`;
  } else {
    $('colliders').disabled = true;
    $('colliders').parentElement.title = 'this file has no colliders';
    $('colliders').parentElement.lastChild.textContent = ' colliders (none)';
  }
  $('colliders').addEventListener('change', () => {
    chained.rig.setColliders($('colliders').checked);
    showWires();
  });

  const camera = new THREE.PerspectiveCamera(35, 1, H / 100, H * 200);
  const controls = new OrbitControls(camera, renderer.domElement);
  const center = new THREE.Vector3(0, floorY + 0.45 * size.y, 0);
  const frameAll = () => {
    const w = stage.clientWidth, h = stage.clientHeight;
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    const span = Math.max((1.05 * spacing * copies.length) / camera.aspect, size.y * 1.6);
    const distance = span / (2 * Math.tan((camera.fov * Math.PI) / 360));
    camera.position.set(center.x, center.y + 0.3 * distance, center.z + distance);
    camera.updateProjectionMatrix();
    controls.target.copy(center);
    controls.update();
  };
  frameAll();
  new ResizeObserver(frameAll).observe(stage);
  $('labels').innerHTML = copies.map((c) => `<span>${c.label}</span>`).join('');

  // clips: a searchable list (a character may carry dozens)
  const clips = chained.gltf.animations;
  const state = { clip: 0, time: 0, playing: true, physics: true, manual: false };
  const select = $('clip');
  const fill = () => {
    const q = $('clipSearch').value.trim().toLowerCase();
    select.innerHTML = '';
    clips.forEach((c, i) => {
      if (q && !c.name.toLowerCase().includes(q) && i !== state.clip) return;
      const o = document.createElement('option');
      o.value = String(i);
      o.textContent = c.name || `clip ${i}`;
      if (i === state.clip) o.selected = true;
      select.appendChild(o);
    });
  };
  const setClip = (i) => {
    state.clip = i;
    state.time = 0;
    for (const c of copies) {
      c.mixer.stopAllAction();
      const clip = c.gltf.animations[i] || c.gltf.animations.find((a) => a.name === clips[i].name);
      if (clip) c.mixer.clipAction(clip).play();
      c.mixer.setTime(0);
    }
    chained.rig.reset();
    $('scrub').max = String(clips[i] ? clips[i].duration : 1);
    fill();
    showMeasure();
  };

  function showMeasure() {
    const name = clips[state.clip] && clips[state.clip].name;
    const m = (measure.clips || []).find((c) => c.clip === name);
    if (!m) {
      $('table').textContent = 'no measurement for this clip';
      return;
    }
    const f = (x, d = 3) => (typeof x === 'number' ? x.toFixed(d) : '');
    const rows = [];
    for (const r of m.regions) {
      for (const [rig, s] of Object.entries(r.stretch))
        rows.push(`<tr><td>${r.name}${r.class ? ` (${r.class})` : ''}</td><td>${rig}</td><td>${f(s.p95)}</td>` +
          `<td>${f(s.p99)}</td><td>${f(s.max)}</td><td>${f(s.torn_pct, 2)}</td></tr>`);
      if (r.liveliness)
        rows.push(`<tr><td></td><td colspan="5">swing ${f(r.liveliness.swing_deg, 2)}°, from rest ` +
          `${f(r.liveliness.rest_rms_deg, 2)}°, tip path ×${f(r.liveliness.tip_path_ratio, 2)}; bone distance ` +
          `${f(r.bone_distance.relative)} H</td></tr>`);
    }
    if (m.body && m.body.stretch) {
      const s = m.body.stretch;
      rows.push(`<tr><td>body</td><td>as the file is</td><td>${f(s.p95)}</td><td>${f(s.p99)}</td><td>${f(s.max)}</td>` +
        `<td>${f(s.torn_pct, 2)}</td></tr>`);
    }
    $('table').innerHTML = `<p>clip ${name}: ${m.samples} samples over ${f(m.duration, 2)} s; edge stretch ` +
      `(skinned / rest length; torn beyond 1.5 or 0.67)</p><table><thead><tr><th>region</th><th>rig</th><th>p95</th>` +
      `<th>p99</th><th>max</th><th>torn %</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  }

  // one frame: the clip at state.time on every copy, then the chains
  const frame = (dt) => {
    const clip = clips[state.clip];
    if (state.playing && clip && clip.duration > 0) state.time = (state.time + dt) % clip.duration;
    for (const c of copies) c.mixer.setTime(state.time);
    if (state.physics) chained.rig.update(dt);
    else chained.rig.holdRest();
    updateGuides();
    $('scrub').value = String(state.time);
    $('time').textContent = `${state.time.toFixed(2)} s`;
    const asleep = state.physics ? chained.rig.asleepCount() : 0;
    $('sleep').textContent = asleep ? `${asleep} of ${chained.rig.chains.length} chains asleep` : '';
    renderer.render(scene, camera);
  };

  $('clipSearch').addEventListener('input', fill);
  select.addEventListener('change', () => setClip(Number(select.value)));
  $('play').addEventListener('click', () => {
    state.playing = !state.playing;
    $('play').textContent = state.playing ? 'pause' : 'play';
  });
  $('scrub').addEventListener('input', () => {
    state.time = Number($('scrub').value);
    for (const c of copies) c.mixer.setTime(state.time);
    chained.rig.reset(); // a jump: start the chains at rest there
  });
  $('physics').addEventListener('change', () => {
    state.physics = $('physics').checked;
    if (state.physics) chained.rig.reset();
  });
  $('bones').addEventListener('change', () => {
    for (const c of copies) c.bones.visible = $('bones').checked;
  });

  setClip(0);
  let last = performance.now();
  const loop = (now) => {
    const dt = Math.min(0.1, (now - last) / 1000);
    last = now;
    if (!state.manual) frame(dt);
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);

  // the handle tests drive (tests/web/browser.mjs)
  const v = new THREE.Vector3();
  window.tailorViewer = {
    clips: clips.map((c) => c.name),
    state,
    setClip: (name) => {
      const i = clips.findIndex((c) => c.name === name);
      if (i < 0) throw new Error(`no clip ${name}`);
      select.value = String(i);
      setClip(i);
    },
    manual: (on) => { state.manual = on; },
    advance: (dt, frames = 1) => { for (let k = 0; k < frames; ++k) frame(dt); },
    setPlaying: (on) => { if (state.playing !== on) $('play').click(); },
    setPhysics: (on) => { if (state.physics !== on) $('physics').click(); },
    // the simulated copy's tail (or cloth) on screen: the chain joints' and cloth bones' bounding
    // box, CSS pixels, padded
    tailRect: (pad = 0.04) => {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      const rect = renderer.domElement.getBoundingClientRect();
      const parts = chained.rig.chains.map((c) => c.bones.concat(c.bones[c.bones.length - 1].children.filter((o) => o.isBone)))
        .concat(chained.rig.cloths.map((c) => c.bones));
      for (const bones of parts) {
        for (const b of bones) {
          b.getWorldPosition(v).project(camera);
          const x = rect.left + ((v.x + 1) / 2) * rect.width, y = rect.top + ((1 - v.y) / 2) * rect.height;
          x0 = Math.min(x0, x), y0 = Math.min(y0, y), x1 = Math.max(x1, x), y1 = Math.max(y1, y);
        }
      }
      const p = pad * rect.width;
      return { x: x0 - p, y: y0 - p, width: x1 - x0 + 2 * p, height: y1 - y0 + 2 * p };
    },
    // renders and reads back the pixels of a CSS rectangle (RGBA rows)
    pixels: (r) => {
      updateGuides();
      renderer.render(scene, camera);
      const gl = renderer.getContext();
      const box2 = renderer.domElement.getBoundingClientRect();
      const sx = gl.drawingBufferWidth / box2.width, sy = gl.drawingBufferHeight / box2.height;
      const x = Math.max(0, Math.floor((r.x - box2.left) * sx)), w = Math.max(1, Math.floor(r.width * sx));
      const yTop = Math.max(0, Math.floor((r.y - box2.top) * sy)), h = Math.max(1, Math.floor(r.height * sy));
      const y = Math.max(0, gl.drawingBufferHeight - yTop - h);
      const out = new Uint8Array(4 * w * h);
      gl.readPixels(x, y, w, h, gl.RGBA, gl.UNSIGNED_BYTE, out);
      return Array.from(out);
    },
    chainStats: () => chained.rig.chains.map((c) => c.chain.stats()),
    collidersOn: () => chained.rig.collidersOn,
    collidersDrawn: () => wires.filter((w) => w.visible).length,
    chainRotations: () => chained.rig.chains.map((c) => c.bones.map((b) => b.quaternion.toArray())),
    // each cloth's bones: local position and rotation now, and as the file has them
    clothLocals: () => chained.rig.cloths.map((c) => c.bones.map((b) => [...b.position.toArray(), ...b.quaternion.toArray()])),
    clothRest: () => chained.rig.cloths.map((c) => c.rest.map((r) => [...r.position.toArray(), ...r.quaternion.toArray()])),
    restRotations: () => chained.rig.chains.map((c) => c.restQuaternions.map((q) => q.toArray())),
    ready: true,
  };
}

// A stored collider drawn as a wireframe under its joint, in the joint's frame (null for a
// plane, which has no extent to draw).
function colliderWire(c) {
  const shape = ['sphere', 'capsule', 'plane', 'ellipsoid'][c.shape];
  const material = new THREE.MeshBasicMaterial({ color: 0x1a9a50, wireframe: true, transparent: true, opacity: 0.55 });
  const a = new THREE.Vector3().fromArray(c.a);
  let mesh = null;
  if (shape === 'sphere') {
    mesh = new THREE.Mesh(new THREE.SphereGeometry(c.radius, 16, 8), material);
    mesh.position.copy(a);
  } else if (shape === 'capsule') {
    const axis = new THREE.Vector3().fromArray(c.b).sub(a);
    mesh = new THREE.Mesh(new THREE.CapsuleGeometry(c.radius, axis.length(), 4, 12), material);
    mesh.position.copy(a).addScaledVector(axis, 0.5);
    if (axis.lengthSq() > 0) mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), axis.normalize());
  } else if (shape === 'ellipsoid') {
    mesh = new THREE.Mesh(new THREE.SphereGeometry(1, 16, 8), material);
    const [x, y, z] = c.axes.map((e) => new THREE.Vector3().fromArray(e));
    mesh.matrixAutoUpdate = false;
    mesh.matrix.makeBasis(x, y, z).setPosition(a);
  }
  if (!mesh) return null;
  mesh.visible = false;
  mesh.userData.tailorCollider = true;
  c.object.add(mesh);
  return mesh;
}

main().catch(fail);
