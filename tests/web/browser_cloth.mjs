// The viewer plays a cloth part (docs/web.md "Session 24"), in Debian's chromium as
// tests/web/browser.mjs drives it: report.html from disk and `tailor view` over localhost, a
// rigged file with a cloth lattice (a skirt). For each page: no console error; with physics on,
// after 0.8 s of a walk the cloth bones are off the file's rest and the cloth region's pixels
// change while the body is held (the cloth swings on); with physics off the bones are the file's
// again and the region differs from the simulated one. Screenshots go to OUTDIR.
//   node browser_cloth.mjs OUTDIR REPORT.html VIEW_URL
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { chromium } from 'playwright-core';

const [outDir, reportFile, viewUrl] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-chromium-'));
const browser = await chromium.launchPersistentContext(profile, {
  headless: true,
  viewport: { width: 1200, height: 800 },
  executablePath: process.env.TAILOR_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--enable-unsafe-swiftshader', '--use-angle=swiftshader'],
});
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
};
// pixels that differ between two readbacks (the page renders a held pose the same every time:
// tests/web/browser.mjs checks so, 0 pixels change): the skirt is a small part of the page, so
// pixels, not a share of the region
const differing = (a, b) => {
  let n = 0;
  for (let i = 0; i < a.length; i += 4)
    if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 24) n++;
  return n;
};
const PIXELS = 20; // a change seen, as browser.mjs's guide (20 px)
// the largest difference between two lists of [x, y, z, qx, qy, qz, qw] per bone per cloth
const largest = (a, b) => Math.max(0, ...a.flat(2).map((x, i) => Math.abs(x - b.flat(2)[i])));

async function run(name, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.tailorViewer && window.tailorViewer.ready, null, { timeout: 60000 });
  const clips = await page.evaluate(() => window.tailorViewer.clips);
  const clip = clips.find((c) => /walk/i.test(c)) || clips[clips.length - 1];
  const cloths = await page.evaluate(() => window.tailorViewer.clothLocals().length);
  check(cloths >= 1, `${name}: ${cloths} cloth part(s) simulated`);
  await page.evaluate(() => window.tailorViewer.manual(true));
  await page.evaluate((c) => { window.tailorViewer.setClip(c); window.tailorViewer.advance(1 / 60, 48); window.tailorViewer.setPlaying(false); }, clip);
  const rect = await page.evaluate(() => window.tailorViewer.tailRect());
  const a = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  const moved = await page.evaluate(() => [window.tailorViewer.clothLocals(), window.tailorViewer.clothRest()]);
  await page.screenshot({ path: path.join(outDir, `${name}-cloth-a.png`) });
  await page.evaluate(() => window.tailorViewer.advance(1 / 60, 12));
  const b = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  await page.screenshot({ path: path.join(outDir, `${name}-cloth-b.png`) });
  const off = largest(moved[0], moved[1]);
  check(off > 1e-3, `${name}: physics on, ${clip} 0.8 s: the cloth bones are off the file's rest (largest local difference ${off.toExponential(2)})`);
  check(differing(a, b) >= PIXELS, `${name}: physics on, body held 0.2 s: ${differing(a, b)} px of the cloth region changed (rect ${Math.round(rect.width)}x${Math.round(rect.height)} px)`);
  await page.evaluate(() => { window.tailorViewer.setPhysics(false); window.tailorViewer.advance(1 / 60, 1); });
  const rest = await page.evaluate(() => [window.tailorViewer.clothLocals(), window.tailorViewer.clothRest()]);
  const c = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  check(largest(rest[0], rest[1]) === 0, `${name}: physics off: the cloth bones are the file's (largest difference ${largest(rest[0], rest[1])})`);
  check(differing(b, c) >= PIXELS, `${name}: physics off differs from the simulated cloth (${differing(b, c)} px)`);
  await page.evaluate(() => window.tailorViewer.advance(1 / 60, 12));
  const d = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  check(differing(c, d) === 0, `${name}: physics off, body held: the cloth region's pixels do not change`);
  await page.screenshot({ path: path.join(outDir, `${name}-cloth-off.png`) });
  check(errors.length === 0, `${name}: no console error${errors.length ? `: ${errors.slice(0, 3).join(' | ')}` : ''}`);
  await page.close();
}

try {
  await run('report', `file://${path.resolve(reportFile)}`);
  await run('view', viewUrl);
} finally {
  await browser.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
console.log(failures ? `0 passed, ${failures} failed` : '1 passed, 0 failed');
process.exitCode = failures ? 1 : 0;
