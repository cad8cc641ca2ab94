// Issue 6's monitoring targets, measured in headless Chromium against a real server (run by hand, never
// by `npm test`):
//   (a) an execution with 1,000 subjobs: the details page paints the tree ≤ 1 s after the API answers
//       (the last findExecutions page of the first load, from the page's resource timing → the animation
//       frame after the first subjob row appears), and stays responsive while the tree refreshes every
//       5 s (long tasks and timer lateness over 16 s, beside the same page with a tree of one job);
//   (b) a job log of 1,000,000 lines: time to hold it all, scrolling frames/s in the LogViewer (beside a
//       static page of the same height scrolled the same way: 120 px a frame, then a random place every
//       frame), and the latency from a running job printing a line to the LogViewer painting it
//       (target ≤ 500 ms), beside a bare websocket client (the `dx watch` protocol, in Node) following
//       the same job.
// The 1,000 subjobs and the million lines are copied straight into SQLite from a real subjob and a real
// job (as bench/data-browser.mjs seeds objects): the pages under test read them through the API as usual.
//
//   node bench/monitor.mjs                       builds first
//   node bench/monitor.mjs --no-build --lines=1000000 --subjobs=1000
// PANX_BENCH_WEB_DIR serves another build of the web app (default packages/web/dist).
// Needs Debian's chromium (scripts/ensure-chromium.sh) and the built web app (npm run build).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { benchUser, build, CHROMIUM, CHROMIUM_ARGS, fmt, parseArgs, printMachine, printTable, ROOT, saveResults, sleep, startPanx } from './lib.mjs';

const args = parseArgs();
const SUBJOBS = Number(args.subjobs ?? 1000);
const LINES = Number(args.lines ?? 1_000_000);
const PINGS = Number(args.pings ?? 40);
const WEB_DIR = process.env.PANX_BENCH_WEB_DIR ?? path.join(ROOT, 'packages/web/dist');
const ID_ALPHABET = '0123456789BFGJKPQVXYZbfgjkpqvxyz';

build(args);
if (!fs.existsSync(CHROMIUM) || !fs.existsSync(path.join(WEB_DIR, 'index.html'))) {
  console.log(`nothing to measure: ${fs.existsSync(CHROMIUM) ? 'the web app is not built' : `${CHROMIUM} is missing (scripts/ensure-chromium.sh)`}`);
  process.exit(0);
}
const require = createRequire(path.join(ROOT, 'package.json'));
const { chromium } = require(path.join(ROOT, 'node_modules/playwright-core'));
const Database = require('better-sqlite3');
const { WebSocket } = require('ws');

function fakeId(cls, n) {
  let body = '';
  for (let i = 0; i < 24; i++) {
    body = ID_ALPHABET[n % 32] + body;
    n = Math.floor(n / 32);
  }
  return `${cls}-${body}`;
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const p95 = (values) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))];

printMachine();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-monitor-'));
const gate = path.join(tmp, 'gate');
// Jobs here mostly sleep: room for all of them at once.
const server = await startPanx({
  dataDir: path.join(tmp, 'panx'),
  env: { PANX_WEB_DIR: WEB_DIR, PANX_ENGINE: 'true', PANX_LOCAL_CORES: '16', PANX_LOCAL_MEMORY_MB: '64000' },
});
let browser;
try {
  const { password, token, call } = await benchUser(server);
  const waitFor = async (id, states, timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await call(`${id}/describe`, {});
      if (states.includes(job.state)) return job;
      if (Date.now() > deadline) throw new Error(`${id} stayed ${job.state}`);
      await sleep(200);
    }
  };
  const newApplet = async (name, code, inputSpec = []) =>
    (
      await call('applet/new', {
        project,
        name,
        dxapi: '1.0.0',
        inputSpec,
        outputSpec: [],
        runSpec: { interpreter: 'bash', code, distribution: 'Ubuntu', release: '24.04' },
      })
    ).id;
  const { id: project } = await call('project/new', { name: 'monitor bench' });

  // ---- real jobs to copy from ----
  const apiBash = `api() { curl -sS --fail-with-body -X POST "$DX_APISERVER_PROTOCOL://$DX_APISERVER_HOST:$DX_APISERVER_PORT/$1/$2" -H "Authorization: Bearer $(jq -r .auth_token <<<"$DX_SECURITY_CONTEXT")" -H 'Content-Type: application/json' -d "$3"; }`;
  const scatter = await newApplet(
    'scatter',
    `${apiBash}
main() { api job new '{"function":"part","name":"part 0"}' >/dev/null; while [ ! -e "$gate" ]; do sleep 0.2; done; }
part() { echo "part done"; }`,
    [{ name: 'gate', class: 'string' }],
  );
  const { id: parent } = await call(`${scatter}/run`, { project, input: { gate }, name: `Scatter ${SUBJOBS} ways` });
  const single = await newApplet('single', `main() { while [ ! -e "$gate" ]; do sleep 0.2; done; }`, [{ name: 'gate', class: 'string' }]);
  const { id: lonely } = await call(`${single}/run`, { project, input: { gate }, name: 'One job' });
  const printer = await newApplet('printer', 'main() { echo "the big log starts"; }');
  const { id: bigLog } = await call(`${printer}/run`, { project, input: {}, name: 'A million lines' });
  await waitFor(parent, ['running']);
  await waitFor(lonely, ['running']);
  await waitFor(bigLog, ['done']);
  let child;
  for (let i = 0; i < 300 && !child; i++) {
    const found = await call('system/findExecutions', { parentJob: parent, describe: { fields: { state: true } } });
    child = found.results.find((r) => r.describe?.state === 'done')?.id;
    if (!child) await sleep(200);
  }
  if (!child) throw new Error('the real subjob did not finish');

  const seedStart = Date.now();
  const db = new Database(path.join(tmp, 'panx', 'panx.db'));
  db.pragma('busy_timeout = 10000');
  const template = db.prepare('select * from "jobs" where "id" = ?').get(child);
  const columns = Object.keys(template);
  const insertJob = db.prepare(`insert into "jobs" (${columns.map((c) => `"${c}"`).join(',')}) values (${columns.map(() => '?').join(',')})`);
  const insertLog = db.prepare(`insert into "jobLogs" ("jobId","try","timestamp","source","level","msg") values (?, 0, ?, 'APP', ?, ?)`);
  // In transactions of 20,000 rows, so that the server's own writes never wait long for the lock.
  db.transaction(() => {
    for (let i = 1; i < SUBJOBS; i++) {
      const row = { ...template, id: fakeId('job', 7_000_000 + i), name: `part ${i}`, created: template.created + i, modified: template.modified + i };
      insertJob.run(...columns.map((c) => row[c]));
    }
  })();
  const t0 = Date.now() - LINES;
  for (let from = 1; from <= LINES; from += 20_000) {
    db.transaction(() => {
      for (let i = from; i < Math.min(LINES + 1, from + 20_000); i++) {
        insertLog.run(
          bigLog,
          t0 + i,
          i % 50 === 0 ? 'STDERR' : 'STDOUT',
          `line ${i} of the big log: sample_${String(i % 9973).padStart(4, '0')}.bam aligned, ${i * 37} reads so far`,
        );
      }
    })();
  }
  db.close();
  console.log(
    `seeded ${SUBJOBS.toLocaleString('en-US')} subjobs and ${LINES.toLocaleString('en-US')} log lines in ${fmt((Date.now() - seedStart) / 1000)} s\n`,
  );

  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/panx/home`);
  await page.getByRole('textbox', { name: 'Username' }).fill('benchuser');
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/panx/login'));
  await page.addInitScript(() => {
    window.__longTasks = [];
    try {
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, duration: entry.duration });
      }).observe({ type: 'longtask', buffered: true });
    } catch {
      // no long-task timing in this browser
    }
    const observer = new MutationObserver(() => {
      if (window.__treePainted === undefined && document.querySelectorAll('[role="treeitem"][data-execution]').length >= 2) {
        window.__treePainted = -1;
        requestAnimationFrame(() => {
          window.__treePainted = performance.now();
        });
      }
    });
    observer.observe(document, { childList: true, subtree: true });
  });

  // ---- (a) the tree of 1,000 subjobs ----
  console.log('(a) opening the details page of the job with subjobs');
  const RUNS = Number(args.runs ?? 5);
  const tree = [];
  for (let run = 0; run < RUNS + 1; run++) {
    await page.goto(`${server.url}/panx/projects/${project}/monitor/job/${parent}`);
    await page.waitForFunction(() => typeof window.__treePainted === 'number' && window.__treePainted > 0, null, { timeout: 60_000 });
    const timing = await page.evaluate(() => {
      const finds = performance
        .getEntriesByType('resource')
        .filter((e) => e.name.endsWith('/system/findExecutions') && e.responseEnd <= window.__treePainted)
        .sort((a, b) => a.responseEnd - b.responseEnd);
      const last = finds[finds.length - 1];
      return {
        apiEnd: last?.responseEnd ?? Number.NaN,
        apiMs: last ? last.responseEnd - last.startTime : Number.NaN,
        painted: window.__treePainted,
        rows: document.querySelectorAll('[role="treeitem"][data-execution]').length,
      };
    });
    if (run > 0) tree.push({ apiMs: timing.apiMs, paintAfterApiMs: timing.painted - timing.apiEnd, navigationMs: timing.painted, rowsInDom: timing.rows });
  }
  const treeText = await page.locator('body').textContent();
  const treeCount = /([\d,]+) executions? in this tree/.exec(treeText)?.[1] ?? '?';

  // Responsiveness while the tree refreshes (every 5 s while the parent runs): 16 s of long tasks and
  // timer lateness, beside the page of a job without subjobs.
  const responsiveness = async (url) => {
    await page.goto(url);
    await page.locator('[role="treeitem"][data-execution]').first().waitFor({ timeout: 60_000 });
    await page.waitForTimeout(1000);
    return page.evaluate(async () => {
      const from = performance.now();
      const lateness = [];
      await new Promise((resolve) => {
        const tick = (expected) => {
          const now = performance.now();
          lateness.push(now - expected);
          if (now - from > 16_000) resolve();
          else {
            const next = performance.now() + 50;
            setTimeout(() => tick(next), 50);
          }
        };
        const first = performance.now() + 50;
        setTimeout(() => tick(first), 50);
      });
      const tasks = window.__longTasks.filter((t) => t.start >= from);
      const refreshes = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/system/findExecutions') && e.startTime >= from).length;
      return {
        longTasks: tasks.length,
        longTaskMs: tasks.reduce((sum, t) => sum + t.duration, 0),
        maxLongTaskMs: tasks.reduce((max, t) => Math.max(max, t.duration), 0),
        p95LatenessMs: [...lateness].sort((a, b) => a - b)[Math.floor(lateness.length * 0.95)],
        maxLatenessMs: Math.max(...lateness),
        findCalls: refreshes,
      };
    });
  };
  console.log('(a) watching the refreshes');
  const busy = await responsiveness(`${server.url}/panx/projects/${project}/monitor/job/${parent}`);
  const calm = await responsiveness(`${server.url}/panx/projects/${project}/monitor/job/${lonely}`);

  // ---- (b) the log of a million lines ----
  console.log('(b) loading the million-line log');
  const logStart = Date.now();
  await page.goto(`${server.url}/panx/projects/${project}/monitor/job/${bigLog}/log`);
  await page.waitForFunction(
    (lines) => {
      const viewer = document.querySelector('[data-testid="log-viewer"]');
      return viewer && Number(viewer.getAttribute('data-lines')) >= lines && viewer.getAttribute('data-status') === 'ended';
    },
    LINES,
    { timeout: 15 * 60_000, polling: 250 },
  );
  const loadSeconds = (Date.now() - logStart) / 1000;
  const heapMiB = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize / 1024 / 1024 : Number.NaN));
  // `smooth`: 120 px a frame; `jumps`: a random place every frame (the worst case: every row is new).
  const scrollIn = (selector, mode) =>
    page.evaluate(
      async ({ target, mode }) => {
        const scroller = document.querySelector(target);
        scroller.scrollTop = 0;
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const frames = [];
        let maxRows = 0;
        const start = performance.now();
        let last = start;
        await new Promise((resolve) => {
          const step = (time) => {
            frames.push(time - last);
            last = time;
            if (mode === 'jumps') scroller.scrollTop = Math.random() * (scroller.scrollHeight - scroller.clientHeight);
            else scroller.scrollTop += 120;
            maxRows = Math.max(maxRows, scroller.querySelectorAll('[data-line], .row').length);
            if (time - start < 3000) requestAnimationFrame(step);
            else resolve();
          };
          requestAnimationFrame(step);
        });
        const seconds = (performance.now() - start) / 1000;
        const sorted = frames.slice(1).sort((a, b) => a - b);
        return {
          fps: frames.length / seconds,
          p95FrameMs: sorted[Math.floor(sorted.length * 0.95)],
          longFrames: sorted.filter((f) => f > 50).length,
          maxRows,
          height: scroller.scrollHeight,
        };
      },
      { target: selector, mode },
    );
  console.log('(b) scrolling');
  const logScroll = await scrollIn('[data-testid="log-scroller"]', 'smooth');
  const logJumps = await scrollIn('[data-testid="log-scroller"]', 'jumps');
  // Baseline: a plain page of the same height, scrolled the same way.
  await page.goto(`${server.url}/error/error.html`);
  await page.evaluate((height) => {
    document.body.innerHTML = '';
    const box = document.createElement('div');
    box.className = 'baseline';
    box.style.cssText = 'height:600px;overflow:auto;font:12.5px monospace';
    const inner = document.createElement('div');
    inner.style.height = `${height}px`;
    inner.style.position = 'relative';
    for (let i = 0; i < 40; i++) {
      const row = document.createElement('div');
      row.className = 'row';
      row.textContent = `line ${i}`;
      inner.appendChild(row);
    }
    box.appendChild(inner);
    document.body.appendChild(box);
  }, logScroll.height);
  const baseScroll = await scrollIn('.baseline', 'smooth');
  const baseJumps = await scrollIn('.baseline', 'jumps');

  // Latency: a running job prints "ping <ms>" every 250 ms; the LogViewer and a bare websocket client follow it.
  console.log('(b) following a live job');
  const pinger = await newApplet('pinger', `main() { sleep 3; for i in $(seq 1 ${PINGS}); do echo "ping $(date +%s%3N)"; sleep 0.25; done; }`);
  const { id: live } = await call(`${pinger}/run`, { project, input: {}, name: 'Pinger' });
  await waitFor(live, ['running']);
  const wsSeen = new Map();
  const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/${live}/getLog/websocket`);
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data));
    const match = /^ping (\d+)$/.exec(frame.msg);
    if (match && !wsSeen.has(match[1])) wsSeen.set(match[1], Date.now() - Number(match[1]));
  });
  socket.once('open', () => socket.send(JSON.stringify({ access_token: token, token_type: 'Bearer', tail: true, numRecentMessages: 0 })));
  await page.goto(`${server.url}/panx/projects/${project}/monitor/job/${live}/log`);
  await page.evaluate(() => {
    window.__pings = {};
    const observer = new MutationObserver(() => {
      for (const node of document.querySelectorAll('[data-msg]')) {
        const match = /^ping (\d+)$/.exec(node.textContent ?? '');
        if (match && window.__pings[match[1]] === undefined) {
          window.__pings[match[1]] = -1;
          requestAnimationFrame(() => {
            window.__pings[match[1]] = Date.now() - Number(match[1]);
          });
        }
      }
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  });
  await waitFor(live, ['done', 'failed'], 120_000);
  await page.waitForTimeout(1500);
  socket.close();
  const pagePings = Object.values(await page.evaluate(() => window.__pings)).filter((v) => v >= 0);
  const wsPings = [...wsSeen.values()];
  fs.writeFileSync(gate, '');

  const treeSummary = {
    apiMs: median(tree.map((r) => r.apiMs)),
    paintAfterApiMs: median(tree.map((r) => r.paintAfterApiMs)),
    navigationMs: median(tree.map((r) => r.navigationMs)),
  };
  console.log(`\n(a) details page of a job with ${treeCount} executions in its tree (median of ${RUNS} loads); 16 s of refreshes\n`);
  printTable(
    ['measure', 'value', 'baseline', 'ratio', 'target', 'pass'],
    [
      ['findExecutions (last page of the tree)', `${fmt(treeSummary.apiMs, 0)} ms`, '', '', '', ''],
      [
        'tree painted after the API answered',
        `${fmt(treeSummary.paintAfterApiMs, 0)} ms`,
        `${fmt(treeSummary.apiMs, 0)} ms (the API call)`,
        `${fmt(treeSummary.paintAfterApiMs / treeSummary.apiMs, 2)}×`,
        '≤ 1000 ms',
        treeSummary.paintAfterApiMs <= 1000 ? 'yes' : 'no',
      ],
      ['navigation → tree painted', `${fmt(treeSummary.navigationMs, 0)} ms`, '', '', '', ''],
      ['tree refreshes seen (findExecutions calls)', String(busy.findCalls), String(calm.findCalls), '', '', ''],
      [
        'long tasks while refreshing (count, total)',
        `${busy.longTasks}, ${fmt(busy.longTaskMs, 0)} ms`,
        `${calm.longTasks}, ${fmt(calm.longTaskMs, 0)} ms (one job)`,
        '',
        '',
        '',
      ],
      ['longest task', `${fmt(busy.maxLongTaskMs, 0)} ms`, `${fmt(calm.maxLongTaskMs, 0)} ms`, '', '< 200 ms', busy.maxLongTaskMs < 200 ? 'yes' : 'no'],
      [
        'timer lateness p95 / max',
        `${fmt(busy.p95LatenessMs, 0)} / ${fmt(busy.maxLatenessMs, 0)} ms`,
        `${fmt(calm.p95LatenessMs, 0)} / ${fmt(calm.maxLatenessMs, 0)} ms`,
        '',
        '',
        '',
      ],
    ],
  );
  console.log(`\n(b) LogViewer: ${LINES.toLocaleString('en-US')} lines; scrolling 3 s each way; ${PINGS} live pings\n`);
  printTable(
    ['measure', 'LogViewer', 'baseline', 'ratio', 'target', 'pass'],
    [
      ['whole log held (REST pages, then the websocket)', `${fmt(loadSeconds, 1)} s`, '', '', '', ''],
      ['JS heap with the log loaded', `${fmt(heapMiB, 0)} MiB`, '', '', '', ''],
      [
        'scrolling 120 px a frame',
        `${fmt(logScroll.fps, 1)} frames/s (p95 ${fmt(logScroll.p95FrameMs, 1)} ms, ${logScroll.longFrames} > 50 ms)`,
        `${fmt(baseScroll.fps, 1)} frames/s (static page, same height)`,
        `${fmt(logScroll.fps / baseScroll.fps, 2)}×`,
        '≥ 55 frames/s',
        logScroll.fps >= 55 ? 'yes' : 'no',
      ],
      [
        'a random place every frame',
        `${fmt(logJumps.fps, 1)} frames/s (p95 ${fmt(logJumps.p95FrameMs, 1)} ms, ${logJumps.longFrames} > 50 ms)`,
        `${fmt(baseJumps.fps, 1)} frames/s`,
        `${fmt(logJumps.fps / baseJumps.fps, 2)}×`,
        '',
        '',
      ],
      ['rows in the DOM while scrolling (max)', String(logScroll.maxRows), '', '', '', ''],
      [
        'job prints → line painted (median / p95)',
        `${fmt(median(pagePings), 0)} / ${fmt(p95(pagePings), 0)} ms (${pagePings.length} lines)`,
        `${fmt(median(wsPings), 0)} / ${fmt(p95(wsPings), 0)} ms (bare websocket, ${wsPings.length})`,
        `${fmt(median(pagePings) / median(wsPings), 2)}×`,
        '≤ 500 ms',
        p95(pagePings) <= 500 ? 'yes' : 'no',
      ],
    ],
  );
  saveResults('monitor', {
    subjobs: SUBJOBS,
    lines: LINES,
    tree,
    treeSummary,
    busy,
    calm,
    loadSeconds,
    heapMiB,
    logScroll,
    logJumps,
    baseScroll,
    baseJumps,
    pagePings,
    wsPings,
  });
} finally {
  if (fs.existsSync(tmp)) fs.writeFileSync(gate, '');
  await browser?.close();
  await server.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
