// web/tailor-sim.js plays a file's pendulum and aim parts as tailor's C player does
// (docs/web.md "Pendulum and aim parts"). A three.js app's loop in node: GLTFLoader, an
// AnimationMixer at 60 fps, rig.update(dt) after mixer.update(dt). Against `tailor play --json`
// on the same file and clip, frame for frame over 3.2 loops of the clip (both cut at each wrap:
// the parts reach it with the clip's last pose and start again from its first):
//   - each pendulum's swing from its rest direction within SWING_TOLERANCE degrees of the C
//     player's (SMALL_SWING_TOLERANCE below 1 degree), and the joint's world rotation as three.js
//     poses it the solver's look-at (tl_pendulum_rotation) within 1e-4 degrees;
//   - each aim's error (its axis to its target) at most the C player's + 1e-3 degrees;
//   - with ROTATIONS (build/web_joint_rotations, tailor play's loop printing each joint part's
//     joint world rotation), every such joint within ROTATION_TOLERANCE degrees of the C one.
// The same bounds hold in the frames after a wrap (reported apart). And the parts are live: the
// pendulum swings by more than 5 degrees somewhere in the clip.
//   node sim_joints.mjs TAILOR_SIM.WASM RIGGED.glb TAILOR CLIP [ROTATIONS]
import * as THREE from 'three';
import { execFileSync } from 'node:child_process';
import { loadCase, checker } from './node_case.mjs';

const [wasmFile, file, tailor, clipName, rotationsTool] = process.argv.slice(2);
// The two players run the same float solver (src/sim/pendulum.c) on pivots that differ by
// rounding: the C player samples the clip and composes world matrices in float, three.js
// samples in float and composes in double (measured on the knight's Run: 5e-4 degrees apart).
// Near 0 the swing is acos(1 - e): float rounding e ~ 6e-8 alone reads as ~0.03 degrees.
const SWING_TOLERANCE = 2e-3;
const SMALL_SWING_TOLERANCE = 0.05;
// The same rounding on the joint's whole rotation (no acos: the angle of the relative
// quaternion from atan2), so the same bound as a swing's.
const ROTATION_TOLERANCE = 2e-3;
const AIM_SLACK = 1e-3;

const { sim, gltf } = await loadCase(wasmFile, file);
const { check, failures: failureCount } = checker();

const clip = gltf.animations.find((a) => a.name === clipName || a.name.endsWith(`|${clipName}`));
check(clip, `no clip ${clipName}`);
const seconds = (3.2 * clip.duration).toFixed(4); // three wraps
const lines = execFileSync(tailor, ['play', file, '--clip', clipName, '--json', '--seconds', seconds], { maxBuffer: 1 << 28 })
  .toString().trim().split('\n').map((l) => JSON.parse(l));
const frames = lines.slice(1);
const wraps = frames.filter((l, f) => f && Math.floor(f / 60 / clip.duration) > Math.floor((f - 1) / 60 / clip.duration)).length;
check(wraps >= 3, `${frames.length} frames hold ${wraps} wraps`);
const rotations = rotationsTool
  ? execFileSync(rotationsTool, [file, clipName, '60', seconds]).toString().trim().split('\n').map((l) => JSON.parse(l))
  : null;
check(!rotations || rotations.length === lines.length - 1, 'web_joint_rotations and tailor play disagree on the frames');
const angleDeg = (a, b) => { // between two unit quaternions, degrees
  const r = a.clone().invert().multiply(b);
  return (2 * Math.atan2(Math.hypot(r.x, r.y, r.z), Math.abs(r.w)) * 180) / Math.PI;
};
let worstRotation = 0;

const mixer = new THREE.AnimationMixer(gltf.scene);
mixer.clipAction(clip).play();
const rig = sim.attach(gltf, { mixer, file });
rig.joints = rig.joints || []; // (a player without joint parts: none played)
const kinds = rig.joints.map((j) => j.part.kind).join(', ');
check(rig.joints.length === frames[0].joint_parts.length, `the web player has ${rig.joints.length} joint part(s) (${kinds}), the C player ${frames[0].joint_parts.length}`);
let worstAfterWrap = 0, lastWrap = -Infinity; // the swing's difference within 0.25 s of a wrap
let worstSwing = 0, worstSmall = 0, worstLook = 0, worstAimOver = -Infinity, mostSwing = 0, cWorstAim = 0, webWorstAim = 0;
const q = new THREE.Quaternion(), look = new THREE.Quaternion(), p = new THREE.Vector3(), t = new THREE.Vector3();
for (let f = 0; f < frames.length && rig.joints.length === frames[0].joint_parts.length; ++f) {
  // the mixer to f / 60 as C's clip time f / fps (adding 1/60 up rounds a wrap that falls on a
  // frame to either side: the clip's last pose in one player, its first in the other)
  mixer.update(f / 60 - mixer.time);
  rig.update(f ? 1 / 60 : 0);
  gltf.scene.updateMatrixWorld(true);
  if (f && Math.floor(f / 60 / clip.duration) > Math.floor((f - 1) / 60 / clip.duration)) lastWrap = f;
  rig.joints.forEach((j, i) => {
    const c = frames[f].joint_parts[i];
    const name = gltf.parser.json.nodes[j.part.joint].name;
    check(c.kind === j.part.kind && c.joint === name, `frame ${f}: part ${i} is ${c.kind} ${c.joint} in C, ${j.part.kind} ${name} here`);
    if (rotations) {
      j.joint.getWorldQuaternion(q);
      worstRotation = Math.max(worstRotation, angleDeg(q, look.fromArray(rotations[f][i]).normalize()));
      if (process.env.TL_DEBUG) console.log("rot", f, i, angleDeg(q, look.fromArray(rotations[f][i]).normalize()).toExponential(2));
    }
    if (j.pendulum) {
      const swing = j.pendulum.swingDeg();
      if (process.env.TL_DEBUG) console.log(f, swing.toFixed(4), c.swing_deg.toFixed(4));
      if (c.swing_deg >= 1) worstSwing = Math.max(worstSwing, Math.abs(swing - c.swing_deg));
      if (c.swing_deg >= 1 && f - lastWrap < 15) worstAfterWrap = Math.max(worstAfterWrap, Math.abs(swing - c.swing_deg));
      else worstSmall = Math.max(worstSmall, Math.abs(swing - c.swing_deg));
      mostSwing = Math.max(mostSwing, swing);
      // the joint as three.js poses it (root frame = the scene's) is the solver's look-at
      j.joint.getWorldQuaternion(q);
      look.fromArray(j.pendulum.rotation());
      worstLook = Math.max(worstLook, angleDeg(q, look.normalize())); // (atan2: acos near 1 loses digits)
    } else {
      // the aim error as tl_measure_aim_error_deg: the joint's aim axis against the target's direction
      const axis = new THREE.Vector3().fromArray(j.part.aim.aim_axis).applyQuaternion(j.joint.getWorldQuaternion(q)).normalize();
      const to = j.target.getWorldPosition(t).sub(j.joint.getWorldPosition(p)).normalize();
      const error = (Math.acos(Math.max(-1, Math.min(1, axis.dot(to)))) * 180) / Math.PI;
      worstAimOver = Math.max(worstAimOver, error - c.error_deg);
      cWorstAim = Math.max(cWorstAim, c.error_deg);
      webWorstAim = Math.max(webWorstAim, error);
    }
  });
}
console.log(`${clip.name}: ${frames.length} frames, ${wraps} wraps; pendulum swing up to ${mostSwing.toFixed(3)} deg, off the C ` +
  `player's by at most ${worstSwing.toExponential(2)} deg (below 1 deg: ${worstSmall.toExponential(2)}), the joint off the look-at by ${worstLook.toExponential(2)} deg; ` +
  `aim error up to ${webWorstAim.toExponential(2)} deg (C ${cWorstAim.toExponential(2)}), at most ${worstAimOver.toExponential(2)} deg over C's; ` +
  `within 0.25 s after a wrap the swing off C's by ${worstAfterWrap.toExponential(2)} deg`);
if (rotations) console.log(`the joints' world rotations off the C player's by at most ${worstRotation.toExponential(2)} deg`);
check(!rotations || worstRotation <= ROTATION_TOLERANCE, `a joint's rotation is ${worstRotation} deg off the C player's`);
check(mostSwing > 5, `the pendulum swings at most ${mostSwing.toFixed(3)} deg (not played?)`);
check(worstSwing <= SWING_TOLERANCE, `the swing is ${worstSwing} deg off the C player's`);
check(worstSmall <= SMALL_SWING_TOLERANCE, `a swing below 1 deg is ${worstSmall} deg off the C player's`);
check(worstLook <= 1e-4, `the joint is ${worstLook} deg off the solver's look-at`);
check(worstAimOver <= AIM_SLACK, `the aim is ${worstAimOver} deg further off its target than the C player's`);
rig.dispose();
const failures = failureCount();
console.log(failures ? `0 passed, ${failures} failed` : '1 passed, 0 failed');
process.exitCode = failures ? 1 : 0;
