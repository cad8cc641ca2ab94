// The web app's budgets (issue 3): the home page's JavaScript, gzip, at most 250 KB; time from
// navigation to the home page's first content in headless Chromium against the local server at most 1 s.
// Each figure is printed beside a baseline: a static HTML page served by the same server (same headers,
// same Content-Security-Policy), which shows what the browser and the server cost before any app code.
//
//   node bench/web.mjs                 builds, then 20 timed loads of each page (after 3 untimed ones)
//   node bench/web.mjs --runs=50 --no-build
//
// Needs Debian's Chromium (scripts/ensure-chromium.sh) and runs by hand, never in `npm test`.
//
// "First content" is the moment the page's own main heading is in the document (a MutationObserver
// installed before any script records performance.now(), whose zero is the navigation's start). The
// home page gets there after the start-up sequence of SPEC §7 (manifest, config, getUIConfig), the
// user's description and its lazily loaded chunk. "Complete" is when its project list has rows.
// First contentful paint (FCP) is the browser's own paint entry. Cold loads use a new browser context
// (empty cache, as a first visit); warm loads reload in the same context (hashed assets are cached).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { build, CHROMIUM, CHROMIUM_ARGS, fmt, parseArgs, printMachine, printTable, ROOT, saveResults, startPanx, summarize } from './lib.mjs';

const args = parseArgs();
const RUNS = Number(args.runs ?? 20);
const WARMUP = Number(args.warmup ?? 3);
const WEB_DIST = path.join(ROOT, 'packages/web/dist');
const BUDGET_GZIP_KB = 250;
const BUDGET_FIRST_CONTENT_MS = 1000;

if (!fs.existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} is missing: scripts/ensure-chromium.sh installs it (or set PANX_CHROMIUM)`);
  process.exit(1);
}
build(args);
if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) {
  console.error('packages/web/dist is missing: npm run build');
  process.exit(1);
}
const { chromium } = await import('playwright-core');

printMachine();

// The build, plus the baseline page, served by a real server.
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-web-'));
const webDir = path.join(workDir, 'web');
fs.cpSync(WEB_DIST, webDir, { recursive: true });
fs.writeFileSync(
  path.join(webDir, 'baseline.html'),
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Baseline</title></head><body><main><h1>Static baseline page</h1><p>No script, no style sheet.</p></main></body></html>\n',
);
const server = await startPanx({ dataDir: path.join(workDir, 'data'), env: { PANX_WEB_DIR: webDir } });
let browser;
try {
  // A user with projects and notifications, as a returning user has them.
  const username = 'benchuser';
  const password = 'bench-user-password';
  await server.call('user/new', { username, email: 'bench@example.org', first: 'Bench', last: 'User', password });
  const signIn = await fetch(`${server.url}/system/newAuthToken`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password, securityLevel: 'low' }),
  }).then((response) => response.json());
  const call = async (route, body) => {
    const response = await fetch(`${server.url}/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${signIn.access_token}` },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  for (let i = 0; i < 30; i++) await call('project/new', { name: `Bench project ${String(i).padStart(2, '0')}` });
  const { id: shared } = await server.call('project/new', { name: 'Shared with the bench user' });
  await server.call(`${shared}/invite`, { invitee: signIn.user_id, level: 'VIEW' });
  const session = JSON.stringify({ token: signIn.access_token, userId: signIn.user_id, tokenId: signIn.token_id });

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });

  /** A browser context whose pages are signed in and record when `selector` first appears. */
  async function newContext() {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(
      ({ origin, stored }) => {
        if (location.origin !== origin) return;
        localStorage.setItem('panx.session', stored);
        const marks = {};
        window.__panxMarks = marks;
        const check = () => {
          if (marks.firstContent === undefined && document.querySelector('main h1')) marks.firstContent = performance.now();
          if (
            marks.complete === undefined &&
            document.querySelector('main h1') &&
            (document.querySelector('main table tbody tr') || location.pathname.endsWith('baseline.html'))
          ) {
            marks.complete = performance.now();
          }
        };
        new MutationObserver(check).observe(document, { childList: true, subtree: true });
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') marks.fcp = entry.startTime;
        }).observe({ type: 'paint', buffered: true });
      },
      { origin: server.url, stored: session },
    );
    return context;
  }

  /** Loads `url` and waits for its first content and completion; answers the marks in ms. */
  async function load(page, url, reload = false) {
    if (reload) await page.reload();
    else await page.goto(url);
    await page.waitForFunction(() => window.__panxMarks?.complete !== undefined && window.__panxMarks?.fcp !== undefined, undefined, { timeout: 30_000 });
    return page.evaluate(() => ({ ...window.__panxMarks }));
  }

  // ---- JavaScript of the home page ----
  const sizeContext = await newContext();
  const sizePage = await sizeContext.newPage();
  const scripts = new Set();
  sizePage.on('response', (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith('/panx/assets/') && url.pathname.endsWith('.js')) scripts.add(url.pathname);
  });
  await load(sizePage, `${server.url}/panx/home`);
  // Whatever the home page loads a little later (the polls do not load code, but be sure).
  await sizePage.waitForTimeout(1000);
  let raw = 0;
  let gzip = 0;
  const files = [];
  for (const script of scripts) {
    const bytes = fs.readFileSync(path.join(webDir, script.replace('/panx/', '')));
    const gz = zlib.gzipSync(bytes, { level: 9 }).length;
    raw += bytes.length;
    gzip += gz;
    files.push({ file: path.basename(script), raw: bytes.length, gzip: gz });
  }
  await sizeContext.close();
  files.sort((a, b) => b.gzip - a.gzip);

  console.log(`\nJavaScript the home page loads (gzip -9), budget ${BUDGET_GZIP_KB} KB:\n`);
  printTable(
    ['page', 'JS files', 'raw KB', 'gzip KB', 'budget'],
    [
      ['static baseline page', '0', '0.0', '0.0', '-'],
      ['home page', String(files.length), fmt(raw / 1024), fmt(gzip / 1024), `${gzip / 1024 <= BUDGET_GZIP_KB ? 'within' : 'OVER'} ${BUDGET_GZIP_KB} KB`],
    ],
  );
  console.log('\nlargest files:');
  printTable(
    ['file', 'raw KB', 'gzip KB'],
    files.slice(0, 6).map((file) => [file.file, fmt(file.raw / 1024), fmt(file.gzip / 1024)]),
  );

  // ---- time to first content ----
  async function timeLoads(url, warm) {
    const samples = { firstContent: [], complete: [], fcp: [] };
    const context = warm ? await newContext() : undefined;
    const warmPage = context ? await context.newPage() : undefined;
    if (warmPage) await load(warmPage, url);
    for (let i = 0; i < WARMUP + RUNS; i++) {
      let marks;
      if (warmPage) {
        marks = await load(warmPage, url, true);
      } else {
        const cold = await newContext();
        marks = await load(await cold.newPage(), url);
        await cold.close();
      }
      if (i < WARMUP) continue;
      for (const key of Object.keys(samples)) samples[key].push(marks[key]);
    }
    await context?.close();
    return Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, summarize(values)]));
  }

  const results = {};
  for (const [name, url] of [
    ['baseline', `${server.url}/panx/baseline.html`],
    ['home', `${server.url}/panx/home`],
  ]) {
    results[name] = { cold: await timeLoads(url, false), warm: await timeLoads(url, true) };
  }

  const cell = (summary) => `${fmt(summary.median, 0)} / ${fmt(summary.p95, 0)}`;
  console.log(`\nTime from navigation, ms (median / p95 of ${RUNS} loads), budget ${BUDGET_FIRST_CONTENT_MS} ms to the home page's first content:\n`);
  const rows = [];
  for (const cache of ['cold', 'warm']) {
    for (const [key, label] of [
      ['fcp', 'first contentful paint'],
      ['firstContent', 'first content (main heading)'],
      ['complete', 'complete (project rows)'],
    ]) {
      rows.push([`${cache}: ${label}`, cell(results.baseline[cache][key]), cell(results.home[cache][key])]);
    }
  }
  printTable(['measure', 'static baseline page', 'home page'], rows);
  const worst = Math.max(results.home.cold.firstContent.p95, results.home.warm.firstContent.p95);
  console.log(
    `\nhome page first content: p95 ${fmt(worst, 0)} ms, ${worst <= BUDGET_FIRST_CONTENT_MS ? 'within' : 'OVER'} the budget of ${BUDGET_FIRST_CONTENT_MS} ms`,
  );

  saveResults('web', { runs: RUNS, warmup: WARMUP, javascript: { files, raw, gzip, budgetKB: BUDGET_GZIP_KB }, timings: results });
} finally {
  await browser?.close();
  await server.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
}
