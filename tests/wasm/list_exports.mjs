// Prints the names of the functions a WebAssembly module exports, one a line.
import fs from 'node:fs';

const module = new WebAssembly.Module(fs.readFileSync(process.argv[2]));
for (const e of WebAssembly.Module.exports(module)) if (e.kind === 'function') console.log(e.name);
