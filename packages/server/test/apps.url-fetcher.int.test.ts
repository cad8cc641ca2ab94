import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppCatalogue } from '../src/demo/app-catalogue.js';
import { APPS_DIR } from './apps-helpers.js';
import { downloadBytes } from './data-helpers.js';
import { logOf, waitForJob } from './engine-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

/**
 * The url_fetcher app (what the data browser's "Import from URLs" runs, one job per URL) against a
 * local HTTP server: names from Content-Disposition, the URL or the input, checksums, HTTP errors,
 * schemes that would read the worker's own files, and credentials kept out of the log.
 */

const BODY = Buffer.from('##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n'.repeat(2000));
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

describe('url_fetcher', () => {
  let t: TestPlatform;
  let web: Server;
  let base: string;
  let project: string;
  let appsDir: string;
  const seen: string[] = [];

  beforeAll(async () => {
    web = http.createServer((req, res) => {
      seen.push(`${req.url} ${req.headers.authorization ?? ''}`);
      if (req.url?.startsWith('/named')) {
        res.writeHead(200, { 'content-disposition': 'attachment; filename="from-header.vcf"' }).end(BODY);
      } else if (req.url?.startsWith('/redirect')) {
        res.writeHead(302, { location: '/data/after%20redirect.vcf' }).end();
      } else if (req.url?.startsWith('/to-file')) {
        res.writeHead(302, { location: 'file:///etc/hostname' }).end();
      } else if (req.url?.startsWith('/data/')) {
        res.writeHead(200).end(BODY);
      } else {
        res.writeHead(404).end('not here');
      }
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    t = await startTestPlatform(undefined, { engine: { tickMs: 100 } });
    // Only this app: a catalogue folder holding a copy of it.
    appsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-apps-'));
    fs.cpSync(path.join(APPS_DIR, 'url_fetcher'), path.join(appsDir, 'url_fetcher'), { recursive: true });
    const admin = { userId: 'user-admin', tokenId: 'test', tokenKind: 'api' as const, isAdmin: true, scope: null };
    expect((await loadAppCatalogue(t.platform.services, admin, { appsDir })).created).toEqual(['url_fetcher/1.0.0']);
    project = (await t.admin.call('project/new', { name: 'imports' })).id;
  }, 60_000);

  afterAll(async () => {
    await t?.platform.scheduler?.close();
    (t?.platform.http.server as Server | undefined)?.closeAllConnections();
    await t?.close();
    web?.close();
    if (appsDir) fs.rmSync(appsDir, { recursive: true, force: true });
  });

  async function fetchUrl(input: Record<string, unknown>, folder = '/imported') {
    const { id } = (await t.admin.post('app-url_fetcher', 'run', { project, folder, input })) as { id: string };
    return waitForJob(t.admin, id, ['done', 'failed'], 60_000);
  }

  async function outputFile(job: Awaited<ReturnType<typeof fetchUrl>>) {
    const link = (job.output as { file: { $dnanexus_link: string } }).file.$dnanexus_link;
    const described = await t.admin.call('file-xxxx/describe', link, { project });
    return { described, bytes: await downloadBytes(t.admin, link, project) };
  }

  it('saves the body under the Content-Disposition name in the output folder', async () => {
    const job = await fetchUrl({ url: `${base}/named?token=abc` });
    expect(job.state).toBe('done');
    const { described, bytes } = await outputFile(job);
    expect(described).toMatchObject({ name: 'from-header.vcf', folder: '/imported', state: 'closed', project });
    expect(bytes.equals(BODY)).toBe(true);
  });

  it('takes the decoded last path segment of the URL after redirects, or the given name, and verifies an MD5', async () => {
    const named = await outputFile(await fetchUrl({ url: `${base}/data/sample%201.vcf?x=1#frag`, md5: md5(BODY).toUpperCase() }));
    expect(named.described.name).toBe('sample 1.vcf');
    expect(named.bytes.equals(BODY)).toBe(true);
    const given = await outputFile(await fetchUrl({ url: `${base}/data/ignored.vcf`, output_name: 'chosen.vcf' }, '/other'));
    expect(given.described).toMatchObject({ name: 'chosen.vcf', folder: '/other' });
    // After a redirect, the name comes from the URL that answered.
    const redirected = await fetchUrl({ url: `${base}/redirect` });
    expect((await outputFile(redirected)).described.name).toBe('after redirect.vcf');
  });

  it('fails with AppError, saving nothing, on an HTTP error, a wrong checksum or a scheme other than http, https and ftp', async () => {
    const before = (await t.admin.call('system/findDataObjects', { scope: { project }, class: 'file' })).results.length;
    const missing = await fetchUrl({ url: `${base}/missing.vcf` });
    expect(missing).toMatchObject({ state: 'failed', failureReason: 'AppError' });
    expect(String(missing.failureMessage)).toContain(`${base}/missing.vcf`);

    const wrong = await fetchUrl({ url: `${base}/data/a.vcf`, md5: '0'.repeat(32) });
    expect(wrong).toMatchObject({ state: 'failed', failureReason: 'AppError' });
    expect(String(wrong.failureMessage)).toContain(`not the expected ${'0'.repeat(32)}`);

    const local = await fetchUrl({ url: 'file:///etc/hostname' });
    expect(local).toMatchObject({ state: 'failed', failureReason: 'AppError' });
    expect(String(local.failureMessage)).toContain("Only http, https and ftp URLs can be fetched, not 'file:///etc/hostname'");
    const viaRedirect = await fetchUrl({ url: `${base}/to-file` });
    expect(viaRedirect).toMatchObject({ state: 'failed', failureReason: 'AppError' });

    expect((await t.admin.call('system/findDataObjects', { scope: { project }, class: 'file' })).results.length).toBe(before);
  });

  it('sends credentials in the URL to the server but never prints them', async () => {
    const job = await fetchUrl({ url: `http://reader:s3cret@127.0.0.1:${(web.address() as AddressInfo).port}/data/private.vcf` });
    expect(job.state).toBe('done');
    expect(seen.some((line) => line.startsWith('/data/private.vcf Basic '))).toBe(true);
    const log = (await logOf(t.admin, job.id)).map((line) => line.msg).join('\n');
    expect(log).toContain(`Fetching http://127.0.0.1:${(web.address() as AddressInfo).port}/data/private.vcf`);
    expect(log).not.toContain('s3cret');
  });
});
