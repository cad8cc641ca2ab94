/**
 * End-to-end tests of the executions list and execution details (issue 6, parts 6–8) in headless
 * Chromium against a real server running real jobs: a job with subjobs and its tree, a job that fails
 * and restarts (one tab per try, the try-number route rules), terminating running jobs from the list
 * (several selected), re-running an analysis from its failed stage (the finished stage reused), state
 * colours, a VIEW member who cannot terminate, and the project-less execution path.
 * Screenshots go to test-results/screenshots/monitor-*.png.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import type { PanxClient } from '@panx/client';
import { type Account, type Browser, browserAvailable, CHROMIUM, createAccount, launchBrowser, shoot, webDir } from './browser.js';

// Helpers of their own (the server's test helpers bring Node-only types the web app's DOM lib does not check).

/** Bash for applets that call the API with their job token: `api SUBJECT METHOD JSON`. */
const API_BASH = String.raw`
api() {
  curl -sS --fail-with-body -X POST "$DX_APISERVER_PROTOCOL://$DX_APISERVER_HOST:$DX_APISERVER_PORT/$1/$2" \
    -H "Authorization: Bearer $(jq -r .auth_token <<<"$DX_SECURITY_CONTEXT")" -H 'Content-Type: application/json' -d "$3"
}
`;

async function newApplet(
  client: PanxClient,
  project: string,
  options: { name: string; code: string; inputSpec?: unknown[]; outputSpec?: unknown[] },
): Promise<string> {
  const { id } = await client.call('applet/new', {
    project,
    name: options.name,
    dxapi: '1.0.0',
    inputSpec: options.inputSpec ?? [],
    outputSpec: options.outputSpec ?? [],
    runSpec: { interpreter: 'bash', code: options.code, distribution: 'Ubuntu', release: '24.04' },
  } as never);
  return id;
}

type JobDescribe = Record<string, unknown> & { id: string; state: string };

async function describeJob(client: PanxClient, id: string): Promise<JobDescribe> {
  return (await client.call('job-xxxx/describe', id, {})) as JobDescribe;
}

/** Waits until the job is in one of `states` (default: a terminal one). */
async function waitForJob(client: PanxClient, id: string, states = ['done', 'failed', 'terminated'], timeoutMs = 60_000): Promise<JobDescribe> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await describeJob(client, id);
    if (states.includes(job.state)) return job;
    if (Date.now() > deadline) throw new Error(`${id} stayed ${job.state} (waiting for ${states.join('|')})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it.runIf(!browserAvailable && process.env.PANX_E2E_REQUIRED === '1')('has Chromium and the built web app for the monitor end-to-end suite', () => {
  expect({ chromium: fs.existsSync(CHROMIUM), webBuild: fs.existsSync(path.join(webDir, 'index.html')) }).toEqual({ chromium: true, webBuild: true });
});

describe.skipIf(!browserAvailable)('executions list and details in Chromium', { timeout: 120_000 }, () => {
  let server: TestPlatform;
  let browser: Browser;
  let alice: Account;
  let bob: Account;
  let project: string;
  let scratch: string;
  let parentJob: string;
  let flakyJob: string;
  let failedJob: string;

  const run = async (applet: string, input: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    ((await alice.client.post(applet, 'run', { project, input, ignoreReuse: true, ...extra })) as { id: string }).id;
  const monitor = () => `/panx/projects/${project}/monitor`;
  const details = (id: string, rest = '') => `${monitor()}/${id.startsWith('analysis-') ? 'analysis' : 'job'}/${id}${rest}`;
  const listRow = (page: Page, id: string) => page.locator(`[data-execution="${id}"]`).first();
  const waitForAnalysis = async (id: string, states = ['done', 'failed', 'terminated']) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const analysis = (await alice.client.call('analysis-xxxx/describe', id, {})) as unknown as {
        state: string;
        stages: { id: string; execution: Record<string, unknown> }[];
      };
      if (states.includes(analysis.state)) return analysis;
      if (Date.now() > deadline) throw new Error(`${id} stayed ${analysis.state}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  };

  beforeAll(async () => {
    // Room for several jobs at once (the host may have two cores; each job asks for two).
    // (The harness parses `engine` with the configuration schema, defaults filled in; its type names the parsed shape.)
    const engine = { tickMs: 100, local: { cores: 16, memoryMB: 64_000 } } as unknown as NonNullable<Parameters<typeof startTestPlatform>[1]>['engine'];
    server = await startTestPlatform(undefined, { webDir, engine });
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-monitor-'));
    alice = await createAccount(server, 'alice');
    bob = await createAccount(server, 'bob');
    project = (await alice.client.call('project/new', { name: 'Monitored' })).id;
    await alice.client.call('project-xxxx/invite', project, { invitee: bob.id, level: 'VIEW', suppressEmailNotification: true });

    // A job with three subjobs.
    const parent = await newApplet(alice.client, project, {
      name: 'scatter',
      code: `${API_BASH}
main() { for i in 1 2 3; do api job new "{\\"function\\":\\"part\\",\\"name\\":\\"part $i\\"}" >/dev/null; done; echo scattered; }
part() { echo "part done"; }`,
    });
    parentJob = await run(parent, {}, { name: 'Scatter three ways' });
    // A job whose first try fails and whose second works (executionPolicy.restartOn).
    const flaky = await newApplet(alice.client, project, {
      name: 'flaky',
      inputSpec: [{ name: 'marker', class: 'string' }],
      code: `main() { if [ ! -e "$marker" ]; then touch "$marker"; echo "first try fails"; exit 3; fi; echo "second try works"; }`,
    });
    flakyJob = await run(flaky, { marker: path.join(scratch, 'flaky-tried') }, { name: 'Flaky once', executionPolicy: { restartOn: { AppInternalError: 1 } } });
    const broken = await newApplet(alice.client, project, { name: 'broken', code: 'main() { echo "no luck" >&2; exit 4; }' });
    failedJob = await run(broken, {}, { name: 'Always fails' });
    expect((await waitForJob(alice.client, parentJob)).state).toBe('done');
    expect(await waitForJob(alice.client, flakyJob)).toMatchObject({ state: 'done', try: 1 });
    expect((await waitForJob(alice.client, failedJob)).state).toBe('failed');
    browser = await launchBrowser(server, 'monitor');
  }, 120_000);

  afterEach(() => {
    expect(browser?.problems ?? []).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('lists the project’s top-level executions with coloured states; a job’s subjobs expand as a tree', async () => {
    const page = await browser.signedInPage(alice, monitor());
    await expect.poll(() => listRow(page, parentJob).isVisible()).toBe(true);
    // Subjobs are not top-level rows.
    expect(await page.locator('[data-execution][data-depth="0"]').count()).toBe(3);
    const badge = (id: string) => listRow(page, id).locator('[data-state]');
    expect(await badge(parentJob).getAttribute('data-color')).toBe('green');
    expect(await badge(failedJob).getAttribute('data-color')).toBe('red');
    expect(await badge(failedJob).innerText()).toBe('Failed');
    expect(await listRow(page, parentJob).innerText()).toMatch(/Scatter three ways[\s\S]*Done[\s\S]*scatter[\s\S]*alice/);
    await expect.poll(() => page.getByTestId('running-count').innerText()).toBe('0 running');

    await page.getByRole('button', { name: 'Expand subjobs of Scatter three ways' }).click();
    await expect.poll(() => page.locator('[data-execution][data-depth="1"]').count()).toBe(3);
    const subjobs = await page.locator('[data-execution][data-depth="1"]').evaluateAll((rows) => rows.map((row) => row.textContent ?? ''));
    for (const name of ['part 1', 'part 2', 'part 3']) expect(subjobs.join(' ')).toContain(name);
    await shoot(page, 'monitor-list');

    // Filters: by state through the shared per-page filter state, then cleared.
    await page.getByRole('textbox', { name: 'Name' }).fill('always');
    await expect.poll(() => page.locator('[data-execution][data-depth="0"]').count()).toBe(1);
    expect(await listRow(page, failedJob).isVisible()).toBe(true);
    await page.getByRole('textbox', { name: 'Name' }).fill('nothing like this');
    await expect.poll(() => page.locator('[data-empty-state]').innerText()).toContain('No execution matches these filters');
    await shoot(page, 'monitor-list-no-match');
    await page.getByRole('button', { name: /Clear filters/ }).click();
    await expect.poll(() => page.locator('[data-execution][data-depth="0"]').count()).toBe(3);

    // A row's log opens in the job-log modal.
    await page.getByRole('button', { name: 'Log of Always fails' }).click();
    const logDialog = page.getByRole('dialog', { name: /Log of Always fails/ });
    await expect.poll(() => logDialog.innerText(), { timeout: 15_000 }).toContain('no luck');
    await shoot(page, 'monitor-list-log-modal');
    await page.keyboard.press('Escape');
    await expect.poll(() => logDialog.count()).toBe(0);
    await page.close();
  });

  it('says so when nothing has run, and when a path names no execution', async () => {
    const { id: empty } = await alice.client.call('project/new', { name: 'Quiet' });
    const page = await browser.signedInPage(alice, `/panx/projects/${empty}/monitor`);
    await expect.poll(() => page.locator('[data-empty-state]').innerText()).toContain('Nothing has run in this project yet');
    expect(await page.getByTestId('terminate-selected').isDisabled()).toBe(true);
    await shoot(page, 'monitor-list-empty');
    await page.goto(`${server.url}/panx/projects/${empty}/monitor/job/not-a-job`);
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('is not a job ID');
    await page.goto(`${server.url}/panx/projects/${empty}/monitor/job/job-000000000000000000000000`);
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Could not load this execution');
    await shoot(page, 'monitor-details-missing');
    await page.close();
  });

  it('shows a job’s tree, facts, timeline, inputs and outputs; the project-less path leads there', async () => {
    const page = await browser.signedInPage(alice, `/panx/executions/${parentJob}`);
    await page.waitForURL((url) => url.pathname === details(parentJob));
    await expect.poll(() => page.locator('[role="treeitem"]').count()).toBe(4);
    expect(await page.locator(`[role="treeitem"][data-execution="${parentJob}"]`).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByTestId('execution-name').innerText()).toBe('Scatter three ways');
    await expect.poll(() => page.getByTestId('timeline').innerText()).toMatch(/Idle[\s\S]*Running[\s\S]*Done/);
    expect(await page.getByTestId('cost').innerText()).toMatch(/^COST\n(\$0\.00|<\$0\.01|\$[0-9.]+)$/);
    await shoot(page, 'monitor-job-details');
    // Open in runner: the runner prefills from the execution (?from=); a subjob has no such action.
    expect(await page.getByTestId('open-in-runner').getAttribute('href')).toMatch(
      new RegExp(`^/panx/projects/${project}/run/applet-[0-9A-Za-z]+\\?from=${parentJob}$`),
    );

    // A subjob from the tree: its own page, the tree still there with it selected.
    await page.locator('[role="treeitem"]', { hasText: 'part 2' }).click();
    await expect.poll(() => page.getByTestId('execution-name').innerText()).toBe('part 2');
    expect(page.url()).toMatch(/\/monitor\/job\/job-[0-9A-Za-z]+$/);
    expect(await page.getByText(/Subjob of job-/).isVisible()).toBe(true);
    expect(await page.getByTestId('open-in-runner').count()).toBe(0);

    await page.getByRole('tab', { name: 'Inputs and outputs' }).click();
    await page.waitForURL(/\/io$/);
    await expect.poll(() => page.getByText('No inputs').first().isVisible()).toBe(true);
    await page.close();
  });

  it('gives a job that restarted one tab per try, and follows the try-number route rules', async () => {
    const page = await browser.signedInPage(alice, details(flakyJob));
    await expect.poll(() => page.getByTestId('try-tabs').locator('[role="tab"]').count()).toBe(2);
    expect(await page.getByRole('tab', { name: 'Try 1 (latest)' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('tab', { name: 'Try 0' }).click();
    await page.waitForURL((url) => url.pathname === details(flakyJob, '/try/0'));
    await expect.poll(() => page.getByTestId('failure').innerText()).toContain('AppInternalError');
    expect(await page.locator('[data-testid="execution-name"] + [data-state]').getAttribute('data-state')).toBe('failed');
    await shoot(page, 'monitor-try-0');
    // The log of that try only.
    await page.getByRole('tab', { name: 'Log' }).click();
    await page.waitForURL((url) => url.pathname === details(flakyJob, '/try/0/log'));
    await expect.poll(() => page.getByTestId('log-slot').innerText(), { timeout: 15_000 }).toContain('first try fails');
    expect(await page.getByTestId('log-slot').innerText()).not.toContain('second try works');
    await shoot(page, 'monitor-try-0-log');

    // Non-canonical try numbers redirect to the canonical one; invalid ones to the details path.
    await page.goto(`${server.url}${details(flakyJob, '/try/00/io')}`);
    await page.waitForURL((url) => url.pathname === details(flakyJob, '/try/0/io'));
    await page.goto(`${server.url}${details(flakyJob, '/try/first')}`);
    await page.waitForURL((url) => url.pathname === details(flakyJob));
    await expect.poll(() => page.getByRole('tab', { name: 'Try 1 (latest)' }).getAttribute('aria-selected')).toBe('true');
    // The latest try by its number is the latest tab.
    await page.goto(`${server.url}${details(flakyJob, '/try/1')}`);
    await expect.poll(() => page.getByRole('tab', { name: 'Try 1 (latest)' }).getAttribute('aria-selected')).toBe('true');
    // A try the job never had says so.
    await page.goto(`${server.url}${details(flakyJob, '/try/7')}`);
    await expect.poll(() => page.getByTestId('no-such-try').innerText()).toContain('tries 0 to 1');
    await page.close();
  });

  it('terminates several running jobs selected in the list, after confirming', async () => {
    const sleeper = await newApplet(alice.client, project, { name: 'sleeper', code: 'main() { sleep 300; }' });
    const first = await run(sleeper, {}, { name: 'Sleep one' });
    const second = await run(sleeper, {}, { name: 'Sleep two' });
    await waitForJob(alice.client, first, ['running']);
    await waitForJob(alice.client, second, ['running']);
    const page = await browser.signedInPage(alice, monitor());
    await expect.poll(() => listRow(page, second).locator('[data-state]').getAttribute('data-state')).toBe('running');
    await expect.poll(() => page.getByTestId('running-count').innerText()).toBe('2 running');
    expect(await listRow(page, first).locator('[data-state]').getAttribute('data-color')).toBe('blue');
    expect(await page.getByTestId('terminate-selected').isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: 'Select Sleep one' }).check();
    await page.getByRole('checkbox', { name: 'Select Sleep two' }).check();
    await page.getByRole('checkbox', { name: 'Select Always fails' }).check();
    // Only the running ones are terminated.
    await expect.poll(() => page.getByTestId('terminate-selected').innerText()).toBe('Terminate (2)');
    await page.getByTestId('terminate-selected').click();
    const dialog = page.getByRole('dialog', { name: 'Terminate executions?' });
    await expect.poll(() => dialog.getByTestId('terminate-list').innerText()).toMatch(/Sleep one[\s\S]*Sleep two/);
    expect(await dialog.getByTestId('terminate-list').innerText()).not.toContain('Always fails');
    await shoot(page, 'monitor-terminate-confirm');
    await dialog.getByRole('button', { name: 'Terminate' }).click();
    expect((await waitForJob(alice.client, first, ['terminated'], 30_000)).state).toBe('terminated');
    expect((await waitForJob(alice.client, second, ['terminated'], 30_000)).state).toBe('terminated');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => listRow(page, first).locator('[data-state]').getAttribute('data-state'), { timeout: 20_000 }).toBe('terminated');
    expect(await listRow(page, first).locator('[data-state]').getAttribute('data-color')).toBe('dark');
    await page.close();
  });

  it('re-runs an analysis from its failed stage, reusing the finished one', async () => {
    const produce = await newApplet(alice.client, project, {
      name: 'produce',
      outputSpec: [{ name: 'word', class: 'string' }],
      code: `main() { echo '{"word": "hello"}' > job_output.json; }`,
    });
    const consume = await newApplet(alice.client, project, {
      name: 'consume',
      inputSpec: [
        { name: 'word', class: 'string' },
        { name: 'marker', class: 'string' },
      ],
      outputSpec: [{ name: 'shout', class: 'string' }],
      code: `main() { if [ ! -e "$marker" ]; then touch "$marker"; echo "not yet" >&2; exit 5; fi; sleep 3; echo "{\\"shout\\": \\"\${word^^}\\"}" > job_output.json; }`,
    });
    const { id: workflow } = await alice.client.call('workflow/new', {
      project,
      name: 'shout pipeline',
      stages: [
        { id: 'stage-produce', executable: produce },
        {
          id: 'stage-consume',
          executable: consume,
          input: { word: { $dnanexus_link: { stage: 'stage-produce', outputField: 'word' } }, marker: path.join(scratch, 'consume-tried') },
        },
      ],
    });
    const analysis = await alice.client.call('workflow-xxxx/run', workflow, { project, input: {}, name: 'Shout it' });
    const failed = await waitForAnalysis(analysis.id);
    expect(failed.state).toBe('failed');

    const page = await browser.signedInPage(alice, details(analysis.id));
    await expect.poll(() => page.locator('[role="treeitem"]').count()).toBe(3);
    // The stages in the workflow's order, though their jobs were created at the same moment.
    expect(await page.locator('[role="treeitem"]').evaluateAll((items) => items.map((item) => item.getAttribute('aria-level')))).toEqual(['1', '2', '2']);
    await expect
      .poll(() => page.locator('[role="treeitem"]').allInnerTexts())
      .toEqual([expect.stringContaining('Shout it'), expect.stringContaining('produce'), expect.stringContaining('consume')]);
    await expect.poll(() => page.getByTestId('stages').innerText()).toMatch(/Done[\s\S]*Failed/);
    expect(await page.getByTestId('failure').innerText()).toContain('stage-consume');
    await shoot(page, 'monitor-analysis-failed');
    // A failed execution can be reported to the platform's support.
    await page.getByTestId('report-problem').click();
    await expect.poll(() => page.getByRole('dialog', { name: 'Report a problem with this execution' }).isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await page.getByTestId('rerun-failed').click();
    const dialog = page.getByRole('dialog', { name: 'Re-run from the failed stage?' });
    await expect.poll(() => dialog.innerText()).toContain('stage-consume');
    const unread = async () =>
      Number((await page.getByRole('button', { name: /^Notifications, / }).getAttribute('aria-label'))?.match(/(\d+) unread/)?.[1] ?? 0);
    const unreadBefore = await unread();
    await dialog.getByTestId('confirm-rerun-failed').click();
    await page.waitForURL((url) => /\/monitor\/analysis\/analysis-/.test(url.pathname) && !url.pathname.includes(analysis.id));
    const rerunId = page.url().match(/analysis-[0-9A-Za-z]+/)?.[0] as string;
    const rerun = await waitForAnalysis(rerunId);
    expect(rerun.state).toBe('done');
    expect(rerun.stages.map((stage) => stage.execution.outputReusedFrom)).toEqual([failed.stages[0]?.execution.id, null]);
    await expect.poll(() => page.locator('[data-testid="execution-name"] + [data-state]').getAttribute('data-state'), { timeout: 20_000 }).toBe('done');
    // The page saw the analysis it launched end: the bell has its notification without waiting for its 30 s poll.
    await expect.poll(unread, { timeout: 10_000 }).toBe(unreadBefore + 1);
    await page.getByRole('tab', { name: 'Inputs and outputs' }).click();
    await expect.poll(() => page.getByTestId('io-outputs').innerText()).toContain('HELLO');
    await shoot(page, 'monitor-analysis-rerun');
    await page.close();
  });

  it('keeps a tree of 1,000 subjobs responsive: virtualised rows, keyboard to the end, refreshes', async () => {
    // One real subjob waits for a blocker (so the tree stays active and refreshes every 5 s); 999 finished
    // copies of it are seeded straight into the server's SQLite database (the API would take minutes).
    const blocker = await run(await newApplet(alice.client, project, { name: 'blocker', code: 'main() { sleep 600; }' }), {}, { name: 'Blocker' });
    const wide = await newApplet(alice.client, project, {
      name: 'fan_out',
      code: `${API_BASH}
main() { api job new '{"function":"part","name":"piece 0","dependsOn":["${blocker}"]}' >/dev/null; }
part() { echo never; }`,
    });
    const fan = await run(wide, {}, { name: 'Fan out a thousand' });
    await waitForJob(alice.client, fan, ['waiting_on_output', 'failed', 'done']);
    const [real] = (await alice.client.call('system/findExecutions', { parentJob: fan })).results;
    expect(real?.id).toMatch(/^job-/);
    const db = new Database(server.platform.config.sqlitePath);
    const columns = (db.prepare(`pragma table_info("jobs")`).all() as { name: string }[]).map((column) => column.name);
    const replaced: Record<string, string> = { id: '?', name: '?', state: "'done'", created: '"created" + ?', tokenId: 'null' };
    const copy = db.prepare(
      `insert into "jobs" (${columns.map((c) => `"${c}"`).join(',')}) select ${columns.map((c) => replaced[c] ?? `"${c}"`).join(',')} from "jobs" where "id" = ?`,
    );
    db.transaction(() => {
      for (let i = 1; i < 1000; i++) copy.run(`job-Copy${String(i).padStart(20, '0')}`, `piece ${i}`, i, real?.id);
    })();
    db.close();

    const page = await browser.signedInPage(alice, details(fan));
    const started = Date.now();
    await expect.poll(() => page.getByText('1001 executions in this tree').isVisible(), { timeout: 20_000 }).toBe(true);
    const shownAfter = Date.now() - started;
    // Only the rows on screen are in the document.
    const drawn = await page.locator('[role="treeitem"]').count();
    expect(drawn).toBeGreaterThan(5);
    expect(drawn).toBeLessThan(80);
    await page.getByRole('tree', { name: 'Execution tree' }).focus();
    await page.keyboard.press('End');
    await expect.poll(() => page.locator('[role="treeitem"]').last().innerText()).toContain('piece 999');
    // The page still draws frames while the tree refreshes every 5 s.
    const slowest = await page.evaluate(async () => {
      let worst = 0;
      let last = performance.now();
      const until = last + 6_000;
      while (performance.now() < until) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const now = performance.now();
        worst = Math.max(worst, now - last);
        last = now;
      }
      return worst;
    });
    expect(slowest).toBeLessThan(1_000);
    await shoot(page, 'monitor-thousand-subjobs');
    console.log(
      `[e2e] 1,000 subjobs: tree shown ${shownAfter} ms after the page opened, ${drawn} rows drawn, slowest frame while refreshing ${Math.round(slowest)} ms`,
    );
    await alice.client.call('job-xxxx/terminate', fan, {});
    await alice.client.call('job-xxxx/terminate', blocker, {});
    await page.close();
  });

  it('shows a VIEW member the executions but not how to terminate them, and says why', async () => {
    const sleeper = await newApplet(alice.client, project, { name: 'sleeper2', code: 'main() { sleep 300; }' });
    const running = await run(sleeper, {}, { name: 'Long sleep' });
    await waitForJob(alice.client, running, ['running']);
    const page = await browser.signedInPage(bob, monitor());
    await expect.poll(() => page.getByTestId('view-only').innerText()).toContain('VIEW access');
    await expect.poll(() => listRow(page, running).isVisible()).toBe(true);
    // Toggles only where there are subjobs, even beside a job with 1,000 of them.
    await expect.poll(() => page.getByRole('button', { name: 'Expand subjobs of Fan out a thousand' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('button', { name: 'Expand subjobs of Long sleep' }).count()).toBe(0);
    await page.getByRole('checkbox', { name: 'Select Long sleep' }).check();
    expect(await page.getByTestId('terminate-selected').isDisabled()).toBe(true);
    await page.getByTestId('terminate-selected').hover({ force: true });
    await expect.poll(() => page.getByRole('tooltip').innerText()).toContain('CONTRIBUTE');
    await shoot(page, 'monitor-view-only');

    await page.goto(`${server.url}${details(running)}`);
    await expect.poll(() => page.getByTestId('terminate').isDisabled()).toBe(true);
    // The API refuses too, whatever the page shows.
    await expect(bob.client.call('job-xxxx/terminate', running, {})).rejects.toMatchObject({ type: 'PermissionDenied' });
    expect((await describeJob(alice.client, running)).state).toBe('running');
    await alice.client.call('job-xxxx/terminate', running, {});
    await page.close();
  });
});
