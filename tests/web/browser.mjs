// The viewer in Debian's chromium (headless, playwright-core, never a downloaded browser):
// report.html opened from disk and `tailor view` over localhost. For each page: no console
// error; with physics on, the tail's pixels differ between two times while the body is held
// (clip paused, physics stepped), then the chains fall asleep (the tail's pixels stay) and the
// first played frame wakes them; with physics off the tail keeps the rest shape (its bones
// as the file has them, its pixels unchanged over time); switching clips works; at 390 px
// the page does not overflow sideways; the colliders box turns the body colliders on and off (and
// the guide modes draw them). Screenshots go to OUTDIR.
//   node browser.mjs OUTDIR REPORT.html VIEW_URL
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { chromium } from 'playwright-core';

const [outDir, reportFile, viewUrl] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-chromium-'));
// a new empty profile (--user-data-dir, which playwright takes as launchPersistentContext's)
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

const differing = (a, b) => {
  let n = 0;
  for (let i = 0; i < a.length; i += 4)
    if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 24) n++;
  return n / (a.length / 4);
};

async function run(name, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.tailorViewer && window.tailorViewer.ready, null, { timeout: 60000 });
  const clips = await page.evaluate(() => window.tailorViewer.clips);
  check(clips.length >= 1, `${name}: ${clips.length} clips`);
  await page.evaluate(() => window.tailorViewer.manual(true));
  // physics on: play 0.8 s of the last clip (the fastest gait in the shared animals), pause,
  // then the body is held while the tail swings on
  const clip = clips[clips.length - 1];
  await page.evaluate((c) => { window.tailorViewer.setClip(c); window.tailorViewer.advance(1 / 60, 48); window.tailorViewer.setPlaying(false); }, clip);
  const rect = await page.evaluate(() => window.tailorViewer.tailRect());
  const a = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  await page.screenshot({ path: path.join(outDir, `${name}-physics-a.png`) });
  await page.evaluate(() => window.tailorViewer.advance(1 / 60, 12));
  const b = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  await page.screenshot({ path: path.join(outDir, `${name}-physics-b.png`) });
  const moved = differing(a, b);
  check(moved > 0.01, `${name}: physics on, body held 0.2 s: ${(100 * moved).toFixed(1)}% of the tail region's pixels changed (rect ${Math.round(rect.width)}x${Math.round(rect.height)} px)`);
  // sleep (the C player's 1 s window): held on, every chain falls asleep within the window and
  // 5 s of settling, the page says so and the tail's pixels stay; the first played frame wakes it
  const slept = await page.evaluate(() => {
    const v = window.tailorViewer;
    for (let f = 1; f <= 6 * 60; ++f) {
      v.advance(1 / 60, 1);
      if (v.chainStats().every((s) => s.asleep)) return { held: 0.2 + f / 60, text: document.getElementById('sleep').textContent };
    }
    return { held: null, text: document.getElementById('sleep').textContent };
  });
  const e = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  await page.evaluate(() => window.tailorViewer.advance(1 / 60, 12));
  const f = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  const asleep = await page.evaluate(() => window.tailorViewer.chainStats());
  check(slept.held !== null && slept.text.includes('asleep') && asleep.every((s) => s.asleep && s.sleeps === 1) && differing(e, f) === 0,
    `${name}: physics on, body held: every chain asleep after ${slept.held === null ? 'never' : `${slept.held.toFixed(2)} s`} ("${slept.text}"), the tail region's pixels then unchanged over 0.2 s (${(100 * differing(e, f)).toFixed(1)}%)`);
  await page.screenshot({ path: path.join(outDir, `${name}-asleep.png`) });
  const woken = await page.evaluate(() => {
    const v = window.tailorViewer;
    v.setPlaying(true);
    v.advance(1 / 60, 1);
    const stats = v.chainStats();
    v.setPlaying(false);
    return { stats, text: document.getElementById('sleep').textContent };
  });
  check(woken.stats.every((s) => !s.asleep) && woken.stats.every((s, i) => s.steps > asleep[i].steps) && woken.text === '',
    `${name}: played again: the first frame wakes every chain and steps it`);
  // physics off: the rest shape, and nothing moves while held
  await page.evaluate(() => { window.tailorViewer.setPhysics(false); window.tailorViewer.advance(1 / 60, 1); });
  const rot = await page.evaluate(() => [window.tailorViewer.chainRotations(), window.tailorViewer.restRotations()]);
  const worst = Math.max(...rot[0].flat(2).map((x, i) => Math.abs(x - rot[1].flat(2)[i])));
  check(worst === 0, `${name}: physics off: the chain bones keep the file's rotations (largest difference ${worst})`);
  const c = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  await page.evaluate(() => window.tailorViewer.advance(1 / 60, 12));
  const d = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  check(differing(c, d) === 0, `${name}: physics off, body held: the tail region's pixels do not change`);
  check(differing(b, c) > 0.01, `${name}: physics off differs from the simulated tail (${(100 * differing(b, c)).toFixed(1)}%)`);
  await page.screenshot({ path: path.join(outDir, `${name}-physics-off.png`) });
  // clip switching through the page's own controls (search, then select)
  await page.evaluate(() => { window.tailorViewer.setPhysics(true); window.tailorViewer.setPlaying(true); });
  const other = clips[0];
  await page.fill('#clipSearch', other.slice(0, 3));
  await page.selectOption('#clip', { label: other });
  await page.evaluate(() => window.tailorViewer.advance(1 / 60, 30));
  const now = await page.evaluate(() => ({ clip: window.tailorViewer.clips[window.tailorViewer.state.clip], t: window.tailorViewer.state.time, table: document.getElementById('table').textContent }));
  check(now.clip === other && now.t > 0.4 && now.table.includes(`clip ${other}`), `${name}: switched to clip ${other} (t ${now.t.toFixed(2)} s, measure table follows)`);
  await page.screenshot({ path: path.join(outDir, `${name}-clip.png`) });
  // the inspection mode: guides only hides the meshes and draws the chains
  await page.evaluate(() => { window.tailorViewer.setPlaying(false); window.tailorViewer.setPhysics(false); });
  const meshOnly = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  await page.selectOption('#show', 'guides');
  const guidesOnly = await page.evaluate((r) => window.tailorViewer.pixels(r), rect);
  const hidden = await page.evaluate(() => document.querySelector('#show').value);
  let red = 0; // the tail guide's colour (0xd03020) where the mesh was
  for (let i = 0; i < guidesOnly.length; i += 4)
    if (guidesOnly[i] > 150 && guidesOnly[i + 1] < 90 && guidesOnly[i + 2] < 90) red++;
  check(hidden === 'guides' && differing(meshOnly, guidesOnly) > 0.05 && red >= 20,
    `${name}: guides only: the mesh is gone from the tail region (${(100 * differing(meshOnly, guidesOnly)).toFixed(1)}% changed) and the guide is drawn (${red} px)`);
  await page.screenshot({ path: path.join(outDir, `${name}-guides.png`) });
  // colliders (the file stores them, tailor rig writes them): the box is on and checked, the
  // chains keep out of them, the guide modes draw them; unchecked, the chains run free of them
  const box = await page.evaluate(() => ({ disabled: document.getElementById('colliders').disabled,
    checked: document.getElementById('colliders').checked, on: window.tailorViewer.collidersOn(), drawn: window.tailorViewer.collidersDrawn() }));
  await page.click('#colliders');
  const unchecked = await page.evaluate(() => ({ on: window.tailorViewer.collidersOn(), drawn: window.tailorViewer.collidersDrawn() }));
  await page.click('#colliders');
  const again = await page.evaluate(() => window.tailorViewer.collidersOn());
  check(!box.disabled && box.checked && box.on && box.drawn > 0 && !unchecked.on && unchecked.drawn === 0 && again,
    `${name}: colliders: enabled and on (${box.drawn} drawn in guides mode); unchecked, off and none drawn`);
  await page.selectOption('#show', 'mesh');
  await page.evaluate(() => { window.tailorViewer.setPhysics(true); window.tailorViewer.setPlaying(true); });
  // 390 px wide
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  await page.evaluate(() => window.tailorViewer.advance(1 / 60, 1));
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  check(wide <= 390, `${name}: at 390 px the page is ${wide} px wide`);
  await page.screenshot({ path: path.join(outDir, `${name}-390.png`), fullPage: true });
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
