// What the node tests of web/tailor-sim.js share: the solver and a file as a three.js app loads
// them (GLTFLoader, no textures), and a check that counts failures.
import fs from 'node:fs';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { loadTailorSim } from '../../web/tailor-sim.js';

export async function loadCase(wasmFile, file) {
  const sim = await loadTailorSim(fs.readFileSync(wasmFile));
  const bytes = fs.readFileSync(file);
  const loader = new GLTFLoader();
  loader.register(() => ({ name: 'tailor_no_textures', loadTexture: () => Promise.resolve(null) }));
  const gltf = await loader.parseAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), '');
  return { sim, gltf, bytes };
}

// check(ok, what) prints FAIL what when !ok; failures() is the count so far.
export function checker() {
  let count = 0;
  const check = (ok, what) => {
    if (!ok) {
      count++;
      console.log(`FAIL ${what}`);
    }
  };
  return { check, failures: () => count };
}
