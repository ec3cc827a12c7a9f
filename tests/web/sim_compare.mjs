// The scene of tests/web/chain_scene.c through web/tailor-sim.js (the ES module and the
// wasm32 build of src/sim under node); prints the same lines. Throws when a bad sleep window
// is accepted.
//   node sim_compare.mjs TAILOR_SIM.WASM
import fs from 'node:fs';
import { loadTailorSim } from '../../web/tailor-sim.js';

const sim = await loadTailorSim(fs.readFileSync(process.argv[2]));
const N = 6;
const HOLD = 300; // frames 301 .. 300 + HOLD repeat frame 300's pose (chain_scene.c)
const t = [], q = [], radii = [];
for (let i = 0; i < N; ++i) {
  t.push(0.01 * i, i ? -0.1 : -0.04, i ? 0 : -0.06);
  const a = Math.fround(0.1 * i);
  q.push(Math.sin(a / 2), 0, 0, Math.cos(a / 2));
  radii.push(0.03 - 0.004 * i);
}
const d = sim.defaults();
const def = {
  boneCount: N, restTranslations: t, restRotations: q, tipTranslation: [0, -0.1, 0.02],
  jointRadii: radii, scale: 1.3, floorHeight: 0.05,
  settings: { ...d.settings, damping_ratio: 0.4, gravity: 2.0, carry_deg: 35.0 },
  sleepSpeed: 0.02, sleepSeconds: 0.8,
};
// a negative window is refused with a message (the solver would assert)
let refused = '';
try {
  sim.createChain({ ...def, sleepSeconds: -1 }).destroy();
} catch (e) {
  refused = e.message;
}
if (!refused.includes('sleep')) throw new Error(`sleepSeconds -1: ${refused || 'accepted'}`);
const chain = sim.createChain(def);
let target = [0, 0.5, 0, 0, 0, 0, 1, 1.3];
chain.reset(target);
const out = [`length ${chain.linkLengths().reduce((a, b) => a + b, 0)}`];
for (let f = 1; f <= 360 + HOLD; ++f) {
  const s = (f > 300 ? f - HOLD : f) / 60, yaw = 0.6 * Math.sin(2.1 * s);
  const start = target;
  if (f <= 300 || f > 300 + HOLD)
    target = [0.3 * Math.sin(5 * s), 0.5 + 0.1 * Math.sin(7 * s), 0, 0, Math.sin(yaw / 2), 0, Math.cos(yaw / 2), 1.3];
  chain.step(start, target, f === 150 ? 1 / 20 : 1 / 60);
  const p = chain.tipPositions();
  for (let i = 0; i < N; ++i) out.push(`${f} ${i} ${p[3 * i]} ${p[3 * i + 1]} ${p[3 * i + 2]}`);
  const st = chain.stats();
  out.push(`${f} s ${st.asleep ? 1 : 0} ${st.sleeps} ${st.steps}`);
}
chain.destroy();
process.stdout.write(out.join('\n') + '\n');
