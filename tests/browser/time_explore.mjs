// How big report.html is and how long it takes to become interactive in
// headless Chromium (docs/report-explore.md, docs/performance.md): the
// time from navigation to the explorers drawn (data-cgx-ms, set by the
// page's script), median of RUNS loads. Prints; asserts nothing.
//
//   node time_explore.mjs REPORT_DIR [RUNS]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const puppeteer = (await import('puppeteer-core')).default;
const [dir, runs = '3'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node time_explore.mjs REPORT_DIR [RUNS]');
  process.exit(2);
}
const file = path.join(dir, 'report.html');
const url = pathToFileURL(file).href;
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cgmem-time-'));
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, userDataDir: profile,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--no-first-run', '--disable-dev-shm-usage'],
  protocolTimeout: 180_000,
});
const times = [];
const scripts = [];
try {
  for (let r = 0; r < Number(runs); r++) {
    const page = await browser.newPage();
    await page.setRequestInterception(true);
    page.on('request', (q) => (q.url() === url ? q.continue() : q.abort()));
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
    await page.waitForSelector('html[data-cgx-ready]', { timeout: 120_000 });
    const t = await page.evaluate(() => [document.documentElement.dataset.cgxMs, document.documentElement.dataset.cgxScriptMs,
      Math.round(performance.getEntriesByType('navigation')[0].domInteractive), document.documentElement.dataset.cgxFirstMs,
      document.documentElement.dataset.cgxEarly]);
    times.push(Number(t[0]));
    scripts.push(`${t[1]} ms in the script, DOM parsed at ${t[2]} ms` +
      (t[3] == null ? '' : `, first explorer drawn at ${t[3]} ms, ${t[4]} started before the DOM was parsed`));
    await page.close();
  }
} finally {
  await browser.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
times.sort((a, b) => a - b);
const size = fs.statSync(file).size;
console.log(`report.html ${size} bytes (${(size / 1048576).toFixed(2)} MiB); interactive after ${times.join(', ')} ms ` +
  `(median ${times[Math.floor(times.length / 2)]} ms); ${scripts.join('; ')}`);
