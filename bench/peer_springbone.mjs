// The scene of bench/bench_sim.c in @pixiv/three-vrm-springbone on three.js under node:
// 1, 100 and 1000 characters, each hips with one 8-joint tail (0.8 m, straight down from
// behind the hips, a Tail_End child), walking (forward 1.2 m/s, 1 Hz sway, 2 Hz bob, 10 deg of
// yaw, phases staggered), updated at the same 1/120 s step as tailor's internal step.
// Only VRMSpringBoneManager.update is timed (it also refreshes the ancestors' world matrices,
// as it must). Prints CSV rows in bench_sim's format:
//   solver,characters,links,steps,ns_per_link_step,us_per_character_step
import * as THREE from 'three';
import { VRMSpringBoneJoint, VRMSpringBoneManager } from '@pixiv/three-vrm-springbone';

const LINKS = 8;
const STEP = 1 / 120;

function walk(t, out) {
  const yaw = (10 * Math.PI / 180) * Math.sin(2 * Math.PI * t);
  out.position.set(0.05 * Math.sin(2 * Math.PI * t), 1 + 0.03 * Math.sin(4 * Math.PI * t), 1.2 * t);
  out.quaternion.setFromAxisAngle(new THREE.Vector3(0, 1, 0), yaw);
}

function build(count) {
  const scene = new THREE.Scene();
  const manager = new VRMSpringBoneManager();
  const hips = [];
  for (let k = 0; k < count; ++k) {
    const h = new THREE.Object3D();
    scene.add(h);
    hips.push(h);
    let parent = h;
    const bones = [];
    for (let i = 0; i <= LINKS; ++i) { // LINKS bones and the Tail_End
      const b = new THREE.Object3D();
      if (i === 0) b.position.set(0, -0.05, -0.12);
      else b.position.set(0, -0.1, 0);
      parent.add(b);
      bones.push(b);
      parent = b;
    }
    // VRM's defaults are per-file; these are typical tail settings (stiffness, 1 m/s^2 gravity)
    for (let i = 0; i < LINKS; ++i) {
      manager.addJoint(new VRMSpringBoneJoint(bones[i], bones[i + 1], {
        hitRadius: 0.02, stiffness: 1.0, gravityPower: 1.0,
        gravityDir: new THREE.Vector3(0, -1, 0), dragForce: 0.4,
      }));
    }
  }
  scene.updateMatrixWorld(true);
  manager.setInitState();
  return { scene, manager, hips };
}

// CPU time of this process (as bench_sim measures its thread's), so a busy machine does not
// count; the hips' pose updates are timed alone and subtracted.
function cpuNs() {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

console.log('solver,characters,links,steps,ns_per_link_step,us_per_character_step');
for (const count of [1, 100, 1000]) {
  const { manager, hips } = build(count);
  const block = Math.max(1, Math.ceil(2000 / count)); // steps per timed block
  let clock = 0;
  const run = (withSolver, steps) => {
    const begin = cpuNs();
    for (let s = 0; s < steps; ++s) {
      for (let k = 0; k < count; ++k) walk(clock + 0.37 * k, hips[k]);
      clock += STEP;
      if (withSolver) manager.update(STEP);
    }
    return cpuNs() - begin;
  };
  run(true, 4 * block); // JIT warm-up
  let steps = 0, spent = 0, posing = 0;
  while (spent < 3e8 || steps < 240) {
    spent += run(true, block);
    posing += run(false, block);
    steps += block;
  }
  const ns = spent - posing;
  console.log(`three-vrm-springbone,${count},${LINKS},${steps},${(ns / (count * LINKS * steps)).toFixed(2)},${(ns / 1000 / (count * steps)).toFixed(3)}`);
}
