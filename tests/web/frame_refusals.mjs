// web/tailor-sim.js's readParts on skins[0].extras.tailor.frame edits: every malformed frame of
// tests/data/scene/frame_refusals.json refused with the message the C reader gives for it (the
// same table: tests/test_colliders.c stored_frame_refusals), the accepted ones read, and a file
// without the key read as +Y up.
//   node frame_refusals.mjs RIGGED.glb
import fs from 'node:fs';
import { readParts } from '../../web/tailor-sim.js';
import { checker } from './node_case.mjs';

const [file] = process.argv.slice(2);
const bytes = fs.readFileSync(file);
const text = bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString('utf8');
const table = JSON.parse(fs.readFileSync(new URL('../data/scene/frame_refusals.json', import.meta.url)));
const { check, failures } = checker();
const label = 'rigged.glb', base = '/skins/0/extras/tailor/frame';
if (!JSON.parse(text).skins[0].extras.tailor.frame) {
  console.log(`FAIL ${file}: tailor rig stored no frame on skin 0\n0 passed, 1 failed`);
  process.exit(1);
}
for (const c of table.cases) {
  const json = JSON.parse(text);
  const keys = c.path ? c.path.split('/') : [];
  let at = json.skins[0].extras.tailor, key = 'frame';
  for (const k of keys) at = at[key], key = k;
  if (c.value === undefined) delete at[key];
  else at[key] = c.value;
  let said = null, frames = null;
  try {
    ({ frames } = readParts(json, label));
  } catch (e) {
    said = e.message;
  }
  const edit = `${base}${c.path ? `/${c.path}` : ''} = ${c.value === undefined ? '(removed)' : JSON.stringify(c.value)}`;
  if (c.message === null) {
    check(said === null, `${edit}: refused "${said}", expected it accepted`);
    if (said === null && c.value !== undefined) check(frames && frames[0] && frames[0].up.every((x, i) => x === Math.fround(c.value.up[i])), `${edit}: read as ${JSON.stringify(frames[0])}`);
    if (said === null && c.value === undefined) check(frames && frames[0] === null, `${edit}: a frame was read`);
  } else {
    const expected = `${label}: ${base}${c.message}`;
    check(said === expected, `${edit}: ${said === null ? 'accepted' : `"${said}"`}, expected "${expected}"`);
  }
}
const n = failures();
console.log(`${table.cases.length} frame edits`);
console.log(n ? `0 passed, ${n} failed` : '1 passed, 0 failed');
process.exitCode = n ? 1 : 0;
