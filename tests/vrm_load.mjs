// A file loaded as a VRM app loads it: three.js's GLTFLoader with @pixiv/three-vrm-springbone's
// VRMSpringBoneLoaderPlugin (the springs on gltf.userData.vrmSpringBoneManager), and a loader
// plugin that answers every texture with null (node has no image decoder; as
// tests/three_sample.mjs). Shared by vrm_three.mjs and vrm_hair_stretch.mjs.
import fs from 'node:fs';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { VRMSpringBoneLoaderPlugin } from '@pixiv/three-vrm-springbone';

export async function loadVrm(file) {
  const bytes = fs.readFileSync(file);
  const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const loader = new GLTFLoader();
  loader.register(() => ({ name: 'tailor_no_textures', loadTexture: () => Promise.resolve(null) }));
  loader.register((parser) => new VRMSpringBoneLoaderPlugin(parser));
  return loader.parseAsync(data, '');
}
