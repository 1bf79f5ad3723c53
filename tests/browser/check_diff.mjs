// diff.html's explorer (docs/report-explore.md) in the system Chromium,
// driven by puppeteer-core (README.md here).
//
//   node check_diff.mjs CGMEM BASE[=ORACLE] NEW ... [--shots DIR]
//
// Each pair is compared by CGMEM (cgmem diff) and each run reported on its
// own (cgmem report, for its summary.json); diff.html is opened as a file:
// URL with every other request refused. Checked per device of both runs:
// no request, no console error; the tooltip at the base run's peak x shows
// that peak (diff.json's, summary.json's and ORACLE's when given), the new
// run's bytes there and their difference; the same at the new run's peak;
// a wheel zoom narrows the axis range and re-ticks it, a drag pans, reset
// restores; a click at the base peak pins summary.json's at_peak.top, row
// for row, and "pin the new peak" the new run's; any other moment pins a
// list largest first that adds up to no more than the tooltip; a legend
// button hides its run's line. A pair whose names are hostile: nothing of
// them became markup. --shots DIR keeps screenshots. With FIREFOX set (a
// path) the same checks run in that Firefox.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { FIREFOX, bound, check, openExplorer, runChecks, shotsOption } from './browser.mjs';

const { args, shots } = shotsOption(process.argv.slice(2));
const [cgmem, ...runs] = args;
if (!cgmem || runs.length === 0 || runs.length % 2) {
  console.error('usage: node check_diff.mjs CGMEM BASE[=ORACLE] NEW ... [--shots DIR]');
  process.exit(2);
}
bound(420);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cgmem-diff-explore-'));
const safe = (s) => path.basename(s).replace(/[^A-Za-z0-9._-]/g, '_');

// A trace whose names would be markup if they were not escaped.
const HOSTILE = '<script>alert(1)</script>';
const HOSTILE_IMG = '"><img src=x onerror=alert(2)>';
const hostileTrace = path.join(tmp, 'hostile.jsonl');
fs.writeFileSync(hostileTrace, [
  { kind: 'meta', schema: 'candle-graph/trace/6', run_id: HOSTILE, model: HOSTILE_IMG },
  { kind: 'span_start', id: 's|1', name: `${HOSTILE}|pipe`, start_ns: 0, span_kind: 'op' },
  { kind: 'memory', timestamp_ns: 2, tensor_id: HOSTILE_IMG, span_id: 's|1', device: 'cpu', bytes: 64, action: 'alloc',
    dtype: 'f32', op_name: HOSTILE, category: 'activation' },
  { kind: 'memory', timestamp_ns: 3, tensor_id: `y${HOSTILE_IMG}`, span_id: 's|1', device: 'cpu', bytes: 96, action: 'alloc',
    dtype: 'f32', op_name: HOSTILE, category: 'activation' },
  { kind: 'memory', timestamp_ns: 5, tensor_id: HOSTILE_IMG, span_id: 's|1', device: 'cpu', bytes: 64, action: 'free',
    dtype: 'f32', category: 'activation' },
].map((r) => JSON.stringify(r)).join('\n') + '\n');

function summaryOf(trace) {
  const out = path.join(tmp, `r-${safe(trace)}`);
  if (!fs.existsSync(out))
    execFileSync(cgmem, ['report', '--no-trace', '--no-html', '--formats', 'svg', '-q', trace, '-o', out],
      { timeout: 120_000, stdio: 'inherit' });
  return JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
}

function open(browser, file, name) {
  return openExplorer(browser, pathToFileURL(file).href, name);
}

// Client coordinates of time t (from the runs' starts) on diff explorer k.
function clientAt(page, k, t) {
  return page.evaluate(async (k, t) => {
    const ex = window.cgmemDiffExplorers[k];
    ex.svg.scrollIntoView({ block: 'center' });
    await settled();
    const r = ex.svg.getBoundingClientRect(), s = r.width / ex.g.W;
    return { x: columnX(ex.svg, ex.g.W, ex.xOf(t)), y: r.top + ((ex.g.y0 + ex.g.y1) / 2) * s };
  }, k, t);
}

const axis = (page, k) => page.evaluate((k) => {
  const svg = window.cgmemDiffExplorers[k].svg;
  return { x0: Number(svg.dataset.x0), x1: Number(svg.dataset.x1),
    ticks: [...svg.querySelectorAll('.cgx-xtick')].map((e) => e.textContent).join(' ') };
}, k);

const tipOf = (page, k) => page.evaluate((k) => {
  const t = window.cgmemDiffExplorers[k].tip;
  return { shown: t.style.display, base: t.dataset.bytesBase, new: t.dataset.bytesNew, diff: t.dataset.diff, text: t.textContent };
}, k);

const pinOf = (page, k) => page.evaluate((k) => [...window.cgmemDiffExplorers[k].pin.querySelectorAll('.cgx-pin-run')].map((p) => ({
  side: p.dataset.side, label: p.dataset.label, bytes: Number(p.dataset.bytes),
  rows: [...p.querySelectorAll('table.cgx-pin-top tbody tr')].map((tr) => [Number(tr.dataset.bytes),
    tr.cells[1].textContent, tr.cells[2].textContent, tr.cells[3].textContent, tr.dataset.allocated, tr.dataset.freed]),
})), k);

const topOf = (dev) => (dev.at_peak.top || []).map((a) => [a.bytes, a.category, a.op || '', a.span_path || '',
  a.allocated_ns === null ? '' : String(a.allocated_ns), a.freed_ns === null ? '' : String(a.freed_ns)]);

async function compare(browser, baseSpec, newTrace) {
  const [baseTrace, oracleFile] = baseSpec.split('=');
  const name = `${path.basename(baseTrace)} -> ${path.basename(newTrace)}`;
  const out = path.join(tmp, `d-${safe(baseTrace)}-${safe(newTrace)}`);
  execFileSync(cgmem, ['diff', '-q', baseTrace, newTrace, '-o', out], { timeout: 120_000, stdio: 'inherit' });
  const file = path.join(out, 'diff.html');
  const html = fs.readFileSync(file, 'utf8');
  const diff = JSON.parse(fs.readFileSync(path.join(out, 'diff.json'), 'utf8'));
  const sums = [summaryOf(baseTrace), summaryOf(newTrace)];
  const oracle = oracleFile ? JSON.parse(fs.readFileSync(oracleFile, 'utf8')) : null;
  const csp = (html.match(/http-equiv="Content-Security-Policy" content="([^"]*)"/) || [])[1] || '';
  check(/^default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-[A-Za-z0-9+/]{43}='$/.test(csp),
    `${name}: the Content-Security-Policy is "${csp}"`);
  const urls = (html.match(/https?:\/\/[^\s"'<>)]*/gi) || []).filter((u) => !/^http:\/\/www\.w3\.org\/(2000\/svg|1999\/xlink)$/.test(u));
  check(urls.length === 0, `${name}: the page names ${urls.slice(0, 3).join(' ')}`);
  const page = await open(browser, file, name);
  const both = diff.devices.filter((d) => d.in_base && d.in_new);
  const n = await page.evaluate(() => window.cgmemDiffExplorers.length);
  check(n === both.length && n > 0, `${name}: ${n} explorers for ${both.length} devices in both runs`);
  for (let k = 0; k < n; k++) {
    const info = await page.evaluate((k) => {
      const ex = window.cgmemDiffExplorers[k];
      return { device: ex.d.device, peaks: ex.runs.map((r) => r.T[r.d.peak.point]), allocs: ex.runs.map((r) => !!r.d.allocs) };
    }, k);
    const where = `${name} ${info.device}`;
    const dd = diff.devices.find((d) => d.name === info.device);
    const devs = sums.map((s) => s.devices.find((d) => d.name === info.device));
    if (!check(dd && devs[0] && devs[1], `${where}: not in diff.json or a summary.json`))
      continue;
    const want = [dd.peak_bytes.base, dd.peak_bytes.new];
    for (let s = 0; s < 2; s++)
      check(devs[s].peak.bytes === want[s], `${where}: diff.json's peak ${want[s]} B, summary.json's ${devs[s].peak.bytes} B`);
    if (oracle && oracle.device === info.device)
      check(oracle.peak_total_allocated_bytes === want[0], `${where}: the oracle's peak is ${oracle.peak_total_allocated_bytes} B`);
    // hover at each run's peak: its bytes are that peak, and the other
    // run's bytes and the difference are there too
    for (let s = 0; s < 2; s++) {
      const side = s ? 'new' : 'base';
      // from beside it (a browser may send no move to where the pointer
      // is), the position read again after that first move
      const near = await clientAt(page, k, info.peaks[s]);
      await page.mouse.move(near.x - 3, near.y - 3);
      const at = await clientAt(page, k, info.peaks[s]);
      await page.mouse.move(at.x, at.y);
      const tip = await tipOf(page, k);
      check(tip.shown === 'block' && Number(tip[side]) === want[s],
        `${where}: the tooltip at the ${side} peak says ${tip[side]} B, the peak is ${want[s]} B`);
      check(tip.text.includes(' from each run\u2019s start') && tip.text.includes('(its peak)'),
        `${where}: the tooltip at the ${side} peak reads "${tip.text.slice(0, 160)}"`);
      if (tip.base !== '' && tip.new !== '')
        check(Number(tip.diff) === Number(tip.new) - Number(tip.base), `${where}: the difference ${tip.diff} of ${tip.new} and ${tip.base}`);
      if (shots && k === 0 && s === 0)
        await page.screenshot({ path: path.join(shots, `${safe(name)}.hover.png`) });
      // a click there pins the run's peak: summary.json's list (in Firefox
      // after the double-click time, two runs' peaks can be one spot; the
      // position read again, as the tooltip can move the page under it)
      if (FIREFOX)
        await new Promise((r) => setTimeout(r, 700));
      const click = await clientAt(page, k, info.peaks[s]);
      await page.mouse.click(click.x, click.y);
      const pinned = (await pinOf(page, k))[s];
      check(pinned && pinned.side === side && pinned.label === 'peak' && pinned.bytes === want[s],
        `${where}: a click at the ${side} peak pinned ${JSON.stringify(pinned).slice(0, 120)}`);
      if (pinned)
        check(JSON.stringify(pinned.rows) === JSON.stringify(topOf(devs[s])),
          `${where}: the ${side} run's pinned list differs from its summary.json's at_peak.top:\n  ` +
          `${JSON.stringify(pinned.rows.slice(0, 2))}\n  ${JSON.stringify(topOf(devs[s]).slice(0, 2))}`);
    }
    // "pin the new peak": the new run's peak list, with the base run's then
    await page.evaluate((k) => window.cgmemDiffExplorers[k].box.querySelector('button.cgx-peak-new').click(), k);
    const byButton = await pinOf(page, k);
    check(byButton.length === 2 && byButton[1].label === 'peak' && JSON.stringify(byButton[1].rows) === JSON.stringify(topOf(devs[1])),
      `${where}: "pin the new peak" pinned ${JSON.stringify(byButton[1]).slice(0, 120)}`);
    if (shots && k === 0)
      await page.screenshot({ path: path.join(shots, `${safe(name)}.pinned.png`) });
    // zoom at the base peak, pan, reset
    const before = await axis(page, k);
    const at = await clientAt(page, k, info.peaks[0]);
    await page.mouse.move(at.x, at.y);
    for (let w = 0; w < 4; w++)
      await page.mouse.wheel({ deltaY: -120 });
    const after = await axis(page, k);
    check(after.x1 - after.x0 < 0.5 * (before.x1 - before.x0) && after.x0 <= info.peaks[0] && info.peaks[0] <= after.x1,
      `${where}: zoom at the base peak went from ${before.x0}..${before.x1} to ${after.x0}..${after.x1}`);
    check(after.ticks !== before.ticks, `${where}: the axis kept its ticks "${before.ticks}" when zoomed`);
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    // towards the side with room: a drag right shows earlier times
    await page.mouse.move(at.x + (after.x0 > before.x0 ? 120 : -120), at.y, { steps: 4 });
    await page.mouse.up();
    const panned = await axis(page, k);
    check(Math.abs((panned.x1 - panned.x0) - (after.x1 - after.x0)) < 1e-6 * (after.x1 - after.x0 + 1) && panned.x0 !== after.x0,
      `${where}: a drag did not pan (${after.x0} -> ${panned.x0})`);
    if (shots && k === 0)
      await page.screenshot({ path: path.join(shots, `${safe(name)}.zoomed.png`) });
    await page.evaluate((k) => window.cgmemDiffExplorers[k].svg.dispatchEvent(new MouseEvent('dblclick', { bubbles: true })), k);
    const reset = await axis(page, k);
    check(reset.x0 === before.x0 && reset.x1 === before.x1, `${where}: a double-click did not restore the range`);
    // another moment, a third of the way: each run whose allocations are
    // embedded pins a list largest first, within the tooltip's bytes
    const mid = await page.evaluate((k) => {
      const ex = window.cgmemDiffExplorers[k];
      return ex.t1 / 3;
    }, k);
    const m = await clientAt(page, k, mid);
    await page.mouse.move(m.x, m.y);
    const tip = await tipOf(page, k);
    await page.mouse.click(m.x, m.y);
    const pins = await pinOf(page, k);
    for (let s = 0; s < 2; s++) {
      const side = s ? 'new' : 'base', p = pins[s];
      if (!info.allocs[s] || tip[side] === '' || !p || p.label === undefined)
        continue;
      const rows = p.rows.map((r) => r[0]), sum = rows.reduce((a, b) => a + b, 0);
      check(p.bytes === Number(tip[side]) && sum <= p.bytes && rows.every((b, i) => i === 0 || rows[i - 1] >= b),
        `${where}: the ${side} run pinned at a third: ${p.bytes} B (tooltip ${tip[side]} B), rows sum ${sum}`);
    }
    // a legend button hides its run's line, and gives it back
    const legend = await page.evaluate((k) => {
      const ex = window.cgmemDiffExplorers[k];
      const lines = () => ex.svg.querySelectorAll('.cgx-run-line').length;
      const before = lines();
      const b = ex.box.querySelector('button.cgx-run[data-side="new"]');
      b.click();
      const off = { lines: lines(), base: ex.svg.querySelectorAll('.cgx-run-line[data-side="base"]').length,
        pressed: b.getAttribute('aria-pressed') };
      b.click();
      return { before, off, back: lines() };
    }, k);
    check(legend.before === 2 && legend.off.lines === 1 && legend.off.base === 1 && legend.off.pressed === 'false' && legend.back === 2,
      `${where}: a legend toggle gave ${JSON.stringify(legend)}`);
  }
  // nothing from the traces became markup
  const injected = await page.evaluate(() => document.querySelectorAll('img, script:not([type]):not([src])').length);
  check(injected === 1, `${name}: ${injected} img or script elements where the page's one script should be`);
  if (shots) {
    await page.evaluate(() => window.cgmemDiffExplorers[0]?.box.scrollIntoView());
    await page.screenshot({ path: path.join(shots, `${safe(name)}.png`) });
  }
  console.log(`${name}: ${n} explorers, diff.html ${fs.statSync(file).size} bytes`);
  return page;
}

await runChecks(tmp, async (browser) => {
  for (let r = 0; r < runs.length; r += 2)
    await (await compare(browser, runs[r], runs[r + 1])).close();
  // the hostile names, against a run of the same device: shown as text
  const base = runs[runs.length - 2].split('=')[0];
  const page = await compare(browser, hostileTrace, base);
  const shown = await page.evaluate((h) => {
    const ex = window.cgmemDiffExplorers[0];
    ex.box.querySelector('button.cgx-peak-base').click();
    return { text: ex.pin.textContent.includes(h), legend: ex.box.querySelector('button.cgx-run').textContent };
  }, HOSTILE);
  check(shown.text, `hostile names: the pinned list does not show "${HOSTILE}" as text`);
  await page.close();
});
