/**
 * End-to-end tests of the tool library, tool details and tool selector (issue 6, parts 1–2) in headless
 * Chromium against a real server started with the bundled genomics apps and the demo project (whose
 * germline workflow the library must find), plus an app with two versions and a Markdown description,
 * a hidden_app app, and an applet with a finished run. Screenshots go to test-results/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../server/src/bootstrap.js';
import { startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { type Account, type Browser, browserAvailable, CHROMIUM, createAccount, launchBrowser, shoot, webDir } from './browser.js';

const TOOL_CATEGORIES = ['Read Mapping', 'Variation Calling', 'Quality Control'];

const QC_DESCRIPTION = `## How it works

The report counts reads and **bases** per file.

- fast
- *no* configuration

\`\`\`
qc_report --in reads.fq.gz
\`\`\`

<script>window.__pwned = true</script><b>not bold</b>

See [the project site](https://example.org/qc).`;

it.runIf(!browserAvailable && process.env.PANX_E2E_REQUIRED === '1')('has Chromium and the built web app for the tools end-to-end suite', () => {
  expect({ chromium: fs.existsSync(CHROMIUM), webBuild: fs.existsSync(path.join(webDir, 'index.html')) }).toEqual({ chromium: true, webBuild: true });
});

describe.skipIf(!browserAvailable)('tool library, details and selector in Chromium', { timeout: 120_000 }, () => {
  let server: TestPlatform;
  let browser: Browser;
  let alice: Account;
  let aliceProject: string;
  let applet: string;
  let job: string;
  let qcV1: string;
  let qcV2: string;
  let germline: string;

  beforeAll(async () => {
    server = await startTestPlatform(undefined, { webDir, ui: { toolCategories: TOOL_CATEGORIES }, engine: { tickMs: 100 } });
    // The first start with the demo project: the bundled apps (published, PUBLIC) and the germline workflow.
    await bootstrap({ ...server.platform, config: { ...server.platform.config, createDemoProject: true } });
    const demo = (await server.admin.call('system/findProjects', { name: 'Demo project' })).results[0]?.id as string;
    germline = (await server.admin.call('system/findDataObjects', { class: 'workflow', scope: { project: demo } })).results[0]?.id as string;
    expect(germline).toMatch(/^workflow-/);

    // An app with two versions (the newer is the default) and a Markdown description, and a hidden one.
    const qc = (version: string) =>
      server.admin.call('app/new', {
        name: 'qc_report',
        version,
        title: 'QC report',
        summary: 'Read and base counts of sequencing files',
        description: QC_DESCRIPTION,
        categories: ['Quality Control'],
        inputSpec: [
          { name: 'reads', label: 'Reads', class: 'array:file', patterns: ['*.fastq.gz', '*.fq.gz'], help: 'FASTQ files to summarise.' },
          { name: 'min_quality', label: 'Minimum quality', class: 'int', default: 20, group: 'Filtering', help: 'Bases below are not counted.' },
        ],
        outputSpec: [{ name: 'report', label: 'Report', class: 'file', patterns: ['*.html'], help: 'The QC report.' }],
        runSpec: { interpreter: 'bash', code: 'main() { :; }', distribution: 'Ubuntu', release: '24.04' },
      });
    qcV1 = (await qc('1.0.0')).id;
    await server.admin.call('app-xxxx/publish', qcV1, {});
    qcV2 = (await qc('1.1.0')).id;
    await server.admin.call('app-xxxx/publish', qcV2, { makeDefault: true });
    await server.admin.call('app-xxxx/addAuthorizedUsers', qcV2, { authorizedUsers: ['PUBLIC'] });
    const hidden = await server.admin.call('app/new', {
      name: 'internal_helper',
      version: '1.0.0',
      title: 'Internal helper',
      summary: 'Never listed',
      categories: ['hidden_app', 'Quality Control'],
      runSpec: { interpreter: 'bash', code: 'main() { :; }', distribution: 'Ubuntu', release: '24.04' },
    });
    await server.admin.call('app-xxxx/publish', hidden.id, { makeDefault: true });
    await server.admin.call('app-xxxx/addAuthorizedUsers', hidden.id, { authorizedUsers: ['PUBLIC'] });

    alice = await createAccount(server, 'alice');
    await server.admin.call('project-xxxx/invite', demo, { invitee: alice.id, level: 'VIEW', suppressEmailNotification: true });
    aliceProject = (await alice.client.call('project/new', { name: 'Alice tools' })).id;
    applet = (
      await alice.client.call('applet/new', {
        project: aliceProject,
        name: 'count_lines',
        dxapi: '1.0.0',
        inputSpec: [],
        outputSpec: [],
        runSpec: { interpreter: 'bash', code: 'main() { echo counted; }', distribution: 'Ubuntu', release: '24.04' },
      })
    ).id;
    job = (await alice.client.call('applet-xxxx/run', applet, { project: aliceProject, input: {}, name: 'Count the lines' })).id;
    // A finished run for the details page's "Recent runs".
    let state = '';
    for (const deadline = Date.now() + 60_000; state !== 'done' && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      state = String((await alice.client.call('job-xxxx/describe', job, {})).state);
      if (state === 'failed' || state === 'terminated') break;
    }
    expect(state).toBe('done');
    browser = await launchBrowser(server, 'tools');
  }, 120_000);

  afterEach(() => {
    expect(browser?.problems ?? []).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const card = (page: Page, id: string) => page.locator(`[data-tool-card="${id}"]`).first();
  const search = (page: Page) => page.getByRole('searchbox', { name: 'Search by title' });

  it('lists apps, applets and workflows grouped by the configured categories, without hidden_app', async () => {
    const page = await browser.signedInPage(alice, '/panx/tools');
    await expect.poll(() => page.locator('[data-tool-card]').count()).toBeGreaterThan(6);
    const groups = await page.locator('section[data-category]').evaluateAll((sections) => sections.map((s) => s.getAttribute('data-category')));
    expect(groups).toEqual([...TOOL_CATEGORIES, 'Other tools']);
    const names = await page.locator('[data-tool-card]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-tool-name')));
    expect(names).toEqual(expect.arrayContaining(['bwa_mem', 'bcftools_call', 'fastp', 'qc_report', 'germline_variants', 'count_lines']));
    expect(names).not.toContain('internal_helper');
    // The app is listed once, at its default version, with its versions counted.
    await expect.poll(() => page.locator('[data-tool-name="qc_report"]').count()).toBe(1);
    await expect.poll(() => page.locator('[data-tool-name="qc_report"]').innerText()).toMatch(/v1\.1\.0 · 2 versions/);
    await shoot(page, 'tools-library');

    // Searching for the hidden app finds nothing, and says so.
    await search(page).fill('internal helper');
    await expect.poll(() => page.locator('[data-empty-state]').innerText()).toContain('No tool matches these filters');
    await shoot(page, 'tools-library-no-match');
    await page.close();
  });

  it('finds the germline workflow and an app by search, filters by category and class (kept in the address)', async () => {
    const page = await browser.signedInPage(alice, '/panx/tools');
    await search(page).fill('germline');
    await expect.poll(() => page.locator('[data-tool-card]').count()).toBe(1);
    await expect.poll(() => card(page, germline).isVisible()).toBe(true);
    expect(await card(page, germline).innerText()).toMatch(/workflow/i);

    // The title is searched: the germline workflow's title names BWA-MEM too.
    await search(page).fill('BWA');
    await expect
      .poll(() => page.locator('[data-tool-card]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-tool-name'))))
      .toEqual(['bwa_mem', 'germline_variants']);
    await search(page).fill('bwa read mapper');
    await expect.poll(() => page.locator('[data-tool-card]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-tool-name')))).toEqual(['bwa_mem']);

    await search(page).fill('');
    await page.getByRole('combobox', { name: 'Category' }).click();
    await page.getByRole('option', { name: 'Variation Calling' }).click();
    await expect
      .poll(() => page.locator('section[data-category]').evaluateAll((s) => s.map((x) => x.getAttribute('data-category'))))
      .toEqual(['Variation Calling']);
    const calling = await page.locator('[data-tool-card]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-tool-name')));
    expect(calling).toContain('bcftools_call');
    expect(calling).not.toContain('bwa_mem');
    expect(new URL(page.url()).searchParams.get('category')).toBe('Variation Calling');
    await shoot(page, 'tools-library-category');

    await page.reload();
    await expect
      .poll(() => page.locator('section[data-category]').evaluateAll((s) => s.map((x) => x.getAttribute('data-category'))))
      .toEqual(['Variation Calling']);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('Workflows', { exact: true }).click();
    await expect
      .poll(() => page.locator('[data-tool-card]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-tool-name'))))
      .toEqual(['germline_variants']);
    await page.close();
  });

  it('stars a favourite that stays after a reload (session data) and can be shown alone', async () => {
    const page = await browser.signedInPage(alice, '/panx/tools');
    await page.getByRole('button', { name: 'Add QC report to favourites' }).first().click();
    await expect.poll(() => page.getByRole('region', { name: 'Favourites' }).locator('[data-tool-card]').count()).toBe(1);
    await expect
      .poll(async () => ((await alice.client.call('user-xxxx/describe', alice.id, {})).sessionData as { favorites?: { tools?: string[] } }).favorites?.tools)
      .toEqual(['app-qc_report']);
    await page.reload();
    await expect.poll(() => page.getByRole('region', { name: 'Favourites' }).locator('[data-tool-name="qc_report"]').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Remove QC report from favourites' }).first().getAttribute('aria-pressed')).toBe('true');
    // The switch writes the address (a router navigation), so its state follows a moment later.
    await page.getByRole('switch', { name: 'Favourites only' }).click();
    await expect.poll(() => page.getByRole('switch', { name: 'Favourites only' }).isChecked()).toBe(true);
    await expect.poll(() => page.locator('[data-tool-card]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-tool-name')))).toEqual(['qc_report']);
    await shoot(page, 'tools-library-favourites');
    await page.close();
  });

  it('opens the details: Markdown rendered with raw HTML escaped, inputs and outputs, versions, Run link', async () => {
    const page = await browser.signedInPage(alice, '/panx/tools?q=qc');
    await card(page, qcV2).getByRole('link', { name: 'QC report', exact: true }).click();
    await page.waitForURL(`**/panx/tool/app/${qcV2}`);
    const description = page.getByTestId('tool-description');
    await expect.poll(() => description.locator('h2').innerText()).toBe('How it works');
    expect(await description.locator('strong').innerText()).toBe('bases');
    expect(await description.locator('li').count()).toBe(2);
    expect(await description.locator('pre code').innerText()).toContain('qc_report --in reads.fq.gz');
    // Raw HTML is shown as text, never run or rendered.
    expect(await description.locator('script, b').count()).toBe(0);
    expect(await description.innerText()).toContain('<script>window.__pwned = true</script>');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();
    expect(await description.getByRole('link', { name: 'the project site' }).getAttribute('rel')).toBe('noopener noreferrer');

    const inputs = page.getByTestId('tool-inputs');
    expect(await inputs.locator('[data-field="reads"]').innerText()).toMatch(
      /Reads[\s\S]*array:file[\s\S]*required[\s\S]*FASTQ files to summarise[\s\S]*\*\.fastq\.gz, \*\.fq\.gz/,
    );
    expect(await inputs.locator('[data-field="min_quality"]').innerText()).toMatch(/Minimum quality[\s\S]*int[\s\S]*Default: 20/);
    expect(await inputs.innerText()).toContain('Filtering');
    expect(await page.getByTestId('tool-outputs').locator('[data-field="report"]').innerText()).toContain('The QC report.');
    await expect.poll(() => page.getByTestId('tool-versions').innerText()).toMatch(/1\.1\.0[\s\S]*default[\s\S]*1\.0\.0/i);
    expect(await page.getByRole('region', { name: 'About' }).innerText()).toMatch(/Developers\s*user-admin/i);
    expect(await page.getByRole('link', { name: 'Run', exact: true }).getAttribute('href')).toBe(`/panx/tools/run/${qcV2}`);
    await shoot(page, 'tools-details-app');

    // An older version from the history.
    await page.getByTestId('tool-versions').getByRole('link', { name: '1.0.0' }).click();
    await page.waitForURL(`**/panx/tool/app/${qcV1}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('QC report');
    await page.close();
  });

  it('shows an applet’s recent runs linking to the monitor, and the project-context details with a project-scoped Run', async () => {
    const page = await browser.signedInPage(alice, `/panx/projects/${aliceProject}/${applet}`);
    await expect.poll(() => page.getByTestId('tool-runs').innerText()).toMatch(/Count the lines[\s\S]*done/i);
    expect(await page.getByTestId('tool-runs').getByRole('link', { name: 'Count the lines' }).getAttribute('href')).toBe(
      `/panx/projects/${aliceProject}/monitor/job/${job}`,
    );
    expect(await page.getByRole('link', { name: 'Run', exact: true }).getAttribute('href')).toBe(`/panx/projects/${aliceProject}/run/${applet}`);
    expect(await page.getByTestId('tool-inputs').innerText()).toContain('No inputs');
    expect(await page.getByRole('region', { name: 'About' }).innerText()).toContain('Alice tools');
    await shoot(page, 'tools-details-applet');

    // A project that allows other executables only: the tool is not offered for running there.
    await alice.client.call('project-xxxx/update', aliceProject, { allowedExecutables: [qcV2] });
    await page.reload();
    await expect.poll(() => page.getByText('This project does not allow this tool').count()).toBe(1);
    const blockedRun = page.getByRole('button', { name: 'Run', exact: true });
    expect(await blockedRun.isDisabled()).toBe(true);
    expect(await page.getByRole('link', { name: 'Run', exact: true }).count()).toBe(0);
    // The button stays focusable, so its reason shows from the keyboard too; a click goes nowhere.
    await blockedRun.focus();
    await expect.poll(() => page.getByRole('tooltip').innerText()).toContain('This project only allows other executables');
    const here = page.url();
    await blockedRun.click({ force: true });
    expect(page.url()).toBe(here);
    await alice.client.call('project-xxxx/update', aliceProject, { allowedExecutables: null });

    await page.goto(`${server.url}/panx/tool/workflow/${germline}`);
    await expect.poll(() => page.getByRole('region', { name: /^Stages/ }).innerText()).toMatch(/fastp[\s\S]*bcftools/i);
    // Stage executables by title and version, linking to the app's details.
    await expect
      .poll(() =>
        page
          .getByRole('region', { name: /^Stages/ })
          .getByRole('link', { name: 'BWA-MEM read mapper 1.0.0' })
          .count(),
      )
      .toBe(1);
    await shoot(page, 'tools-details-workflow');

    await page.goto(`${server.url}/panx/tool/applet/applet-doesnotexist000000000000`);
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Could not load this tool');
    await page.close();
  });

  it('picks a tool in the selector by typing and the keyboard, and goes to the runner', async () => {
    const page = await browser.signedInPage(alice, '/panx/tools');
    await page.getByRole('button', { name: 'Run a tool' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run a tool' });
    await expect.poll(() => dialog.getByRole('option').count()).toBeGreaterThan(6);
    expect(await dialog.getByRole('option').allInnerTexts()).not.toContain(expect.stringContaining('Internal helper'));
    await dialog.getByRole('textbox', { name: 'Filter by title' }).fill('qc report');
    await expect.poll(() => dialog.getByRole('option').count()).toBe(1);
    await dialog.getByRole('textbox', { name: 'Filter by title' }).press('ArrowDown');
    await expect.poll(() => dialog.getByRole('option', { selected: true }).innerText()).toContain('QC report');
    // The app's versions, the default chosen; pick the older one.
    await expect.poll(() => dialog.getByRole('combobox', { name: 'Version' }).inputValue()).toBe('1.1.0 (default)');
    await dialog.getByRole('combobox', { name: 'Version' }).click();
    await page.getByRole('option', { name: '1.0.0' }).click();
    await shoot(page, 'tools-selector');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(`**/panx/tools/run/${qcV1}`);

    await page.goto(`${server.url}/panx/tools`);
    await page.getByRole('button', { name: 'Run a tool' }).click();
    const again = page.getByRole('dialog', { name: 'Run a tool' });
    await again.getByRole('textbox', { name: 'Filter by title' }).fill('count lines');
    await again.getByRole('option', { name: /count_lines/ }).dblclick();
    await page.waitForURL(`**/panx/tools/run/${applet}`);
    await page.close();
  });

  it('in a project that allows some executables, offers only those (the first allowed app version) and runs them there', async () => {
    await alice.client.call('project-xxxx/update', aliceProject, { allowedExecutables: [qcV1, 'applet-count_lines'] });
    const page = await browser.signedInPage(alice, `/panx/tools?project=${aliceProject}`);
    await expect.poll(() => page.getByTestId('tool-library-project').innerText()).toMatch(/Run a tool in Alice tools[\s\S]*only allows some executables/);
    await expect
      .poll(() => page.locator('section[data-category] [data-tool-card]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-tool-name'))))
      .toEqual(['qc_report', 'count_lines']);
    // Only version 1.0.0 is allowed: the card and its Run link use it.
    expect(await card(page, qcV1).innerText()).toContain('v1.0.0');
    expect(await card(page, qcV1).getByRole('link', { name: 'Run QC report' }).getAttribute('href')).toBe(`/panx/projects/${aliceProject}/run/${qcV1}`);
    // Filters keep the project.
    await search(page).fill('count');
    await expect.poll(() => new URL(page.url()).searchParams.get('project')).toBe(aliceProject);
    await search(page).fill('');
    await shoot(page, 'tools-library-project');

    await page.getByRole('button', { name: 'Run a tool' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run a tool' });
    await expect.poll(() => dialog.getByRole('option').count()).toBe(2);
    expect(await dialog.innerText()).toContain('This project only allows some executables');
    await dialog.getByRole('option', { name: /QC report/ }).click();
    await expect.poll(() => dialog.getByRole('combobox', { name: 'Version' }).inputValue()).toBe('1.0.0');
    await dialog.getByRole('combobox', { name: 'Version' }).click();
    expect(await page.getByRole('option', { name: /1\.1\.0/ }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await shoot(page, 'tools-selector-project');
    await dialog.getByRole('option', { name: /count_lines/ }).click();
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(`**/panx/projects/${aliceProject}/run/${applet}`);
    await alice.client.call('project-xxxx/update', aliceProject, { allowedExecutables: null });
    await page.close();
  });
});
