// report.html's explorer (docs/report-explore.md) in the system Chromium,
// driven by puppeteer-core (README.md here).
//
//   node check_explore.mjs CGMEM SAMPLE[=ORACLE]... [--shots DIR]
//
// Each sample's report is written by CGMEM into a temporary folder and
// opened as a file: URL with every request but the page refused. Checked:
// no request, no console error, the explorer started for each device; the
// tooltip at the peak's x shows the peak's bytes (ORACLE's
// peak_total_allocated_bytes when given, else summary.json's); zooming
// changes the axis range and its ticks; a click at the peak pins the list
// summary.json has at the peak, row for row; a legend entry hides its
// category. --shots DIR keeps a screenshot of each page there.
// With FIREFOX set (a path), the same checks run in that Firefox instead,
// over WebDriver BiDi.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { bound, check, openExplorer, runChecks, shotsOption } from './browser.mjs';

const { args, shots } = shotsOption(process.argv.slice(2));
const [cgmem, ...samples] = args;
if (!cgmem || samples.length === 0) {
  console.error('usage: node check_explore.mjs CGMEM SAMPLE[=ORACLE]... [--shots DIR]');
  process.exit(2);
}
bound(420);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cgmem-explore-'));

function writeReport(sample) {
  const out = path.join(tmp, path.basename(sample).replace(/[^A-Za-z0-9._-]/g, '_'));
  execFileSync(cgmem, ['report', '--no-trace', '-q', sample, '-o', out], { timeout: 120_000, stdio: 'inherit' });
  return out;
}

function open(browser, dir, name) {
  return openExplorer(browser, pathToFileURL(path.join(dir, 'report.html')).href, name);
}

// Client coordinates of time t on explorer k's plot, at its vertical middle.
async function clientAt(page, k, t) {
  return page.evaluate(async (k, t) => {
    const ex = window.cgmemExplorers[k];
    ex.svg.scrollIntoView({ block: 'center' });
    await settled();
    const r = ex.svg.getBoundingClientRect(), s = r.width / ex.g.W;
    return { x: columnX(ex.svg, ex.g.W, ex.xOf(t)), y: r.top + ((ex.g.y0 + ex.g.y1) / 2) * s };
  }, k, t);
}

function axis(page, k) {
  return page.evaluate((k) => {
    const svg = window.cgmemExplorers[k].svg;
    return { x0: Number(svg.dataset.x0), x1: Number(svg.dataset.x1),
      ticks: [...svg.querySelectorAll('.cgx-xtick')].map((e) => e.textContent).join(' ') };
  }, k);
}

async function explore(browser, spec) {
  const [sample, oracleFile] = spec.split('=');
  const name = path.basename(sample);
  const dir = writeReport(sample);
  const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
  const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
  // nothing outside the file: no URL but the SVG and XLink namespaces
  // (text may name one, "chrome://tracing": no attribute or CSS does)
  const urls = [...(html.match(/https?:\/\/[^\s"'<>)]*/gi) || []),
    ...(html.match(/\b(?:src|href|action|xlink:href)\s*=\s*["']?[a-z][a-z0-9+.-]*:[^\s"'>]{0,40}/gi) || []),
    ...(html.match(/url\(\s*["']?[a-z][a-z0-9+.-]*:[^)]{0,40}/gi) || [])];
  const external = urls.filter((u) => !/^http:\/\/www\.w3\.org\/(2000\/svg|1999\/xlink)$/.test(u) &&
    !/(src|href)\s*=\s*"data:image\/png;base64,/i.test(u));
  check(external.length === 0, `${name}: the page names ${external.slice(0, 3).join(' ')}`);
  const csp = (html.match(/http-equiv="Content-Security-Policy" content="([^"]*)"/) || [])[1] || '';
  check(/^default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-[A-Za-z0-9+/]{43}='$/.test(csp),
    `${name}: the Content-Security-Policy is "${csp}"`);
  const page = await open(browser, dir, name);
  const n = await page.evaluate(() => window.cgmemExplorers.length);
  const nviews = await page.evaluate(() => window.cgmemSegmentViews.length);
  const datas = await page.evaluate(() => document.querySelectorAll('script.cgx-data').length);
  check(n > 0 && n + nviews === datas, `${name}: ${n} explorers and ${nviews} segment views started for ${datas} data elements`);
  // the first explorer starts while the page after it is still being parsed
  // (each as soon as its data element is), not at DOMContentLoaded
  // the static page's tables and charts are laid out only near the screen
  // (content-visibility, docs/report-explore.md); the explorer's at once
  const cv = await page.evaluate(() => {
    const of = (e) => e && getComputedStyle(e).contentVisibility;
    return { table: of(document.querySelector('main .tw:not(.cgx .tw)')), figure: of(document.querySelector('main figure')) };
  });
  check(cv.table === 'auto' && (cv.figure === undefined || cv.figure === 'auto'),
    `${name}: the static page's tables and charts have content-visibility ${JSON.stringify(cv)}`);
  const early = await page.evaluate(() => Number(document.documentElement.dataset.cgxEarly));
  check(early >= 1, `${name}: ${early} explorers started before the page was parsed`);
  for (let k = 0; k < n; k++) {
    const info = await page.evaluate((k) => {
      const d = window.cgmemExplorers[k].d;
      return { device: d.device, peak: { t: window.cgmemExplorers[k].peakT }, allocs: !!d.allocs };
    }, k);
    const dev = summary.devices.find((x) => x.name === info.device);
    const where = `${name} ${info.device}`;
    if (!check(dev, `${where}: not in summary.json`))
      continue;
    let want = dev.peak_bytes ?? dev.peak?.bytes;
    if (oracleFile && k === 0) {
      const o = JSON.parse(fs.readFileSync(oracleFile, 'utf8'));
      want = o.peak_total_allocated_bytes ?? want;
    }
    // hover at the peak's x: the tooltip says the peak
    const at = await clientAt(page, k, info.peak.t);
    await page.mouse.move(at.x, at.y);
    const tip = await page.evaluate((k) => {
      const t = window.cgmemExplorers[k].tip;
      return { shown: t.style.display, bytes: Number(t.dataset.bytes), text: t.textContent };
    }, k);
    check(tip.shown === 'block', `${where}: no tooltip at the peak`);
    check(tip.bytes === want, `${where}: the tooltip at the peak says ${tip.bytes} B, the peak is ${want} B`);
    check(tip.text.includes('(the peak)'), `${where}: the tooltip at the peak does not say so: ${tip.text.slice(0, 120)}`);
    if (shots && k === 0)
      await page.screenshot({ path: path.join(shots, `${name}.hover.png`) });
    // a click there pins the moment summary.json lists at the peak
    await page.mouse.click(at.x, at.y);
    const pinned = await page.evaluate((k) => {
      const pin = window.cgmemExplorers[k].pin;
      return { label: pin.dataset.label, bytes: Number(pin.dataset.bytes), cv: getComputedStyle(pin.querySelector('.tw')).contentVisibility,
        rows: [...pin.querySelectorAll('table.cgx-pin-top tbody tr')].map((tr) => [Number(tr.dataset.bytes),
          tr.cells[1].textContent, tr.cells[2].textContent, tr.cells[3].textContent, tr.dataset.allocated, tr.dataset.freed]) };
    }, k);
    const top = (dev.at_peak.top || []).map((a) => [a.bytes, a.category, a.op || '', a.span_path || '',
      a.allocated_ns === null ? '' : String(a.allocated_ns), a.freed_ns === null ? '' : String(a.freed_ns)]);
    check(pinned.label === 'peak' && pinned.bytes === want, `${where}: pinned ${pinned.label} of ${pinned.bytes} B`);
    check(pinned.cv === 'visible', `${where}: the pinned tables have content-visibility ${pinned.cv}`);
    check(JSON.stringify(pinned.rows) === JSON.stringify(top),
      `${where}: the pinned list differs from summary.json's at_peak.top:\n  ${JSON.stringify(pinned.rows.slice(0, 2))}\n  ${JSON.stringify(top.slice(0, 2))}`);
    // a step's peak, pinned from the page's list of worked-out moments: the
    // step's peak_bytes of summary.json and the list the data holds for it
    // (cli/explore_cli checks that list against a replay of the records)
    const steps = dev.over_time?.steps || [];
    if (steps.length) {
      const last = steps.length - 1;
      const got = await page.evaluate(async (k, last) => {
        const ex = window.cgmemExplorers[k];
        const j = ex.d.moments.findIndex((m) => m.step === last);
        const pick = ex.box.querySelector('select.cgx-moments');
        const option = pick && [...pick.options].find((o) => o.value === String(j));
        if (j < 0 || !option) return null;
        pick.value = String(j);
        pick.dispatchEvent(new Event('change'));
        const m = ex.d.moments[j], pin = ex.pin;
        return { option: option.textContent, label: pin.dataset.label, bytes: Number(pin.dataset.bytes),
          head: pin.querySelector('h4').textContent, listed: m.listed, pinned: ex.pinned, point: m.point,
          markers: ex.svg.querySelectorAll(`.cgx-moment[data-label="peak of step ${last}"]`).length,
          rows: [...pin.querySelectorAll('table.cgx-pin-top tbody tr')].map((tr) => [Number(tr.dataset.bytes), tr.dataset.allocated, tr.dataset.freed]),
          want: m.top.map((a) => [a.bytes, a.allocated_ns === null ? '' : String(a.allocated_ns), a.freed_ns === null ? '' : String(a.freed_ns)]) };
      }, k, last);
      if (check(got, `${where}: step ${last}'s peak is not among the moments to pin`)) {
        check(got.option === `peak of step ${last} (${steps[last].name})`, `${where}: the list names step ${last}'s peak "${got.option}"`);
        check(got.label === `peak of step ${last}` && got.bytes === steps[last].peak_bytes,
          `${where}: pinned ${got.label} of ${got.bytes} B, step ${last}'s peak is ${steps[last].peak_bytes} B`);
        check(got.head.startsWith(`Pinned: the peak of step ${last} (${steps[last].name}), `), `${where}: the pin says "${got.head}"`);
        check(got.pinned === got.point && got.markers === 1, `${where}: step ${last}'s peak pinned at ${got.pinned}, marked ${got.markers} times`);
        check((got.rows.length > 0 || !got.listed) && JSON.stringify(got.rows) === JSON.stringify(got.want), `${where}: the pinned step peak's list differs from its data`);
        if (shots && k === 0)
          await page.screenshot({ path: path.join(shots, `${name}.steppeak.png`) });
      }
    }
    // zoom: the wheel at the peak narrows the axis, and it re-ticks
    const before = await axis(page, k);
    await page.mouse.move(at.x, at.y);
    for (let w = 0; w < 4; w++)
      await page.mouse.wheel({ deltaY: -120 });
    const after = await axis(page, k);
    check(after.x1 - after.x0 < 0.5 * (before.x1 - before.x0) && after.x0 <= info.peak.t && info.peak.t <= after.x1,
      `${where}: zoom at the peak went from ${before.x0}..${before.x1} to ${after.x0}..${after.x1}`);
    check(after.ticks !== before.ticks, `${where}: the axis kept its ticks "${before.ticks}" when zoomed`);
    // pan: a drag moves the range, keeps its width
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    // (within the viewport: Firefox refuses a pointer outside it)
    await page.mouse.move(Math.min(at.x + 120, 1279), at.y, { steps: 4 });
    await page.mouse.up();
    const panned = await axis(page, k);
    check(Math.abs((panned.x1 - panned.x0) - (after.x1 - after.x0)) < 1e-6 * (after.x1 - after.x0 + 1) &&
      (panned.x0 !== after.x0 || after.x0 === info.peak.t), `${where}: a drag did not pan (${after.x0} -> ${panned.x0})`);
    if (shots && k === 0) {
      await page.screenshot({ path: path.join(shots, `${name}.zoomed.png`) });
    }
    await page.evaluate((k) => window.cgmemExplorers[k].reset(), k);
    const reset = await axis(page, k);
    check(reset.x0 === before.x0 && reset.x1 === before.x1, `${where}: reset did not restore the range`);
    // a legend entry hides its category, and gives it back
    const legend = await page.evaluate((k) => {
      const ex = window.cgmemExplorers[k];
      const areas = () => ex.svg.querySelectorAll('.cgx-area').length;
      const before = areas();
      const b = ex.box.querySelector('button.cgx-cat');
      b.click();
      const off = { areas: areas(), pressed: b.getAttribute('aria-pressed') };
      b.click();
      return { before, off, back: areas() };
    }, k);
    check(legend.off.pressed === 'false' && legend.off.areas === legend.before - 1 && legend.back === legend.before,
      `${where}: a legend toggle gave ${JSON.stringify(legend)}`);
    // another moment: when the allocations are embedded, its pinned list
    // adds up to no more than the tooltip's bytes there
    if (info.allocs) {
      const mid = await page.evaluate((k) => {
        const ex = window.cgmemExplorers[k];
        return ex.T[Math.floor(ex.n / 3)];
      }, k);
      const m = await clientAt(page, k, mid);
      await page.mouse.move(m.x, m.y);
      const tb = await page.evaluate((k) => Number(window.cgmemExplorers[k].tip.dataset.bytes), k);
      await page.mouse.click(m.x, m.y);
      const p2 = await page.evaluate((k) => {
        const pin = window.cgmemExplorers[k].pin;
        return { bytes: Number(pin.dataset.bytes), rows: [...pin.querySelectorAll('table.cgx-pin-top tbody tr')].map((tr) => Number(tr.dataset.bytes)) };
      }, k);
      const sum = p2.rows.reduce((a, b) => a + b, 0);
      check(p2.bytes === tb && sum <= tb && p2.rows.every((b, i) => i === 0 || p2.rows[i - 1] >= b),
        `${where}: a moment pinned at a third of the run: ${p2.bytes} B (tooltip ${tb} B), rows sum ${sum}`);
    }
  }
  // a snapshot's segment view: its segments add up to summary.json's
  // reserved bytes, and hovering the largest block shows that block
  const views = await page.evaluate(() => window.cgmemSegmentViews.length);
  for (let k = 0; k < views; k++) {
    const seg = await page.evaluate(async (k) => {
      const v = window.cgmemSegmentViews[k];
      v.box.scrollIntoView({ block: 'center' });
      await settled();
      let reserved = 0;
      v.d.segments.forEach((s) => { reserved += s[1]; });
      const rects = [...v.svg.querySelectorAll('.cgx-block')];
      const big = rects.reduce((a, b) => (Number(b.dataset.size) > Number(a.dataset.size) ? b : a), rects[0]);
      const r = big.getBoundingClientRect();
      return { device: v.d.device, reserved, all: v.d.segments_embedded === v.d.segment_count, blocks: rects.length,
        size: Number(big.dataset.size), x: r.left + r.width / 2, y: r.top + r.height / 2 };
    }, k);
    const where = `${name} ${seg.device} segments`;
    const dev = summary.devices.find((x) => x.name === seg.device);
    const want = dev?.allocator_state?.reserved_bytes ?? dev?.snapshot?.reserved_bytes;
    if (seg.all && want !== undefined)
      check(seg.reserved === want, `${where}: the segments hold ${seg.reserved} B, summary.json says ${want} B reserved`);
    await page.mouse.move(seg.x, seg.y);
    const tip = await page.evaluate((k) => {
      const t = window.cgmemSegmentViews[k].tip;
      return { shown: t.style.display, bytes: Number(t.dataset.bytes), state: t.dataset.state, text: t.textContent };
    }, k);
    check(tip.shown === 'block' && tip.bytes === seg.size && tip.state && /requested/.test(tip.text) && /frames/.test(tip.text),
      `${where}: hovering the largest block (${seg.size} B) shows ${JSON.stringify(tip).slice(0, 200)}`);
    if (shots)
      await page.screenshot({ path: path.join(shots, `${name}.segments.png`) });
  }
  if (shots) {
    await page.evaluate(() => window.cgmemExplorers[0].box.scrollIntoView());
    await page.screenshot({ path: path.join(shots, `${name}.png`) });
  }
  console.log(`${name}: ${n} explorers, report.html ${fs.statSync(path.join(dir, 'report.html')).size} bytes`);
  await page.close();
}

await runChecks(tmp, async (browser) => {
  for (const s of samples)
    await explore(browser, s);
});
