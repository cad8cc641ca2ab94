import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@panx/client';
import { Limiter, silentProgress, uploadFile } from '@panx/client/transfer';
import { BACKENDS, startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { type PxOptions, pxOk, runPx, tempDir } from './run-px.js';

const MiB = 1024 * 1024;

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** How much of `file` is in the page cache (util-linux's fincore). */
function residentBytes(file: string): number {
  const run = spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', file], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`fincore failed: ${run.stderr}`);
  return Number(run.stdout.trim());
}

/** On SQLite + local blobs and on PostgreSQL + S3 (moto), where downloads go straight to presigned S3 URLs. */
describe.each(BACKENDS)('px upload and download on $name', (backend) => {
  let t: TestPlatform;
  let home: string;
  let work: string;
  let project: string;
  const opts = (extra: Partial<PxOptions> = {}): PxOptions => ({ configDir: home, cwd: work, ...extra });
  const px = (args: string[], extra: Partial<PxOptions> = {}) => runPx(args, opts(extra));
  const ok = (...args: string[]) => pxOk(args, opts());

  beforeAll(async () => {
    t = await startTestPlatform(backend);
    home = tempDir('px-transfer-home-');
    work = tempDir('px-transfer-work-');
    await ok('login', '--server', t.url, '--token', t.adminToken);
    project = (await ok('new', 'project', 'transfers', '--select')).trim();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    for (const dir of [home, work]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uploads 50 MB in parts, resumes after being killed mid-upload, and downloads the same bytes, resuming a killed download with Range', async () => {
    const source = path.join(work, 'reads.bin');
    fs.writeFileSync(source, randomBytes(50 * 1000 * 1000));
    const digest = sha256(source);

    // Killed by the test hook once 3 parts are in: the state file remembers the open file.
    const killed = await px(['upload', source, '--part-size', '5', '--parts', '2'], { env: { PANX_TEST_ABORT_AFTER_PARTS: '3' } });
    expect(killed.signal).toBe('SIGKILL');
    const stateDir = path.join(home, 'uploads');
    const states = fs.readdirSync(stateDir);
    expect(states).toHaveLength(1);
    const state = JSON.parse(fs.readFileSync(path.join(stateDir, states[0] as string), 'utf8')) as { fileId: string; partSize: number };
    expect(state.partSize).toBe(5 * MiB);
    const partial = await t.admin.call('file-xxxx/describe', state.fileId, { project, fields: { parts: true, state: true } });
    expect(partial.state).toBe('open');
    const before = Object.values(partial.parts as Record<string, { state: string }>).filter((part) => part.state === 'complete').length;
    expect(before).toBeGreaterThanOrEqual(3);
    expect(before).toBeLessThan(10);

    // The same command finishes the same file, sending only the missing parts.
    const resumed = await px(['upload', source, '--part-size', '5', '--parts', '2', '--wait']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe(`${state.fileId}\n`);
    // A part still being stored when the process died may have landed since: at least `before` are there.
    const there = Number(new RegExp(`Resuming the upload of ${source} into ${state.fileId}: (\\d+) of 10 parts are on the server`).exec(resumed.stderr)?.[1]);
    expect(there).toBeGreaterThanOrEqual(before);
    expect(resumed.stderr).toContain(`uploaded ${10 - there} of 10 parts, the other ${there} were already on the server`);
    expect(fs.readdirSync(stateDir)).toEqual([]);
    const closed = await t.admin.call('file-xxxx/describe', state.fileId, { project, fields: { state: true, size: true, parts: true, name: true } });
    expect(closed).toMatchObject({ state: 'closed', size: 50_000_000, name: 'reads.bin' });
    expect(Object.keys(closed.parts as object)).toHaveLength(10);
    expect((await t.admin.call('system/findDataObjects', { scope: { project } })).results).toHaveLength(1);

    // Download killed after 20 MB: the .part file stays, and the next run asks for the rest with Range.
    const out = path.join(work, 'copy.bin');
    const cut = await px(['download', 'reads.bin', '-o', out], { env: { PANX_TEST_ABORT_AFTER_BYTES: String(20 * 1000 * 1000) } });
    expect(cut.signal).toBe('SIGKILL');
    expect(fs.existsSync(out)).toBe(false);
    const have = fs.statSync(`${out}.part`).size;
    expect(have).toBeGreaterThanOrEqual(20_000_000);
    expect(have).toBeLessThan(50_000_000);
    const finished = await px(['download', 'reads.bin', '-o', out]);
    expect(finished.code).toBe(0);
    expect(finished.stderr).toContain(`Resuming the download of reads.bin at byte ${have} of 50000000`);
    expect(fs.existsSync(`${out}.part`)).toBe(false);
    expect(sha256(out)).toBe(digest);
    // --direct-io always: written around the page cache, so hardly any of it is in memory; never: all of it.
    // (auto, the default above, starts in the page cache and moves around it once it is slow.)
    const direct = path.join(work, 'direct.bin');
    expect((await px(['download', 'reads.bin', '-o', direct, '--direct-io', 'always'])).code).toBe(0);
    expect(residentBytes(direct)).toBeLessThan(MiB);
    expect(sha256(direct)).toBe(digest);
    const cached = path.join(work, 'cached.bin');
    expect((await px(['download', 'reads.bin', '-o', cached, '--direct-io', 'never'])).code).toBe(0);
    expect(residentBytes(cached)).toBeGreaterThan(45 * MiB);
    expect(sha256(cached)).toBe(digest);
    expect(await px(['download', 'reads.bin', '-o', path.join(work, 'x.bin'), '--direct-io', 'sometimes'])).toMatchObject({ code: 3 });

    // A .part file with wrong bytes fails the md5 check of its part and is thrown away.
    const again = path.join(work, 'again.bin');
    fs.writeFileSync(`${again}.part`, Buffer.alloc(6 * MiB, 7));
    const corrupt = await px(['download', state.fileId, '-o', again]);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toContain(`error: the md5 of part 1 of ${state.fileId} does not match`);
    expect(fs.existsSync(`${again}.part`)).toBe(false);
    expect(fs.existsSync(again)).toBe(false);
    const exists = await px(['download', 'reads.bin', '-o', out]);
    expect(exists).toMatchObject({ code: 1, stderr: `error: ${out} already exists: use -f to overwrite it\n` });

    if (backend.blobs === 'local') {
      // One byte of part 7 flipped in the store: the check of the bytes as they stream in catches it.
      const folder = path.join(t.platform.config.blobDir, 'blobs', 'files', state.fileId);
      const part7 = path.join(folder, fs.readdirSync(folder).find((name) => name.startsWith('7.')) as string);
      const stored = fs.readFileSync(part7);
      const flipped = Buffer.from(stored);
      flipped[12345] = (flipped[12345] as number) ^ 1;
      fs.writeFileSync(part7, flipped);
      try {
        const bad = await px(['download', 'reads.bin', '-o', path.join(work, 'bad.bin')]);
        expect(bad.code).toBe(1);
        expect(bad.stderr).toContain(`error: the md5 of part 7 of ${state.fileId} does not match`);
        expect(fs.existsSync(path.join(work, 'bad.bin.part'))).toBe(false);
      } finally {
        fs.writeFileSync(part7, stored);
      }
    }
  });

  it('uploads folders recursively into matching folders and downloads them back with -r', async () => {
    const tree = path.join(work, 'run1');
    fs.mkdirSync(path.join(tree, 'lane1', 'qc'), { recursive: true });
    fs.mkdirSync(path.join(tree, 'empty'));
    fs.writeFileSync(path.join(tree, 'sample.csv'), 'id,reads\ns1,100\n');
    fs.writeFileSync(path.join(tree, 'lane1', 'r1.fq'), randomBytes(300_000));
    fs.writeFileSync(path.join(tree, 'lane1', 'qc', 'report.txt'), '');

    const noRecurse = await px(['upload', tree]);
    expect(noRecurse.code).toBe(3);
    const uploaded = JSON.parse(await ok('upload', tree, '-r', '-d', '/runs', '--parents', '--json', '--tag', 'raw', '--property', 'batch=7')) as {
      id: string;
      folder: string;
      name: string;
    }[];
    expect(uploaded.map((entry) => `${entry.folder}/${entry.name}`).sort()).toEqual([
      '/runs/run1/lane1/qc/report.txt',
      '/runs/run1/lane1/r1.fq',
      '/runs/run1/sample.csv',
    ]);
    expect((await t.admin.call('project-xxxx/listFolder', project, { folder: '/runs/run1' })).folders).toEqual(['/runs/run1/empty', '/runs/run1/lane1']);
    const tagged = await t.admin.call('system/findDataObjects', { scope: { project, folder: '/runs' }, tags: 'raw', properties: { batch: '7' } });
    expect(tagged.results).toHaveLength(3);
    expect(await ok('cat', '/runs/run1/sample.csv')).toBe('id,reads\ns1,100\n');

    const outDir = path.join(work, 'back');
    await ok('download', '-r', '/runs/run1', '-o', outDir);
    for (const relative of ['sample.csv', 'lane1/r1.fq', 'lane1/qc/report.txt']) {
      expect(sha256(path.join(outDir, 'run1', relative)), relative).toBe(sha256(path.join(tree, relative)));
    }
    const folder = await px(['download', '/runs/run1']);
    expect(folder.code).toBe(3);
  });

  it('uploads a file of at most 5 MiB without asking for the project upload parameters, and a larger one after asking', async () => {
    const calls: string[] = [];
    const client = createClient({
      baseUrl: t.url,
      token: t.adminToken,
      fetch: (input, init) => {
        calls.push(new URL(String(input)).pathname);
        return fetch(input, init);
      },
    });
    const shared = { parts: new Limiter(4), progress: silentProgress, parameters: new Map() };
    const settings = { partSizeBytes: 16 * MiB, wait: true };
    const upload = async (name: string, bytes: Buffer) => {
      const local = path.join(work, name);
      fs.writeFileSync(local, bytes);
      calls.length = 0;
      const { id } = await uploadFile(client, local, { project, folder: '/', name, parents: false }, settings, shared);
      expect(await t.admin.call('file-xxxx/describe', id, { fields: { state: true, size: true } })).toMatchObject({ state: 'closed', size: bytes.length });
      // The project's describe (for its upload parameters); waiting for the file to close may describe the file.
      return calls.filter((call) => call === `/${project}/describe`);
    };
    expect(await upload('small.bin', randomBytes(5 * MiB))).toEqual([]);
    expect(await upload('large.bin', randomBytes(5 * MiB + 1))).toEqual([`/${project}/describe`]);
  });
});
