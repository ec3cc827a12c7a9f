// Runs the Khronos glTF-Validator on each file given and prints one JSON line per file:
// {"file", "errors", "warnings", "codes": {CODE: count}} (codes of errors and warnings only).
// External resources (.bin, images) are read relative to the file.
import fs from 'node:fs';
import path from 'node:path';
import validator from 'gltf-validator';

async function validate(file) {
    const bytes = new Uint8Array(fs.readFileSync(file));
    const dir = path.dirname(file);
    const report = await validator.validateBytes(bytes, {
        uri: path.basename(file),
        maxIssues: 0,
        externalResourceFunction: (uri) =>
            new Promise((resolve, reject) => {
                try {
                    resolve(new Uint8Array(fs.readFileSync(path.join(dir, decodeURIComponent(uri)))));
                } catch (e) {
                    reject(e.toString());
                }
            }),
    });
    const codes = {};
    for (const m of report.issues.messages) {
        if (m.severity > 1) continue; // 0 error, 1 warning
        codes[m.code] = (codes[m.code] || 0) + 1;
    }
    return {file, errors: report.issues.numErrors, warnings: report.issues.numWarnings, codes};
}

let failed = false;
for (const file of process.argv.slice(2)) {
    try {
        console.log(JSON.stringify(await validate(file)));
    } catch (e) {
        console.log(JSON.stringify({file, failure: String(e)}));
        failed = true;
    }
}
process.exit(failed ? 1 : 0);
