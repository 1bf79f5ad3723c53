// What every browser test here shares: puppeteer-core (installed by
// .ci/setup --test), and the browser it drives — the system Chromium, or
// with FIREFOX set (a path) that Firefox over WebDriver BiDi.
import fs from 'node:fs';
import path from 'node:path';

let loaded;
try {
  loaded = (await import('puppeteer-core')).default;
} catch (e) {
  console.error(`puppeteer-core is not installed in tests/browser/node_modules: run .ci/setup --test (${e.message})`);
  process.exit(1);
}
export const puppeteer = loaded;

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const FIREFOX = process.env.FIREFOX || '';

// Besides the page itself, the one load a test allows: Firefox loads a font
// of its own as a data: URL (not the page's: its CSP allows no fonts).
export function ownLoad(url) {
  return Boolean(FIREFOX) && url.startsWith('data:font/');
}

// The browser, headless, with its profile in tmp.
export function launch(tmp) {
  const common = { headless: true, userDataDir: path.join(tmp, 'profile'), protocolTimeout: 90_000 };
  if (FIREFOX)
    return puppeteer.launch({
      ...common,
      browser: 'firefox',
      executablePath: FIREFOX,
      timeout: 60_000,
      // Nothing of its own beyond loopback: every http(s) request goes to a
      // proxy at 127.0.0.1:9 (discard, nothing listens), so no name is
      // looked up either; no update checks, telemetry or portal detection.
      extraPrefsFirefox: { 'network.proxy.type': 1, 'network.proxy.http': '127.0.0.1', 'network.proxy.http_port': 9,
        'network.proxy.ssl': '127.0.0.1', 'network.proxy.ssl_port': 9, 'network.proxy.no_proxies_on': '',
        'network.proxy.allow_hijacking_localhost': true, 'network.dns.disablePrefetch': true,
        'network.captive-portal-service.enabled': false, 'network.connectivity-service.enabled': false,
        'app.update.enabled': false, 'datareporting.policy.dataSubmissionEnabled': false, 'toolkit.telemetry.enabled': false,
        'browser.safebrowsing.malware.enabled': false, 'browser.safebrowsing.phishing.enabled': false },
    });
  return puppeteer.launch({
    ...common,
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-dev-shm-usage'],
    timeout: 30_000,
  });
}

// Helpers the tests call inside the page. window.settled(): after a scroll
// the static page's tables and charts near the screen are laid out
// (content-visibility), which can move what was scrolled to; Firefox does
// it at the next frames, so positions are read after them.
// window.columnX(svg, W, x): the client x of plot x (of W units) on svg —
// a whole pixel inside x's pixel column when there is one, since Firefox
// moves the pointer by whole pixels and the explorers work by column.
export function definePageHelpers(page) {
  return page.evaluate(() => {
    window.settled = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))));
    window.columnX = (svg, W, x) => {
      const r = svg.getBoundingClientRect(), k = W / r.width, col = Math.floor(x);
      for (let cx = Math.floor(r.left + col / k); cx <= Math.ceil(r.left + (col + 1) / k); cx++)
        if (Math.floor((cx - r.left) * k) === col)
          return cx;
      return r.left + x / k;
    };
  });
}

// The checks of one script: check(ok, what) counts and prints each failure;
// finish() prints the verdict and exits with 1 when any failed.
let failures = 0;
export function check(ok, what) {
  if (!ok) {
    failures++;
    console.log(`FAIL ${what}`);
  }
  return ok;
}

// The script's arguments less `--shots DIR`, and DIR (made), or null.
export function shotsOption(argv) {
  const args = [...argv];
  const i = args.indexOf('--shots');
  if (i < 0)
    return { args, shots: null };
  const shots = args[i + 1];
  args.splice(i, 2);
  fs.mkdirSync(shots, { recursive: true });
  return { args, shots };
}

// The whole run is bounded, whatever hangs.
export function bound(seconds) {
  setTimeout(() => {
    console.error(`timed out after ${seconds} s`);
    process.exit(1);
  }, seconds * 1000).unref();
}

// body(browser) with the browser launched (its profile in tmp); then the
// browser closed, tmp removed, the verdict printed and the process ended.
export async function runChecks(tmp, body) {
  let browser;
  try {
    browser = await launch(tmp);
    await body(browser);
  } catch (e) {
    check(false, `${e.stack || e}`);
  } finally {
    if (browser)
      await browser.close().catch(() => {});
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log(failures ? `${failures} checks failed` : 'ok');
  process.exit(failures ? 1 : 0);
}

// url in a new page where every request but the page itself (and those
// allow(url) takes) fails a check and is refused, as does a page error; with
// consoleClean, so does a console error or warning.
export async function openChecked(browser, url, name, { allow = ownLoad, consoleClean = true, timeout = 30_000 } = {}) {
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    if (req.url() === url || allow(req.url())) {
      req.continue();
    } else {
      check(false, `${name}: the page asked for ${req.url().slice(0, 100)}`);
      req.abort();
    }
  });
  if (consoleClean)
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning')
        check(false, `${name}: console ${m.type()}: ${m.text()}`);
    });
  page.on('pageerror', (e) => check(false, `${name}: page error: ${e.message}`));
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(url, { waitUntil: 'load', timeout });
  return page;
}

// A page with explorers (report.html, diff.html), once they have started,
// with the in-page helpers defined.
export async function openExplorer(browser, url, name) {
  const page = await openChecked(browser, url, name, { timeout: 60_000 });
  await page.waitForSelector('html[data-cgx-ready]', { timeout: 30_000 });
  await definePageHelpers(page);
  return page;
}
