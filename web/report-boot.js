// tailor report's bootstrap (inlined by cli/view.c after the base64 assets): turns the
// inlined files into blob: URLs and starts viewer.js, with no network and from file://.
// Modules are inlined in dependency order; their import specifiers ('three',
// './three.core.js', '../utils/…', 'three/addons/…', './tailor-sim.js') are rewritten to the
// blob URLs of the modules already made, since relative URLs cannot resolve against blob:.
(() => {
  const decode = (text) => {
    const bin = atob(text.trim());
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
    return bytes;
  };
  const url = (bytes, type) => URL.createObjectURL(new Blob([bytes], { type }));
  const assets = {};
  for (const s of document.querySelectorAll('script[data-tailor]')) {
    const name = s.dataset.tailor;
    assets[name] = url(decode(s.textContent), name.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream');
  }
  const modules = {};
  const base = (spec) => spec.replace(/^(\.\.?\/)+/, '').replace(/^utils\//, 'three/addons/utils/');
  for (const s of document.querySelectorAll('script[data-module]')) {
    let text = new TextDecoder().decode(decode(s.textContent));
    text = text.replace(/(\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"]+)\2/g, (all, lead, q, spec) => {
      const key = modules[spec] ? spec : base(spec);
      return modules[key] ? `${lead}${q}${modules[key]}${q}` : all;
    });
    modules[s.dataset.module] = url(new TextEncoder().encode(text), 'text/javascript');
  }
  window.TAILOR = {
    model: assets['model.glb'], input: assets['input.glb'] || null,
    wasm: assets['tailor_sim.wasm'], measure: assets['measure.json'], modules,
  };
  import(modules['viewer.js']).catch((e) => console.error(e));
})();
