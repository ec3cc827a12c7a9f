// web/tailor-sim.js plays a rigged hair style as tailor's C player does (docs/web.md "Session
// 24"): each lock against the body colliders grown by the lock thickness tailor rig stored, and
// neighbouring locks held together by the sheet ties it stored. A three.js app's loop in node
// (GLTFLoader, an AnimationMixer advanced to f / 60 each frame, rig.update) against
// `tailor play --json` over one pass of the clip:
//   - the rig reads a thickness for every hair part, keeps colliders for it and holds a sheet;
//   - every joint of every chain within TOLERANCE x H of the C player's, every frame.
// Only for clips where the C player's hair is determined by the file to rounding: on HeadTurn
// the locks press into the colliders and each other so that changing their colliders' growth
// by 3e-7 of itself moves the web player's own hair by up to 0.35 H (docs/web.md "Session 24").
//   node sim_hair.mjs TAILOR_SIM.WASM RIGGED.glb TAILOR CLIP
import * as THREE from 'three';
import { execFileSync } from 'node:child_process';
import { loadCase, checker } from './node_case.mjs';

const [wasmFile, file, tailor, clipName] = process.argv.slice(2);
// The two players run the same float solver, growth and hold on rest frames and poses that
// differ by rounding: on the Walk of long01, bob01 and ponytail01 the hair agrees within 5.3e-5
// H over the whole pass (bob01; the web's own copy with the growth moved by 3e-7 of itself parts
// by as much). 4 x the worst: main's web (no thickness, no sheet) was 0.02 H off at once.
const TOLERANCE = 2e-4;

const { check, failures: failureCount } = checker();
const frames = execFileSync(tailor, ['play', file, '--clip', clipName, '--json'], { maxBuffer: 1 << 29 })
  .toString().trim().split('\n').map((l) => JSON.parse(l)).slice(1);

// One pass of the clip in the web player: per frame, every chain's tips.
async function play() {
  const { sim, gltf } = await loadCase(wasmFile, file);
  const clip = gltf.animations.find((a) => a.name === clipName || a.name.endsWith(`|${clipName}`));
  check(clip, `no clip ${clipName}`);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(clip).play();
  const rig = sim.attach(gltf, { mixer, file });
  const hair = rig.chains.filter((c) => c.part.kind === 'hair');
  const tips = [];
  for (let f = 0; f < frames.length; ++f) {
    mixer.update(f / 60 - mixer.time);
    rig.update(f ? 1 / 60 : 0);
    tips.push(rig.chains.map((c) => Array.from(c.chain.tipPositions())));
  }
  const out = { tips, H: rig.chains[0].height, chains: rig.chains.length, hair: hair.length,
    thick: hair.filter((c) => c.part.hitRadius > 0).length, kept: Math.min(...hair.map((c) => c.colliders.length)),
    ties: rig.sheet ? rig.sheet.ties : 0 };
  rig.dispose();
  return out;
}

const web = await play();
const H = web.H;
check(web.hair > 0, 'no hair part');
check(web.chains === frames[0].chains.length, `${web.chains} chains here, ${frames[0].chains.length} in C`);
check(web.thick === web.hair, `${web.hair - web.thick} hair part(s) without a stored thickness`);
check(web.kept > 0, 'a hair chain runs with no collider');
check(web.ties > 0, 'no sheet');
const worst = (a, b) => {
  let off = 0;
  a.forEach((t, i) => {
    for (let k = 0; k < t.length; k += 3) off = Math.max(off, Math.hypot(t[k] - b[i][k], t[k + 1] - b[i][k + 1], t[k + 2] - b[i][k + 2]) / H);
  });
  return off;
};
let off = 0;
frames.forEach((frame, f) => { off = Math.max(off, worst(web.tips[f], frame.chains.map((joints) => joints.slice(1).flat()))); });
console.log(`${clipName}: ${frames.length} frames, ${web.hair} hair chains (${web.kept}+ colliders each, ${web.ties} ties); ` +
  `off the C player's by ${off.toExponential(2)} H`);
check(off <= TOLERANCE, `the hair is ${off} H off the C player's`);
const failures = failureCount();
console.log(failures ? `0 passed, ${failures} failed` : '1 passed, 0 failed');
process.exitCode = failures ? 1 : 0;
