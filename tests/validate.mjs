// Runs the Khronos glTF-Validator on each file given and prints one JSON line per file:
// {"file", "errors", "warnings", "codes": {CODE: count}, "infos": {CODE: count}} (codes: errors
// and warnings; infos: the validator's information messages, e.g. UNUSED_OBJECT).
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
    const infos = {};
    for (const m of report.issues.messages) {
        const into = m.severity > 1 ? (m.severity === 2 ? infos : null) : codes; // 0 error, 1 warning, 2 info
        if (into) into[m.code] = (into[m.code] || 0) + 1;
    }
    return {file, errors: report.issues.numErrors, warnings: report.issues.numWarnings, codes, infos};
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
