/**
 * The live job log in headless Chromium against a real server and a real job that prints to stdout and
 * stderr slowly: lines appear live with their numbers, search, the level filter, the download holds
 * every line, a `<script>` line shows as text, the websocket dropped twice (by the network between page
 * and server, and as a server restart would) loses and repeats nothing; a failure report sent from the
 * modal reaches the administrators' inbox. Screenshots: test-results/screenshots/monitor-log-*.png.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page, WebSocketRoute } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newApplet, waitForJob } from '../../server/test/engine-helpers.js';
import { startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { type Account, type Browser, browserAvailable, CHROMIUM, createAccount, launchBrowser, shoot, shotsDir, webDir } from './browser.js';

it.runIf(!browserAvailable && process.env.PANX_E2E_REQUIRED === '1')('has Chromium and the built web app for the log end-to-end suite', () => {
  expect({ chromium: fs.existsSync(CHROMIUM), webBuild: fs.existsSync(path.join(webDir, 'index.html')) }).toEqual({ chromium: true, webBuild: true });
});

const TICKS = 80;

describe.skipIf(!browserAvailable)('the live job log in Chromium', { timeout: 180_000 }, () => {
  let server: TestPlatform;
  let browser: Browser;
  let alice: Account;
  let project: string;
  let scratch: string;
  let job: string;
  let gate: string;

  beforeAll(async () => {
    server = await startTestPlatform(undefined, { webDir, engine: { tickMs: 100 } });
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-monitor-log-'));
    gate = path.join(scratch, 'gate');
    alice = await createAccount(server, 'logreader');
    project = (await alice.client.call('project/new', { name: 'Logs' })).id;
    const applet = await newApplet(alice.client, project, {
      name: 'talker',
      inputSpec: [{ name: 'gate', class: 'string' }],
      code: `main() {
  for i in $(seq 1 40); do echo "tick $i"; if [ $((i % 10)) = 0 ]; then echo "warn $i" >&2; fi; sleep 0.1; done
  echo '<script>document.title="pwned"</script><img src=x onerror="document.title=1">'
  echo "needle-marker: the one line to find"
  while [ ! -e "$gate" ]; do sleep 0.1; done
  for i in $(seq 41 ${TICKS}); do echo "tick $i"; sleep 0.1; done
  echo "bye" >&2
}`,
    });
    job = ((await alice.client.post(applet, 'run', { project, input: { gate }, name: 'Talker' })) as { id: string }).id;
    browser = await launchBrowser(server, 'monitor-log');
  }, 120_000);

  afterEach(() => {
    expect(browser.problems).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  const viewer = (page: Page) => page.getByTestId('log-viewer');
  const rowWith = (page: Page, text: string) => page.locator('[data-line]').filter({ hasText: text });

  it('follows the job live over the websocket; a dropped connection resumes without losing or repeating a line', async () => {
    const page = await browser.signedInPage(alice, `/panx/projects/${project}/monitor`);
    // Every log socket goes through this proxy, which can drop the page's side of it.
    const routes: WebSocketRoute[] = [];
    await page.routeWebSocket(/\/getLog\/websocket$/, (ws) => {
      routes.push(ws);
      ws.connectToServer();
    });
    await page.goto(`${server.url}/panx/projects/${project}/monitor/job/${job}/log`);
    await expect.poll(() => viewer(page).getAttribute('data-status'), { timeout: 30_000 }).toBe('live');
    await rowWith(page, 'tick 3').first().waitFor({ timeout: 30_000 });
    await shoot(page, 'monitor-log-live');

    // 1. The network between page and server drops (abnormal close seen by the page) while lines flow.
    await routes[0]?.close({ code: 1011, reason: 'network drop' });
    await expect.poll(() => viewer(page).getAttribute('data-reconnects'), { timeout: 10_000 }).toBe('1');
    await expect.poll(() => routes.length, { timeout: 15_000 }).toBe(2);
    await expect.poll(() => viewer(page).getAttribute('data-status'), { timeout: 15_000 }).toBe('live');
    await rowWith(page, 'needle-marker').waitFor({ timeout: 30_000 });

    // 2. The page is told the server restarts (1001, what `closeAll` sends): it reconnects again.
    await routes[1]?.close({ code: 1001, reason: 'Server restart, please reconnect later' });
    await expect.poll(() => routes.length, { timeout: 15_000 }).toBe(3);
    fs.writeFileSync(gate, '');
    await expect.poll(() => viewer(page).getAttribute('data-status'), { timeout: 60_000 }).toBe('ended');
    // The page's own state badge follows at once, not at its next 5 s poll.
    const badge = page.locator('[data-testid="execution-name"] + [data-state]');
    await expect.poll(() => badge.getAttribute('data-state'), { timeout: 2_500 }).toBe('done');
    expect((await waitForJob(alice.client, job)).state).toBe('done');
    expect(await viewer(page).getByText('Complete').isVisible()).toBe(true);

    // Every line once, in order: the viewer's download against the server's own log.
    const server_log = (await alice.client.call('job-xxxx/getLog', job, { limit: 10_000 })).messages;
    const downloadPromise = page.waitForEvent('download');
    await viewer(page).getByRole('button', { name: 'Download' }).click();
    const download = await downloadPromise;
    const file = path.join(scratch, 'log.txt');
    await download.saveAs(file);
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(server_log.length);
    expect(lines.map((line) => line.replace(/^\S+ /, ''))).toEqual(server_log.map((m) => `${m.level} ${m.msg}`));
    const ticks = lines.filter((line) => / STDOUT tick \d+$/.test(line)).map((line) => Number(line.split(' ').pop()));
    expect(ticks).toEqual(Array.from({ length: TICKS }, (_, i) => i + 1));
    expect(lines.filter((line) => line.endsWith('STDERR bye'))).toHaveLength(1);
    expect(Number(await viewer(page).getAttribute('data-lines'))).toBe(server_log.length);
    expect(download.suggestedFilename()).toBe(`${project}-${job}.log`);

    // Line numbers: the last row shown (follow mode) is the last line of the log.
    const lastShown = page.locator('[data-line]').last();
    // (follow scrolls on the next frames after the last line arrives: wait for it rather than read once)
    await expect.poll(() => lastShown.getAttribute('data-line'), { timeout: 10_000 }).toBe(String(server_log.length));
    await expect.poll(() => lastShown.locator('span').first().textContent()).toBe(String(server_log.length));
    await shoot(page, 'monitor-log-complete');
    await page.close();
  });

  it('searches, filters by level and shows a <script> line as text', async () => {
    fs.writeFileSync(gate, '');
    await waitForJob(alice.client, job);
    const page = await browser.signedInPage(alice, `/panx/projects/${project}/monitor/job/${job}/log`);
    await expect.poll(() => viewer(page).getAttribute('data-status'), { timeout: 30_000 }).toBe('ended');
    const all = Number(await viewer(page).getAttribute('data-lines'));
    const server_log = (await alice.client.call('job-xxxx/getLog', job, { limit: 10_000 })).messages;

    // Search: the count, Enter jumps to the line (far above the bottom), highlighted.
    const search = page.getByRole('textbox', { name: 'Search the log' });
    await search.fill('needle-marker');
    await search.press('Enter');
    await expect.poll(() => page.getByTestId('log-match-count').textContent()).toBe('1/1');
    const found = rowWith(page, 'needle-marker');
    await found.waitFor();
    const expectedLine = server_log.findIndex((m) => m.msg.startsWith('needle-marker')) + 1;
    expect(await found.getAttribute('data-line')).toBe(String(expectedLine));
    expect(await found.locator('mark').textContent()).toBe('needle-marker');
    expect(await page.getByTestId('log-jump').isVisible()).toBe(true);
    await shoot(page, 'monitor-log-search');

    // "tick 1" matches tick 1 and 10–19 (11 lines); next/previous wrap around.
    await search.fill('tick 1');
    await expect.poll(() => page.getByTestId('log-match-count').textContent()).toBe('0/11');
    await page.getByRole('button', { name: 'Previous match' }).click();
    await expect.poll(() => page.getByTestId('log-match-count').textContent()).toMatch(/^\d+\/11$/);
    await search.fill('');

    // The <script> line is text: the title was not changed and no element was injected.
    const script = rowWith(page, '<script>');
    await page.getByRole('textbox', { name: 'Search the log' }).fill('document.title');
    await search.press('Enter');
    await script.waitFor();
    expect(await script.locator('[data-msg]').textContent()).toContain('<script>document.title="pwned"</script><img src=x');
    expect(await viewer(page).locator('script, img').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    expect(await page.title()).not.toBe('1');
    await search.fill('');

    // Level filter: only STDERR (the chips' inputs are hidden: their labels take the click).
    await viewer(page)
      .locator('label', { hasText: /^STDOUT \d/ })
      .click();
    const infoChip = viewer(page).locator('label', { hasText: /^INFO \d/ });
    if (await infoChip.count()) await infoChip.click();
    const stderr = server_log.filter((m) => m.level === 'STDERR').length;
    await expect.poll(() => page.getByTestId('log-count').textContent()).toBe(`${stderr} of ${all} lines`);
    const levels = await page.locator('[data-line]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-level')));
    expect(levels.length).toBe(stderr);
    expect(new Set(levels)).toEqual(new Set(['STDERR']));
    await shoot(page, 'monitor-log-stderr');
    await page.close();
  });

  it('keeps following when the viewer shrinks; scrolling up stops following, Jump to latest resumes it', async () => {
    fs.writeFileSync(gate, '');
    await waitForJob(alice.client, job);
    const page = await browser.signedInPage(alice, `/panx/projects/${project}/monitor/job/${job}/log`);
    await expect.poll(() => viewer(page).getAttribute('data-status'), { timeout: 30_000 }).toBe('ended');
    const total = viewer(page).getAttribute('data-lines');
    const lastShown = () => page.locator('[data-line]').last().getAttribute('data-line');
    const followSwitch = viewer(page).getByRole('switch', { name: 'Follow' });
    await expect.poll(lastShown).toBe(await total);

    // The viewer is sized from the window: a shorter window shrinks it, and the last line stays in view.
    const size = page.viewportSize() ?? { width: 1280, height: 800 };
    const scroller = page.getByTestId('log-scroller');
    const gapBelow = () => scroller.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
    await page.setViewportSize({ width: size.width, height: size.height - 200 });
    await expect.poll(gapBelow).toBeLessThan(1);
    await expect.poll(lastShown).toBe(await total);
    expect(await followSwitch.isChecked()).toBe(true);
    expect(await page.getByTestId('log-jump').count()).toBe(0);

    // The reader scrolls up: follow stops and offers the way back.
    await scroller.hover();
    await page.mouse.wheel(0, -400);
    await expect.poll(() => followSwitch.isChecked()).toBe(false);
    await page.getByTestId('log-jump').click();
    await expect.poll(() => followSwitch.isChecked()).toBe(true);
    await expect.poll(gapBelow).toBeLessThan(1);
    await expect.poll(lastShown).toBe(await total);
    await page.setViewportSize(size);
    await page.close();
  });

  it('sends a failure report from the modal, which the administrators read', async () => {
    const page = await browser.signedInPage(alice, `/panx/projects/${project}/monitor/job/${job}/log`);
    await viewer(page).getByRole('button', { name: 'Report a problem' }).click();
    const modal = page.getByRole('dialog', { name: 'Report a problem with this execution' });
    await modal.waitFor();
    await modal.getByRole('button', { name: 'Send report' }).click();
    await modal.getByText('Say what went wrong').waitFor();
    await modal.getByRole('textbox', { name: /What went wrong/ }).fill('The talker printed a <script> line and I expected plain output.');
    await modal.getByText('What is sent with your message').click();
    await modal.getByTestId('failure-report-log-tail').waitFor();
    // the modal read the job's name and state itself
    await modal.getByText('Talker', { exact: true }).waitFor();
    await modal.getByText(/· done/).waitFor();
    await page.screenshot({ path: path.join(shotsDir, 'monitor-log-report-form-1280.png') });
    await modal.getByRole('button', { name: 'Send report' }).click();
    const id = await modal.getByTestId('failure-report-id').textContent();
    expect(id).toMatch(/^report-/);
    await page.screenshot({ path: path.join(shotsDir, 'monitor-log-report-sent-1280.png') });

    const { results } = await server.admin.call('system/findFailureReports', { execution: job });
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      id,
      reporter: alice.id,
      execution: job,
      state: 'done',
      message: 'The talker printed a <script> line and I expected plain output.',
    });
    expect(results[0]?.logTail.some((line) => line.includes('bye'))).toBe(true);
    expect(results[0]?.browser.userAgent).toMatch(/Chrome/);
    expect(results[0]?.browser.url).toBe(`/panx/projects/${project}/monitor/job/${job}/log`);
    await page.close();
  });
});
