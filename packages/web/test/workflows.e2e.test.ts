/**
 * End-to-end tests of the workflow editor and the workflow importer (issue 6, parts 4–5) in headless
 * Chromium against a real server with the execution engine: a two-stage workflow built in the editor
 * from two applets (add stages, drag an output onto an input, undo and redo, rename), run to the end;
 * an edit made through the API in between is shown as a conflict and the user's edit survives; a VIEW
 * user sees the editor read-only; an exported workflow is imported through the importer page with its
 * status output and log. Screenshots go to test-results/screenshots/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newApplet } from '../../server/test/engine-helpers.js';
import { startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { type Account, type Browser, browserAvailable, CHROMIUM, createAccount, launchBrowser, shoot, webDir } from './browser.js';

it.runIf(!browserAvailable && process.env.PANX_E2E_REQUIRED === '1')('has Chromium and the built web app for the workflows end-to-end suite', () => {
  expect({ chromium: fs.existsSync(CHROMIUM), webBuild: fs.existsSync(path.join(webDir, 'index.html')) }).toEqual({ chromium: true, webBuild: true });
});

interface StageDescribe {
  id: string;
  name: string | null;
  executable: string;
  folder: string | null;
  input: Record<string, unknown>;
}

describe.skipIf(!browserAvailable)('workflow editor and importer in Chromium', { timeout: 180_000 }, () => {
  let server: TestPlatform;
  let browser: Browser;
  let alice: Account;
  let bob: Account;
  let project: string;
  let producer: string;
  let shouter: string;
  let workflow: string;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-wf-e2e-'));

  beforeAll(async () => {
    server = await startTestPlatform(undefined, { webDir, engine: { tickMs: 100 } });
    alice = await createAccount(server, 'alice');
    bob = await createAccount(server, 'bob');
    project = (await alice.client.call('project/new', { name: 'Workflow lab' })).id;
    await alice.client.call('project-xxxx/invite', project, { invitee: bob.id, level: 'VIEW', suppressEmailNotification: true });
    producer = await newApplet(alice.client, project, {
      name: 'make_greeting',
      inputSpec: [{ name: 'who', class: 'string', optional: true, default: 'world' }],
      outputSpec: [
        { name: 'greeting', class: 'file' },
        { name: 'length', class: 'int' },
      ],
      code: `main() {
  mkdir -p out/greeting
  echo "hello $who" > out/greeting/greeting.txt
  dx-upload-all-outputs
  dx-jobutil-add-output length 11 --class int
}`,
    });
    shouter = await newApplet(alice.client, project, {
      name: 'shout_text',
      inputSpec: [{ name: 'text', class: 'file' }],
      outputSpec: [{ name: 'loud', class: 'file' }],
      code: `main() {
  dx-download-all-inputs
  mkdir -p out/loud
  tr a-z A-Z < "$text_path" > "out/loud/$text_prefix.loud.txt"
  dx-upload-all-outputs
}`,
    });
    browser = await launchBrowser(server, 'workflows');
  }, 120_000);

  afterEach(() => {
    expect(browser?.problems ?? []).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const describeWorkflow = async (id = workflow) =>
    (await alice.client.call('workflow-xxxx/describe', id, { project, fields: { name: true, editVersion: true, stages: true } })) as unknown as {
      name: string;
      editVersion: number;
      stages: StageDescribe[];
    };

  const status = (page: Page) => page.getByTestId('edit-status');
  const settled = async (page: Page) => {
    await expect.poll(() => status(page).innerText()).toMatch(/saved$/);
  };

  async function addStage(page: Page, toolName: string): Promise<void> {
    await page.getByRole('button', { name: 'Add a stage', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a stage' });
    await dialog.getByRole('textbox', { name: 'Filter by title' }).fill(toolName);
    await dialog.getByRole('option').filter({ hasText: toolName }).first().click();
    await dialog.getByRole('button', { name: 'Add stage' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await settled(page);
  }

  /** A locator's box once two readings 100 ms apart agree. */
  async function steadyBox(page: Page, locator: ReturnType<Page['locator']>): Promise<{ x: number; y: number; width: number; height: number }> {
    let last: { x: number; y: number; width: number; height: number } | null = null;
    for (let attempt = 0; attempt < 100; attempt++) {
      const box = await locator.boundingBox();
      if (box && last && box.x === last.x && box.y === last.y && box.width === last.width && box.height === last.height) return box;
      last = box;
      await page.waitForTimeout(100);
    }
    throw new Error('a handle is not on the screen, or never stops moving');
  }

  /** Drags from one stage's output handle onto another's input handle with the mouse. */
  async function drag(page: Page, from: { stage: string; output: string }, to: { stage: string; input: string }): Promise<void> {
    const source = page.locator(`[data-stage-id="${from.stage}"] [data-field="out:${from.output}"] .react-flow__handle`);
    const target = page.locator(`[data-stage-id="${to.stage}"] [data-field="in:${to.input}"] .react-flow__handle`);
    // The canvas lays new stages out and fits the view after they appear: a drag that starts before
    // the handles stop moving misses them (this raced in CI).
    const a = await steadyBox(page, source);
    const b = await steadyBox(page, target);
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 8 });
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 });
    await page.mouse.up();
  }

  it('builds a two-stage workflow: new workflow, add stages, connect by dragging, undo and redo, rename, run to the end', async () => {
    const page = await browser.signedInPage(alice, `/panx/projects/${project}/workflows/new`);
    await page.getByRole('textbox', { name: 'Name' }).fill('greet-and-shout');
    await page.getByRole('button', { name: 'Create and edit' }).click();
    await page.waitForURL(/\/workflows\/workflow-[0-9A-Za-z]{24}$/);
    workflow = page.url().split('/').pop() as string;
    await expect.poll(() => page.locator('[data-empty-state]').innerText()).toContain('No stages yet');
    await shoot(page, 'workflow-editor-empty');

    await addStage(page, 'make_greeting');
    await addStage(page, 'shout_text');
    const described = await describeWorkflow();
    expect(described.stages.map((stage) => stage.executable)).toEqual([producer, shouter]);
    const [first, second] = described.stages as [StageDescribe, StageDescribe];
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(2);

    // A typed connection: an int output cannot feed a file input, and the editor says why.
    await drag(page, { stage: first.id, output: 'length' }, { stage: second.id, input: 'text' });
    await expect.poll(() => page.getByTestId('edit-problem').innerText()).toContain('The output length is a int; the input text takes a file');
    expect((await describeWorkflow()).stages[1]?.input).toEqual({});
    await page.getByTestId('edit-problem').getByRole('button').click();

    await drag(page, { stage: first.id, output: 'greeting' }, { stage: second.id, input: 'text' });
    await settled(page);
    const link = { $dnanexus_link: { stage: first.id, outputField: 'greeting' } };
    await expect.poll(async () => (await describeWorkflow()).stages[1]?.input).toEqual({ text: link });
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);

    // Undo (Ctrl+Z) unbinds the link on the server; redo (Shift+Ctrl+Z) binds it again.
    await page.locator('.react-flow__pane').click({ position: { x: 10, y: 10 } });
    await page.keyboard.press('Control+z');
    await expect.poll(async () => (await describeWorkflow()).stages[1]?.input).toEqual({});
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    // The server has the undo before the editor has its answer: until then (saving) there is nothing to redo.
    await settled(page);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(async () => (await describeWorkflow()).stages[1]?.input).toEqual({ text: link });
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
    await settled(page);

    // Rename the second stage from its panel, set its folder.
    await page.locator(`[data-stage-button="${second.id}"]`).click();
    await page.getByRole('textbox', { name: 'Stage name' }).fill('Shout it');
    await page.getByRole('textbox', { name: 'Output folder' }).fill('/loud');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(async () => (await describeWorkflow()).stages[1]).toMatchObject({ name: 'Shout it', folder: '/loud' });
    await expect.poll(() => page.locator(`[data-stage-id="${second.id}"]`).innerText()).toContain('Shout it');
    // Undo the rename and redo it with the toolbar buttons.
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(async () => (await describeWorkflow()).stages[1]).toMatchObject({ name: null, folder: null });
    await settled(page);
    await page.getByRole('button', { name: 'Redo', exact: true }).click();
    await expect.poll(async () => (await describeWorkflow()).stages[1]).toMatchObject({ name: 'Shout it', folder: '/loud' });
    await settled(page);
    // Bind a value to the first stage's input from its panel (selected by clicking its node).
    await page.locator(`[data-stage-id="${first.id}"]`).click({ position: { x: 120, y: 14 } });
    await expect.poll(() => page.getByRole('complementary', { name: 'Details' }).innerText()).toContain('Stage 1 of 2');
    await page.getByRole('textbox', { name: 'Value of who' }).fill('panx');
    await page.getByRole('button', { name: 'Set', exact: true }).click();
    await expect.poll(async () => (await describeWorkflow()).stages[0]?.input).toEqual({ who: 'panx' });
    await settled(page);
    await page.locator(`[data-stage-id="${second.id}"]`).click({ position: { x: 120, y: 14 } });
    await expect.poll(() => page.getByRole('complementary', { name: 'Details' }).innerText()).toContain('Stage 2 of 2');
    await shoot(page, 'workflow-editor-two-stages');

    // Reorder, then undo; remove the first stage (its link is unbound first), then undo: both stages and the link are back.
    await page.getByRole('button', { name: 'Move the stage earlier' }).click();
    await expect.poll(async () => (await describeWorkflow()).stages.map((stage) => stage.id)).toEqual([second.id, first.id]);
    await settled(page);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(async () => (await describeWorkflow()).stages.map((stage) => stage.id)).toEqual([first.id, second.id]);
    await settled(page);
    await page.locator(`[data-stage-id="${first.id}"]`).click({ position: { x: 120, y: 14 } });
    await page.getByRole('button', { name: 'Remove stage' }).click();
    await expect.poll(async () => (await describeWorkflow()).stages.map((stage) => stage.id)).toEqual([second.id]);
    expect((await describeWorkflow()).stages[0]?.input).toEqual({});
    await settled(page);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect
      .poll(async () => (await describeWorkflow()).stages.map((stage) => [stage.id, stage.input]))
      .toEqual([
        [first.id, { who: 'panx' }],
        [second.id, { text: link }],
      ]);
    await settled(page);
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);

    // Unbind the link from the second stage's panel; Ctrl+Z binds it again.
    await page.locator(`[data-stage-id="${second.id}"]`).click({ position: { x: 120, y: 14 } });
    await page.getByRole('button', { name: 'Unbind text' }).click();
    await expect.poll(async () => (await describeWorkflow()).stages[1]?.input).toEqual({});
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    await settled(page);
    await page.keyboard.press('Control+z');
    await expect.poll(async () => (await describeWorkflow()).stages[1]?.input).toEqual({ text: link });
    await settled(page);

    // Run it from the editor: the analysis page opens and the analysis finishes.
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.waitForURL(/\/monitor\/analysis\/analysis-[0-9A-Za-z]{24}$/);
    const analysis = page.url().split('/').pop() as string;
    let state = '';
    for (let i = 0; i < 600 && !['done', 'failed', 'terminated', 'partially_failed'].includes(state); i++) {
      state = String(((await alice.client.call('analysis-xxxx/describe', analysis, {})) as { state?: string }).state);
      if (state !== 'done') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(state).toBe('done');
    const output = ((await alice.client.call('analysis-xxxx/describe', analysis, {})) as { output?: Record<string, { $dnanexus_link: string }> }).output ?? {};
    const loud = output[`${second.id}.loud`]?.$dnanexus_link as string;
    expect(await alice.client.call('file-xxxx/describe', loud, { project, fields: { name: true, folder: true } })).toMatchObject({
      name: 'greeting.loud.txt',
      folder: '/loud',
    });
    await page.close();
  });

  it('shows an edit made elsewhere meanwhile as a conflict, and keeps and re-applies the user’s edit', async () => {
    const page = await browser.signedInPage(alice, `/panx/projects/${project}/workflows/${workflow}`);
    const before = await describeWorkflow();
    const [first] = before.stages as [StageDescribe];
    await page.locator(`[data-stage-button="${first.id}"]`).click();
    const instanceType = page.getByRole('textbox', { name: 'Instance type' }).or(page.getByRole('combobox', { name: 'Instance type' }));
    await instanceType.click();
    await instanceType.fill('mem2_ssd1_v2_x4');
    await page.getByRole('option', { name: /^mem2_ssd1_v2_x4 · 4 cores/ }).click();
    // Someone else renames the first stage through the API in between.
    await alice.client.call('workflow-xxxx/update', workflow, { editVersion: before.editVersion, stages: { [first.id]: { name: 'Their greeting' } } });
    await page.getByRole('button', { name: 'Apply' }).click();
    const conflict = page.getByTestId('conflict');
    await expect.poll(() => conflict.isVisible()).toBe(true);
    expect(await conflict.innerText()).toContain('Someone else changed this workflow meanwhile');
    expect(await page.getByTestId('conflict-changes').innerText()).toContain('renamed to "Their greeting"');
    expect(await conflict.innerText()).toMatch(/Your edit “Instance type mem2_ssd1_v2_x4” was based on version \d+; the workflow is now at version \d+/);
    // Not applied yet, but kept.
    expect((await describeWorkflow()).stages[0]?.name).toBe('Their greeting');
    await shoot(page, 'workflow-editor-conflict');
    // A reload keeps the waiting edit.
    await page.reload();
    await expect.poll(() => conflict.isVisible()).toBe(true);
    expect(await conflict.innerText()).toContain('Your edit “Instance type mem2_ssd1_v2_x4”');
    await conflict.getByRole('button', { name: 'Re-apply my edit on the latest version' }).click();
    await expect.poll(() => conflict.isVisible()).toBe(false);
    await expect
      .poll(async () => (await describeWorkflow()).stages[0])
      .toMatchObject({
        name: 'Their greeting',
        systemRequirements: { '*': { instanceType: 'mem2_ssd1_v2_x4' } },
      } as never);
    await settled(page);
    expect(await page.locator(`[data-stage-id="${first.id}"]`).innerText()).toContain('mem2_ssd1_v2_x4');

    // Undo after the re-apply takes the user's edit back, leaving the other one.
    await page.locator('.react-flow__pane').click({ position: { x: 10, y: 10 } });
    await page.keyboard.press('Control+z');
    await expect.poll(async () => (await describeWorkflow()).stages[0]).toMatchObject({ name: 'Their greeting', systemRequirements: {} } as never);
    await page.close();
  });

  it('shows the editor read-only, with the reason, to a user with VIEW access', async () => {
    const page = await browser.signedInPage(bob, `/panx/projects/${project}/workflows/${workflow}`);
    await expect
      .poll(() => page.getByTestId('read-only').innerText())
      .toContain('You have VIEW access to this project: editing a workflow needs UPLOAD access or more');
    expect(await page.getByRole('button', { name: 'Add a stage', exact: true }).count()).toBe(0);
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(2);
    const [first] = (await describeWorkflow()).stages as [StageDescribe];
    await page.locator(`[data-stage-button="${first.id}"]`).click();
    expect(await page.getByRole('button', { name: 'Remove stage' }).count()).toBe(0);
    expect(await page.getByRole('textbox', { name: 'Stage name' }).getAttribute('readonly')).not.toBeNull();
    expect(await page.getByRole('button', { name: 'Run now' }).isDisabled()).toBe(true);
    await shoot(page, 'workflow-editor-read-only');

    // An edit saved elsewhere is announced within 15 s, and loading it shows it.
    const now = await describeWorkflow();
    await alice.client.call('workflow-xxxx/update', workflow, { editVersion: now.editVersion, stages: { [first.id]: { name: 'Renamed elsewhere' } } });
    await expect.poll(() => page.getByTestId('newer-version').isVisible(), { timeout: 25_000, interval: 500 }).toBe(true);
    expect(await page.getByTestId('newer-version').innerText()).toContain(
      `saved version ${now.editVersion + 1} of this workflow while you were looking at version ${now.editVersion}`,
    );
    await page.getByRole('button', { name: 'Load the latest version' }).click();
    await expect.poll(() => page.locator(`[data-stage-id="${first.id}"]`).innerText()).toContain('Renamed elsewhere');
    await expect.poll(() => page.getByTestId('newer-version').count()).toBe(0);
    await page.close();
  });

  it('imports an exported workflow through the importer page, with its status output and log', async () => {
    const { document } = await alice.client.call('workflow-xxxx/export', workflow, { project });
    const file = path.join(tmp, 'greet-and-shout.json');
    fs.writeFileSync(file, JSON.stringify(document, null, 2));
    const page = await browser.signedInPage(alice, `/panx/tools/import-workflow/?project=${project}`);
    await page.locator('input[type="file"]').setInputFiles(file);
    await expect.poll(() => page.getByTestId('import-preview').innerText()).toMatch(/panx-json/i);
    expect(await page.getByTestId('import-preview').innerText()).toContain(shouter);
    await page.getByRole('combobox', { name: 'Output folder' }).fill('/imported');
    await page.getByRole('textbox', { name: 'Workflow name' }).fill('greet-and-shout imported');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('import-status-badge').innerText(), { timeout: 30_000 }).toBe('DONE');
    expect(await page.getByTestId('status-code').innerText()).toBe('0');
    const log = await page.getByTestId('import-log').innerText();
    expect(log).toContain('Format: panx-json');
    expect(log).toMatch(/Compiled workflow-[0-9A-Za-z]{24} \(editVersion 0\) with the stages stage-/);
    const imported = (await alice.client.call('system/findDataObjects', { class: 'workflow', scope: { project, folder: '/imported' }, describe: true }))
      .results;
    expect(imported.map((result) => (result.describe as { name: string }).name)).toEqual(['greet-and-shout imported']);
    const files = (await alice.client.call('system/findDataObjects', { class: 'file', scope: { project, folder: '/imported' }, describe: true })).results;
    expect(files.map((result) => (result.describe as { name: string }).name).sort()).toEqual(['greet-and-shout.json', 'greet-and-shout.json.import.log']);
    const copy = await describeWorkflow(imported[0]?.id);
    expect(copy.stages.map((stage) => stage.executable)).toEqual([producer, shouter]);
    expect(await page.getByTestId('status-output').innerText()).toContain(imported[0]?.id as string);
    await shoot(page, 'workflow-importer-done');

    // A document the server refuses: status code 1, and the log says why.
    const bad = path.join(tmp, 'broken.json');
    fs.writeFileSync(bad, JSON.stringify({ name: 'broken', stages: [{ id: 'one', executable: 'applet-000000000000000000000000' }] }));
    await page.locator('input[type="file"]').setInputFiles(bad);
    await page.getByRole('textbox', { name: 'Workflow name' }).fill('');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('import-status-badge').innerText(), { timeout: 30_000 }).toBe('FAILED');
    expect(await page.getByTestId('status-code').innerText()).toBe('1');
    expect(await page.getByTestId('import-log').innerText()).toMatch(/ERROR .*applet-000000000000000000000000/);
    await shoot(page, 'workflow-importer-failed');

    // Not a workflow at all: refused before anything is sent.
    const text = path.join(tmp, 'notes.json');
    fs.writeFileSync(text, '{"title": "a note"}');
    await page.locator('input[type="file"]').setInputFiles(text);
    await expect.poll(() => page.getByText('is not a workflow in a known language').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Import', exact: true }).isDisabled()).toBe(true);
    await page.close();
  });
});
