/**
 * End-to-end in headless Chromium: "Import from URLs" on the data page (url_fetcher jobs fetching
 * from a local HTTP server, progress, the new file in the folder, a failed URL said plainly) and
 * PDF files drawn by the file viewer. Screenshots go to test-results/screenshots/.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadAppCatalogue } from '../../server/src/demo/app-catalogue.js';
import { BACKENDS, startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { type Account, type Browser, browserAvailable, createAccount, launchBrowser, shoot, webDir } from './browser.js';

const APPS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'apps');
const VCF = Buffer.from(`##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n${'chrT\t100\t.\tA\tG\t50\tPASS\t.\n'.repeat(500)}`);

/** A one-page PDF saying `text`, with a correct cross-reference table. */
function pdfSaying(text: string): Buffer {
  const stream = `BT /F1 24 Tf 72 700 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

it.runIf(!browserAvailable && process.env.PANX_E2E_REQUIRED === '1')('has Chromium and the built web app for the import end-to-end suite', () => {
  expect(browserAvailable).toBe(true);
});

describe.skipIf(!browserAvailable).each(BACKENDS)('importing from URLs and viewing PDFs in Chromium on $name', { timeout: 120_000 }, (backend) => {
  let server: TestPlatform;
  let browser: Browser;
  let files: Server;
  let filesUrl: string;
  let appsDir: string;
  let alice: Account;

  beforeAll(async () => {
    files = http.createServer((req, res) => {
      if (req.url === '/data/calls.vcf') res.writeHead(200, { 'content-type': 'text/plain' }).end(VCF);
      else res.writeHead(404).end('no such file');
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    server = await startTestPlatform(backend, { webDir, engine: { tickMs: 100 } });
    appsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-apps-'));
    fs.cpSync(path.join(APPS_DIR, 'url_fetcher'), path.join(appsDir, 'url_fetcher'), { recursive: true });
    const admin = { userId: 'user-admin', tokenId: 'test', tokenKind: 'api' as const, isAdmin: true, scope: null };
    expect((await loadAppCatalogue(server.platform.services, admin, { appsDir })).created).toEqual(['url_fetcher/1.0.0']);
    alice = await createAccount(server, 'alice');
    browser = await launchBrowser(server, 'import');
  });

  afterEach(() => {
    expect(browser.problems.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.platform.scheduler?.close();
    (server?.platform.http.server as Server | undefined)?.closeAllConnections();
    await server?.close();
    files?.close();
    if (appsDir) fs.rmSync(appsDir, { recursive: true, force: true });
  });

  it('imports files from URLs into the folder on screen, one job each, and says which failed', async () => {
    const { id: project } = await alice.client.call('project/new', { name: 'Imports' });
    await alice.client.call('project-xxxx/newFolder', project, { folder: '/incoming' });
    const page = await browser.signedInPage(alice, `/panx/projects/${project}/data/incoming`);
    await page.getByRole('button', { name: 'Import from URLs' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import from URLs' });
    const box = dialog.getByRole('textbox', { name: 'URLs, one per line' });

    // Checked before anything runs: a file:// line is refused with its line number.
    await box.fill('file:///etc/passwd');
    await dialog.getByText('Line 1: only http, https and ftp URLs can be imported (not file)').waitFor();
    expect(await dialog.getByRole('button', { name: 'Import' }).isDisabled()).toBe(true);

    await box.fill(`${filesUrl}/data/calls.vcf\n${filesUrl}/data/missing.vcf`);
    await dialog.getByText('2 files to import').waitFor();
    await shoot(page, 'data-import-urls');
    await dialog.getByRole('button', { name: 'Import' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const progress = page.getByTestId('import-progress');
    await progress.getByText('Imports finished').waitFor({ timeout: 60_000 });
    expect(await progress.getByText('done', { exact: true }).count()).toBe(1);
    expect(await progress.getByText('failed', { exact: true }).count()).toBe(1);
    await progress.getByText(`Could not fetch ${filesUrl}/data/missing.vcf`, { exact: false }).waitFor();
    // The imported file is in the folder without a reload, with the fetched bytes.
    await page.getByRole('button', { name: 'calls.vcf', exact: true }).waitFor();
    await shoot(page, 'data-import-finished');
    const { results } = await alice.client.call('system/findDataObjects', { scope: { project, folder: '/incoming' }, name: 'calls.vcf', class: 'file' });
    expect(results).toHaveLength(1);
    const download = await alice.client.call('file-xxxx/download', results[0]?.id as string, { project });
    const bytes = Buffer.from(await (await fetch(download.url, { headers: download.headers })).arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(createHash('sha256').update(VCF).digest('hex'));
    // Nothing half-made for the failed URL.
    const all = await alice.client.call('system/findDataObjects', { scope: { project }, class: 'file' });
    expect(all.results).toHaveLength(1);

    // "New workflow" opens the editor's new-workflow form for the folder on screen.
    await page.getByRole('link', { name: 'New workflow' }).click();
    await page.waitForURL(`**/panx/projects/${project}/workflows/new?folder=%2Fincoming`);
    expect(await page.getByRole('textbox', { name: 'Folder' }).inputValue()).toBe('/incoming');
  });

  it('does not offer importing to a VIEW member', async () => {
    const { id: project } = await alice.client.call('project/new', { name: 'Shared to view' });
    const bob = await createAccount(server, 'bob');
    await alice.client.call('project-xxxx/invite', project, { invitee: bob.id, level: 'VIEW', suppressEmailNotification: true });
    const page = await browser.signedInPage(bob, `/panx/projects/${project}/data/`);
    const button = page.getByRole('button', { name: 'Import from URLs' });
    await button.waitFor();
    expect(await button.isDisabled()).toBe(true);
  });

  it('draws a PDF page in the file viewer, with its text', async () => {
    const { id: project } = await alice.client.call('project/new', { name: 'Reports' });
    const bytes = pdfSaying('Panx coverage report');
    const { id } = await alice.client.call('file/new', { project, name: 'report.pdf', media: 'application/pdf' });
    const md5 = createHash('md5').update(bytes).digest('hex');
    const { url, headers } = await alice.client.call('file-xxxx/upload', id, { index: 1, size: bytes.length, md5 });
    expect((await fetch(url, { method: 'PUT', headers, body: new Blob([new Uint8Array(bytes)]) })).ok).toBe(true);
    await alice.client.call('file-xxxx/close', id, {});
    for (let i = 0; i < 100 && (await alice.client.call('file-xxxx/describe', id, { project })).state !== 'closed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const page = await browser.signedInPage(alice, `/panx/${project}/${id}/view`);
    await page.getByText('Panx coverage report').waitFor({ timeout: 30_000 });
    // The page is drawn on a canvas with ink on it, not left blank.
    const inked = await page
      .locator('canvas')
      .first()
      .evaluate((canvas: HTMLCanvasElement) => {
        const context = canvas.getContext('2d');
        if (!context) return 0;
        const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
        let dark = 0;
        for (let i = 0; i < data.length; i += 4) if ((data[i] ?? 255) < 128 && (data[i + 3] ?? 0) > 0) dark++;
        return dark;
      });
    expect(inked).toBeGreaterThan(100);
    await shoot(page, 'viewer-pdf');
  });
});
