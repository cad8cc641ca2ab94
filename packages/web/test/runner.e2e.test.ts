/**
 * End-to-end tests of the tool runner (issue 6, part 3) in headless Chromium against a real server
 * with real jobs: the germline workflow of the demo project run from its form with files picked in the
 * data picker, landing on the execution's page while the analysis finishes with its VCF; an applet
 * form with choices, arrays, groups, a bad int and a server-side field error; a VIEW-only user who
 * cannot run; inputs handed over with `?from=`. Screenshots go to test-results/screenshots/runner-*.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../server/src/bootstrap.js';
import { startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { type Account, type Browser, browserAvailable, CHROMIUM, createAccount, launchBrowser, shoot, webDir } from './browser.js';

it.runIf(!browserAvailable && process.env.PANX_E2E_REQUIRED === '1')('has Chromium and the built web app for the runner end-to-end suite', () => {
  expect({ chromium: fs.existsSync(CHROMIUM), webBuild: fs.existsSync(path.join(webDir, 'index.html')) }).toEqual({ chromium: true, webBuild: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!browserAvailable)('the tool runner in Chromium', { timeout: 300_000 }, () => {
  let server: TestPlatform;
  let browser: Browser;
  let alice: Account;
  let bob: Account;
  let demo: string;
  let workflow: string;

  beforeAll(async () => {
    server = await startTestPlatform(undefined, { webDir, engine: { tickMs: 100 } });
    await bootstrap({ ...server.platform, config: { ...server.platform.config, createDemoProject: true } });
    demo = (await server.admin.call('system/findProjects', { name: 'Demo project' })).results[0]?.id as string;
    workflow = (await server.admin.call('system/findDataObjects', { class: 'workflow', scope: { project: demo } })).results[0]?.id as string;
    alice = await createAccount(server, 'runner_alice');
    bob = await createAccount(server, 'runner_bob');
    await server.admin.call('project-xxxx/invite', demo, { invitee: alice.id, level: 'CONTRIBUTE', suppressEmailNotification: true });
    await server.admin.call('project-xxxx/invite', demo, { invitee: bob.id, level: 'VIEW', suppressEmailNotification: true });
    browser = await launchBrowser(server, 'runner');
  }, 120_000);
  afterEach(() => {
    expect(browser.problems).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function waitForState(id: string, timeoutMs: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const described = (await alice.client.call('analysis-xxxx/describe', id, {})) as Record<string, unknown>;
      if (['done', 'failed', 'terminated'].includes(String(described.state))) return described;
      if (Date.now() > deadline) throw new Error(`${id} stayed ${String(described.state)}`);
      await sleep(500);
    }
  }

  it('runs the germline workflow from its form with files picked in the demo project, and lands on the analysis page; the analysis makes its VCF', async () => {
    const page = await browser.signedInPage(alice, `/panx/projects/${demo}/run/${workflow}`);
    await page.getByRole('heading', { name: /Germline variants/ }).waitFor();
    // Stages in order, with bound inputs shown read-only with their links.
    const stages = page.getByRole('region', { name: /^Stage / });
    await expect.poll(() => stages.count()).toBe(4);
    const bamInput = page.getByTestId('input-stage-sort.bam');
    await expect.poll(() => bamInput.getAttribute('data-bound')).toBe('link');
    expect(await bamInput.textContent()).toContain('Output "bam" of Map reads (BWA-MEM) (stage-bwa_mem)');
    expect(await page.getByTestId('input-stage-call.reference').textContent()).toContain('Same as input "reference"');
    // The demo reads are bound in the workflow: shown with their names, replaceable.
    const reads = page.getByTestId('input-stage-fastp.reads');
    await expect.poll(() => reads.textContent()).toContain('sample1_R1.fastq.gz');
    await shoot(page, 'runner-germline');

    // Replace the bound reads with files picked in the demo project's /reads folder.
    await reads.getByRole('button', { name: 'Change' }).click();
    await reads.getByRole('button', { name: 'Select a file for Reads' }).click();
    const picker = page.getByTestId('data-picker');
    await picker.waitFor();
    // The picker filters by the input's patterns: the FASTA of /reference is not offered there.
    await picker.getByRole('button', { name: 'Demo project' }).click();
    await picker.getByRole('button', { name: 'Open folder reference' }).click();
    await expect.poll(() => picker.textContent()).toContain('match none of');
    await picker.getByRole('button', { name: 'Demo project' }).click();
    await picker.getByRole('button', { name: 'Open folder reads' }).click();
    await picker.getByRole('checkbox', { name: 'Select sample1_R1.fastq.gz' }).check();
    await shoot(page, 'runner-picker');
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    await picker.waitFor({ state: 'detached' });
    await expect.poll(() => reads.getByTestId('picked-object').count()).toBe(1);

    // The estimate follows the instance types (four stages of mem1_ssd1_v2_x2 at $0.093/h).
    await expect.poll(() => page.getByTestId('cost-estimate').textContent()).toContain('$0.372');
    await page.getByRole('textbox', { name: 'Execution name' }).fill('germline from the browser');
    await expect.poll(() => page.getByTestId('form-state').getAttribute('data-state')).toBe('READY');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(new RegExp(`/panx/projects/${demo}/monitor/analysis/analysis-[0-9A-Za-z]+$`));
    const analysis = new URL(page.url()).pathname.split('/').pop() as string;
    await page.close();

    const described = await waitForState(analysis, 240_000);
    expect(described.state).toBe('done');
    expect(described.name).toBe('germline from the browser');
    const runInput = described.runInput as Record<string, unknown>;
    expect(Object.keys(runInput)).toEqual(['stage-fastp.reads']);
    const output = described.output as Record<string, unknown>;
    const vcf = (output['stage-call.vcf'] as { $dnanexus_link: string | { id: string } }).$dnanexus_link;
    const vcfId = typeof vcf === 'string' ? vcf : vcf.id;
    const file = await alice.client.call('file-xxxx/describe', vcfId, { project: demo });
    expect(file).toMatchObject({ state: 'closed', name: 'sample1.vcf.gz' });
    expect(output['stage-call.variant_count']).toBe(10);

    // The same inputs, handed back to the runner with ?from=.
    const again = await browser.signedInPage(alice, `/panx/projects/${demo}/run/${workflow}?from=${analysis}`);
    await again.getByText(`The form starts from the inputs of ${analysis}`).waitFor();
    await expect.poll(() => again.getByTestId('input-stage-fastp.reads').textContent()).toContain('sample1_R1.fastq.gz');
    expect(await again.getByRole('textbox', { name: 'Execution name' }).inputValue()).toBe('germline from the browser');
    await again.close();
  });

  it('an applet form: choices, arrays, groups, a bad int and the server’s field errors beside the fields; the input is kept', async () => {
    const { id: project } = await alice.client.call('project/new', { name: 'Runner forms' });
    await alice.client.call('project-xxxx/newFolder', project, { folder: '/inputs' });
    const upload = async (name: string, text: string) => {
      const { id } = await alice.client.call('file/new', { project, folder: '/inputs', name });
      const md5 = createHash('md5').update(text).digest('hex');
      const { url, headers } = await alice.client.call('file-xxxx/upload', id, { index: 1, size: Buffer.byteLength(text), md5 });
      expect((await fetch(url, { method: 'PUT', headers, body: text })).ok).toBe(true);
      await alice.client.call('file-xxxx/close', id, {});
      return id;
    };
    await upload('sample.txt', 'hello\n');
    await upload('notes.md', '# notes\n');
    for (let i = 0; i < 50; i++) {
      const listed = await alice.client.call('project-xxxx/listFolder', project, { folder: '/inputs', describe: { fields: { state: true } } });
      if (listed.objects.every((object) => (object.describe as { state?: string } | undefined)?.state === 'closed')) break;
      await sleep(100);
    }
    const { id: applet } = await alice.client.call('applet/new', {
      project,
      name: 'form_tester',
      title: 'Form tester',
      summary: 'Every kind of input',
      dxapi: '1.0.0',
      inputSpec: [
        { name: 'text_file', label: 'Text file', class: 'file', patterns: ['*.txt'], help: 'A .txt file' },
        { name: 'mode', label: 'Mode', class: 'string', choices: ['fast', 'accurate'], default: 'fast' },
        { name: 'threads', label: 'Threads', class: 'int', default: 2, group: 'Advanced', help: 'How many threads' },
        { name: 'regions', label: 'Regions', class: 'array:string', optional: true },
        { name: 'verbose', label: 'Verbose', class: 'boolean', default: false, group: 'Advanced' },
        { name: 'extras', label: 'Extra files', class: 'array:file', optional: true },
      ],
      outputSpec: [],
      runSpec: { interpreter: 'bash', code: 'main() { echo "$mode $threads"; }', distribution: 'Ubuntu', release: '24.04' },
    });
    const page = await browser.signedInPage(alice, `/panx/projects/${project}/run/${applet}`);
    await page.getByRole('heading', { name: 'Form tester' }).waitFor();
    // The Advanced group is collapsed (nothing to fill there); open it and type a bad int.
    await page.getByRole('button', { name: /Advanced/ }).click();
    const threads = page.getByTestId('input-threads');
    await threads.waitFor();
    expect(await threads.inputValue()).toBe('2');
    await threads.fill('two');
    await threads.blur();
    await page.getByText('"two" is not a whole number').waitFor();
    expect(await page.locator('[data-field="threads"]').getAttribute('data-validation')).toBe('ERROR');
    expect(await page.locator('[data-field="mode"]').getAttribute('data-validation')).toBe('DEFAULT');
    await page.getByTestId('input-regions').fill('chr1');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('2 fields need attention before the run can start.').waitFor();
    expect(await page.getByTestId('input-text_file').textContent()).toContain('Required');
    await shoot(page, 'runner-applet-errors');

    // Fix the int; pick a file the patterns do not allow (the filter turned off): the server refuses it beside the field.
    await threads.fill('4');
    await page.getByTestId('input-text_file').getByRole('button', { name: 'Select a file for Text file' }).click();
    const picker = page.getByTestId('data-picker');
    await picker.getByRole('button', { name: 'Open folder inputs' }).click();
    await expect.poll(() => picker.getByRole('checkbox').count()).toBe(1);
    await picker.getByRole('switch', { name: 'Only *.txt' }).uncheck();
    await picker.getByRole('checkbox', { name: 'Select notes.md' }).check();
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    await picker.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const fieldError = page.getByTestId('input-text_file').getByText(/matches none of its patterns/);
    await fieldError.waitFor();
    // Nothing the user typed is lost.
    expect(await threads.inputValue()).toBe('4');
    expect(await page.getByTestId('input-text_file').textContent()).toContain('notes.md');
    await shoot(page, 'runner-applet-server-error');

    // The right file runs; the job page of the new job is next.
    await page.getByTestId('input-text_file').getByRole('button', { name: 'Select a file for Text file' }).click();
    await page.getByTestId('data-picker').getByRole('checkbox', { name: 'Select sample.txt' }).check();
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    // An array of files: several picked at once.
    await page.getByTestId('input-extras').getByRole('button', { name: 'Select files for Extra files' }).click();
    const many = page.getByTestId('data-picker');
    await many.getByRole('button', { name: 'Open folder inputs' }).click();
    await many.getByRole('checkbox', { name: 'Select notes.md' }).check();
    await many.getByRole('checkbox', { name: 'Select sample.txt' }).check();
    await page.getByRole('button', { name: 'Select 2 files', exact: true }).click();
    await many.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('input-extras').getByTestId('picked-object').count()).toBe(2);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(new RegExp(`/panx/projects/${project}/monitor/job/job-[0-9A-Za-z]+$`));
    const job = new URL(page.url()).pathname.split('/').pop() as string;
    const described = (await alice.client.call('job-xxxx/describe', job, {})) as Record<string, unknown>;
    expect(described.runInput).toMatchObject({ mode: 'fast', threads: 4, regions: ['chr1'], verbose: false });
    expect((described.runInput as { extras: unknown[] }).extras).toHaveLength(2);
    await page.close();
  });

  it("follows the project's allowed executables: the first allowed app version is selected, a tool not listed cannot run", async () => {
    const version = async (number: string) => {
      const { id } = await server.admin.call('app/new', {
        name: 'runner_versions',
        version: number,
        title: 'Versioned tool',
        inputSpec: [{ name: 'message', class: 'string', default: 'hi' }],
        runSpec: { interpreter: 'bash', code: 'main() { echo "$message"; }', distribution: 'Ubuntu', release: '24.04' },
      });
      await server.admin.call('app-xxxx/publish', id, { makeDefault: true });
      await server.admin.call('app-xxxx/addAuthorizedUsers', id, { authorizedUsers: ['PUBLIC'] });
      return id;
    };
    const v1 = await version('1.0.0');
    const v2 = await version('2.0.0');
    const { id: locked } = await alice.client.call('project/new', { name: 'Locked' });
    const { id: applet } = await alice.client.call('applet/new', {
      project: locked,
      name: 'unlisted',
      dxapi: '1.0.0',
      inputSpec: [],
      outputSpec: [],
      runSpec: { interpreter: 'bash', code: 'main() { :; }', distribution: 'Ubuntu', release: '24.04' },
    });
    await alice.client.call('project-xxxx/update', locked, { allowedExecutables: [v1] });

    // The default version (2.0.0) is not allowed: 1.0.0 is selected, and only it is offered.
    const page = await browser.signedInPage(alice, `/panx/projects/${locked}/run/app-runner_versions`);
    await page.waitForURL(new RegExp(`/run/${v1}$`));
    await page.getByText('Version 2.0.0 is not allowed in Locked; the first allowed version, 1.0.0, is selected.').waitFor();
    expect(await page.getByRole('button', { name: 'Run', exact: true }).isDisabled()).toBe(false);
    await shoot(page, 'runner-allowed-version');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(new RegExp(`/panx/projects/${locked}/monitor/job/job-[0-9A-Za-z]+$`));

    // An applet the list does not name is shown, but Run says why it cannot start.
    await page.goto(`${server.url}/panx/projects/${locked}/run/${applet}`);
    const blocker = page.getByTestId('run-blocker');
    await blocker.waitFor();
    expect(await blocker.textContent()).toBe(`The project "Locked" only allows these tools: ${v1}. Choose another project or ask its administrator.`);
    expect(await page.getByRole('button', { name: 'Run', exact: true }).isDisabled()).toBe(true);

    // Without the restriction, switching versions keeps what was typed (the form is rebuilt for the other version).
    await alice.client.call('project-xxxx/update', locked, { allowedExecutables: null });
    await page.goto(`${server.url}/panx/projects/${locked}/run/${v1}`);
    const message = page.getByTestId('input-message');
    await message.fill('kept across versions');
    await page.getByRole('textbox', { name: 'Execution name' }).fill('my versioned run');
    await page.getByRole('combobox', { name: 'Version' }).click();
    await page.getByRole('option', { name: '2.0.0' }).click();
    await page.waitForURL(new RegExp(`/run/${v2}$`));
    await page.getByText('The inputs and settings you gave for the other version are kept.').waitFor();
    expect(await page.getByTestId('input-message').inputValue()).toBe('kept across versions');
    expect(await page.getByRole('textbox', { name: 'Execution name' }).inputValue()).toBe('my versioned run');
    expect(await page.getByText('Another version was selected').count()).toBe(0);
    await page.close();
  });

  it('from the tool library route, the run goes to a project chosen among those the user can contribute to', async () => {
    await alice.client.call('project/new', { name: 'Tools route target' });
    const page = await browser.signedInPage(alice, '/panx/tools/run/app-fastp');
    await page.getByRole('heading', { name: /fastp/ }).waitFor();
    const project = page.getByRole('region', { name: 'Run settings' }).getByLabel('Project', { exact: true }).first();
    await expect.poll(() => project.inputValue()).not.toBe('');
    expect(['Demo project', 'Runner forms', 'Locked', 'Tools route target']).toContain(await project.inputValue());
    // Another project than the first offered one.
    const target = (await project.inputValue()) === 'Tools route target' ? 'Demo project' : 'Tools route target';
    await project.click();
    await page.getByRole('option', { name: target }).click();
    await page.waitForURL(/[?&]project=project-/);
    await expect.poll(() => project.inputValue()).toBe(target);
    // The app's own instance type with its price, and the reads still to give.
    await expect.poll(() => page.getByTestId('instance-type-*').inputValue()).toBe('mem1_ssd1_v2_x2 · $0.093/h');
    expect(await page.getByTestId('form-state').getAttribute('data-state')).toBe('WAIT_USER_INPUT');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('1 field needs attention before the run can start.').waitFor();
    await shoot(page, 'runner-app-tools-route');
    await page.close();
  });

  it('a VIEW-only user sees the form but cannot run, and the Run button says why', async () => {
    const page = await browser.signedInPage(bob, `/panx/projects/${demo}/run/${workflow}`);
    await page.getByRole('heading', { name: /Germline variants/ }).waitFor();
    const blocker = page.getByTestId('run-blocker');
    await blocker.waitFor();
    expect(await blocker.textContent()).toContain('You have VIEW access to Demo project');
    expect(await page.getByRole('button', { name: 'Run', exact: true }).isDisabled()).toBe(true);
    await shoot(page, 'runner-view-only');
    await page.close();
  });
});
