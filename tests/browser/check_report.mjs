// report.html in the system Chromium, driven by puppeteer-core (installed
// by `.ci/setup --test` into tests/browser/node_modules; README.md here).
//
//   node check_report.mjs layout CGMEM SAMPLE...   at 420, 1280 and 1920 px
//   node check_report.mjs print CGMEM SAMPLE...    printed, and page.pdf()
//
// In print, SAMPLE<=N also requires at most N A4 pages.
//
// Each sample's report is written by CGMEM into a temporary folder, opened
// as a file: URL with nothing else allowed to load, and measured. Every
// wait is bounded; exit status 0 when every check passed, 1 otherwise.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { bound, check, openChecked, runChecks } from './browser.mjs';

const WIDTHS = [420, 1280, 1920];
// A4 less the report's @page margins (12 mm each side), in CSS px.
const PRINT_WIDTH = Math.floor(((210 - 24) / 25.4) * 96);

const [mode, cgmem, ...samples] = process.argv.slice(2);
if (!['layout', 'print'].includes(mode) || !cgmem || samples.length === 0) {
  console.error('usage: node check_report.mjs layout|print CGMEM SAMPLE...');
  process.exit(2);
}
bound(420);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cgmem-browser-'));

function writeReport(sample) {
  const out = path.join(tmp, path.basename(sample).replace(/[^A-Za-z0-9._-]/g, '_'));
  execFileSync(cgmem, ['report', '--no-trace', '-q', sample, '-o', out], { timeout: 120_000, stdio: 'inherit' });
  return out;
}

// The page is self-contained: any request but the page itself (and its
// data: URLs) fails.
function open(browser, dir) {
  return openChecked(browser, pathToFileURL(path.join(dir, 'report.html')).href, dir,
    { allow: (url) => url.startsWith('data:'), consoleClean: false });
}

// In the page: the checks that do not depend on the width.
function anchorsAndFiles() {
  const ids = [...document.querySelectorAll('[id]')].map((e) => e.id);
  const dup = ids.filter((id, i) => ids.indexOf(id) !== i);
  const headings = [...document.querySelectorAll('main h2, main h3')];
  const toc = [...document.querySelectorAll('nav#contents a')].map((a) => a.getAttribute('href'));
  const figures = [...document.querySelectorAll('figure')].map((f) => ({
    links: [...f.querySelectorAll('.files a')].map((a) => [a.textContent, a.getAttribute('href')]),
  }));
  return {
    dup,
    headings: headings.length,
    without_id: headings.filter((h) => !h.id).map((h) => h.textContent),
    non_ascii: ids.filter((id) => !/^[A-Za-z0-9_-]+$/.test(id)),
    toc,
    toc_missing: toc.filter((href) => !href.startsWith('#') || !document.getElementById(href.slice(1))),
    toc_h2: headings.filter((h) => h.tagName === 'H2' && !toc.includes('#' + h.id)).map((h) => h.textContent),
    figures,
  };
}

// In the page at one width: is the document no wider than the window, and
// can the peak value of each device be seen, on the page or by scrolling
// its table's wrapper?
function widthChecks() {
  const vw = window.innerWidth;
  const wide = [];
  for (const e of document.querySelectorAll('main *')) {
    if (e.closest('.tw') && !e.classList.contains('tw'))
      continue; // inside a scroll wrapper: may be wider, it scrolls
    const r = e.getBoundingClientRect();
    if (r.width > 0 && (r.right > vw + 0.5 || r.left < -0.5))
      wide.push(`${e.tagName.toLowerCase()}.${e.className} ${Math.round(r.left)}..${Math.round(r.right)}`);
  }
  const peaks = [];
  for (const tr of document.querySelectorAll('tr')) {
    const first = tr.cells[0];
    if (!first || first.textContent !== 'peak')
      continue;
    for (const td of [...tr.cells].slice(1)) {
      const wrap = td.closest('.tw');
      td.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      const r = td.getBoundingClientRect();
      const w = wrap ? wrap.getBoundingClientRect() : { left: 0, right: vw };
      peaks.push({
        text: td.textContent,
        seen: r.width > 0 && r.left >= Math.max(0, w.left) - 0.5 && r.right <= Math.min(vw, w.right) + 0.5,
        at: `${Math.round(r.left)}..${Math.round(r.right)} in ${Math.round(w.left)}..${Math.round(w.right)}`,
        scrolls: wrap ? wrap.scrollWidth > wrap.clientWidth : false,
      });
      if (wrap)
        wrap.scrollLeft = 0;
    }
  }
  return { vw, doc: document.documentElement.scrollWidth, wide: wide.slice(0, 5), nwide: wide.length, peaks };
}

// In the page, printed: how figures, rows and header rows break.
function printChecks() {
  const vw = window.innerWidth;
  const style = (e) => getComputedStyle(e);
  const unsplit = (e) => ['avoid', 'avoid-page'].includes(style(e).breakInside);
  const figures = [...document.querySelectorAll('figure')];
  const rows = [...document.querySelectorAll('tr')];
  const tables = [...document.querySelectorAll('table')];
  // a path column's width in characters of its font ('0' as in CSS's ch)
  const ch = (e) => {
    const probe = document.createElement('span');
    probe.textContent = '0'.repeat(10);
    e.appendChild(probe);
    const w = probe.getBoundingClientRect().width / 10;
    probe.remove();
    return w;
  };
  // the cells printed: rows left for the screen (tr.pm) have no width
  const paths = [...document.querySelectorAll('td.p')].filter((td) => td.getClientRects().length > 0).map((td) => {
    const s = style(td);
    return (td.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)) / ch(td);
  });
  return {
    figures: figures.length,
    split_figures: figures.filter((f) => !unsplit(f)).length,
    rows: rows.length,
    split_rows: rows.filter((r) => !unsplit(r)).length,
    tables: tables.length,
    heads: tables.filter((t) => t.tHead && style(t.tHead).display === 'table-header-group').length,
    too_wide: tables.filter((t) => t.getBoundingClientRect().right > vw + 0.5)
      .map((t) => `"${t.rows[0].textContent.slice(0, 40)}" ${Math.round(t.getBoundingClientRect().right)} px`),
    narrowest_path: paths.length ? Math.round(Math.min(...paths)) : null,
    background: style(document.body).backgroundColor,
    // rows left off the paper, and whether each such table's note says so
    cut_rows: document.querySelectorAll('tr.pm').length,
    cut_hidden: [...document.querySelectorAll('tr.pm')].filter((r) => style(r).display === 'none').length,
    cut_tables: tables.filter((t) => t.querySelector('tr.pm')).length,
    cut_notes: tables.filter((t) => {
      const n = t.closest('.tw').nextElementSibling;
      const shown = t.tBodies[0] ? [...t.tBodies[0].rows].filter((r) => style(r).display !== 'none').length : 0;
      const all = t.tBodies[0] ? t.tBodies[0].rows.length : 0;
      return t.querySelector('tr.pm') && n && n.classList.contains('pn') && style(n).display !== 'none' &&
        n.textContent.startsWith(`Printed: the first ${shown} of these ${all} rows; the other ${all - shown} are in report.html on screen`);
    }).length,
  };
}

async function layout(browser, sample, dir) {
  const page = await open(browser, dir);
  const a = await page.evaluate(anchorsAndFiles);
  check(a.headings > 0 && a.toc.length === a.headings, `${sample}: the contents list ${a.toc.length} of ${a.headings} headings`);
  check(a.without_id.length === 0, `${sample}: headings without an id: ${a.without_id.join(', ')}`);
  check(a.dup.length === 0, `${sample}: ids used twice: ${a.dup.slice(0, 5).join(', ')}`);
  check(a.non_ascii.length === 0, `${sample}: ids not plain ASCII: ${a.non_ascii.slice(0, 5).join(', ')}`);
  check(a.toc_missing.length === 0, `${sample}: contents links to nothing: ${a.toc_missing.join(', ')}`);
  check(a.toc_h2.length === 0, `${sample}: h2s missing from the contents: ${a.toc_h2.join(', ')}`);
  check(a.figures.length > 0, `${sample}: no figure`);
  for (const f of a.figures) {
    const kinds = f.links.map(([k]) => k).join(' ');
    check(kinds === 'PNG SVG', `${sample}: a figure links "${kinds}", not "PNG SVG" (both are written)`);
    for (const [, href] of f.links)
      check(!/^[a-z]+:|^\//i.test(href) && fs.existsSync(path.join(dir, decodeURIComponent(href))),
        `${sample}: a figure links ${href}, which is not a file in the folder`);
  }
  for (const width of WIDTHS) {
    await page.setViewport({ width, height: 900 });
    const w = await page.evaluate(widthChecks);
    check(w.vw === width, `${sample} @${width}: the window is ${w.vw} px wide`);
    check(w.doc <= w.vw, `${sample} @${width}: the page is ${w.doc} px wide in a ${w.vw} px window`);
    check(w.nwide === 0, `${sample} @${width}: ${w.nwide} elements wider than the window, first ${w.wide.join('; ')}`);
    check(w.peaks.length > 0, `${sample} @${width}: no peak row`);
    for (const p of w.peaks)
      check(p.seen, `${sample} @${width}: the peak "${p.text}" cannot be seen (${p.at}, scrolls ${p.scrolls})`);
  }
  await page.close();
}

async function print(browser, sample, dir, maxPages) {
  const page = await open(browser, dir);
  await page.setViewport({ width: PRINT_WIDTH, height: 1000 });
  await page.emulateMediaType('print');
  const p = await page.evaluate(printChecks);
  check(p.figures > 0 && p.split_figures === 0, `${sample}: ${p.split_figures} of ${p.figures} figures may split`);
  check(p.rows > 0 && p.split_rows === 0, `${sample}: ${p.split_rows} of ${p.rows} table rows may split`);
  check(p.heads === p.tables, `${sample}: ${p.tables - p.heads} of ${p.tables} tables repeat no header row`);
  check(p.too_wide.length === 0, `${sample}: tables wider than the page (${PRINT_WIDTH} px): ${p.too_wide.join('; ')}`);
  check(p.narrowest_path === null || p.narrowest_path >= 28, `${sample}: a path column holds ${p.narrowest_path} characters`);
  check(['rgba(0, 0, 0, 0)', 'rgb(255, 255, 255)'].includes(p.background), `${sample}: the page is ${p.background} in print`);
  check(p.cut_hidden === p.cut_rows, `${sample}: ${p.cut_rows - p.cut_hidden} of ${p.cut_rows} rows meant for the screen print`);
  check(p.cut_notes === p.cut_tables, `${sample}: ${p.cut_tables - p.cut_notes} of ${p.cut_tables} tables cut on paper without a note saying so`);
  const pdf = Buffer.from(await page.pdf({ format: 'A4', timeout: 60_000 }));
  const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g) || []).length;
  check(pdf.subarray(0, 5).toString() === '%PDF-', `${sample}: page.pdf() gave no PDF`);
  check(pages > 1, `${sample}: the PDF has ${pages} pages`);
  if (maxPages !== undefined) {
    check(pages <= maxPages, `${sample}: the PDF has ${pages} pages, more than ${maxPages}`);
    check(p.cut_tables > 0, `${sample}: no table is cut on paper (a large trace's should be)`);
  }
  console.log(`${sample}: ${pages} pages, ${p.figures} figures, ${p.rows} rows, narrowest path column ${p.narrowest_path} characters`);
  await page.close();
}

await runChecks(tmp, async (browser) => {
  for (const arg of samples) {
    // SAMPLE<=N: its printed report must fit in N pages
    const [sample, most] = arg.split('<=');
    const dir = writeReport(sample);
    await (mode === 'layout' ? layout : print)(browser, sample, dir, most === undefined ? undefined : Number(most));
  }
});
