import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, type PanxClient } from '@panx/client';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadBytes, expectPutOk, MIN_PART, MiB, md5, putPart, random, sha256, sleep, waitForState } from './data-helpers.js';
import { expectApiError } from './harness.js';
import { freePort } from './moto.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const serverDir = path.join(root, 'packages/server');
const mainJs = path.join(serverDir, 'dist/main.js');

/** Newest modification time of the files under a directory. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/** The server is run from its build: rebuild when the sources are newer (npm test has built it already). */
function ensureBuilt(): void {
  const sources = Math.max(newest(path.join(serverDir, 'src')), newest(path.join(root, 'packages/contract/src')));
  if (fs.existsSync(mainJs) && fs.statSync(mainJs).mtimeMs >= sources) return;
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', 'packages/server'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building the server failed:\n${result.stdout}${result.stderr}`);
}

/** One data directory, served by a succession of server processes that the test kills at will. */
class CrashableServer {
  readonly dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-crash-'));
  readonly token = `crash-${randomBytes(16).toString('hex')}`;
  private child: ChildProcess | undefined;
  private output = '';
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get blobRoot(): string {
    return path.join(this.dataDir, 'blobs');
  }

  client(): PanxClient {
    return createClient({ baseUrl: this.url, token: this.token, retries: 0 });
  }

  async start(): Promise<void> {
    this.port = await freePort();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PANX_DATA_DIR: this.dataDir,
      PANX_PORT: String(this.port),
      PANX_HOST: '127.0.0.1',
      PANX_PUBLIC_URL: this.url,
      PANX_ADMIN_TOKEN: this.token,
      PANX_DEMO_PROJECT: 'false',
      PANX_LOG_LEVEL: 'warn',
    };
    const child = spawn(process.execPath, [mainJs], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${this.output}`);
      try {
        const response = await fetch(`${this.url}/health`);
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`the server did not start:\n${this.output}`);
      await sleep(50);
    }
  }

  /** SIGKILL: no shutdown code runs, exactly like a crash or a power cut of the process. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.child = undefined;
  }

  async stop(): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const code = await exited;
    this.child = undefined;
    return code;
  }

  /** The metadata database, opened directly while no server runs. */
  db<T>(work: (db: Database.Database) => T): T {
    expect(this.child).toBeUndefined();
    const db = new Database(path.join(this.dataDir, 'panx.db'));
    try {
      return work(db);
    } finally {
      db.close();
    }
  }

  assembledBlob(fileId: string): string {
    return path.join(this.blobRoot, 'blobs', 'files', fileId);
  }

  uploadDir(uploadId: string): string {
    return path.join(this.blobRoot, 'uploads', uploadId);
  }

  scratch(): string[] {
    return fs.existsSync(path.join(this.blobRoot, 'tmp')) ? fs.readdirSync(path.join(this.blobRoot, 'tmp')) : [];
  }
}

describe('crash safety (SQLite + local storage, server in a child process killed with SIGKILL)', () => {
  const server = new CrashableServer();
  /** Every file that must be closed and intact after each restart: id → sha256. */
  const closed = new Map<string, string>();
  let admin: PanxClient;
  let project: string;

  const expectAllIntact = async () => {
    for (const [id, digest] of closed) {
      expect((await admin.call('file-xxxx/describe', id, {})).state, id).toBe('closed');
      expect(sha256(await downloadBytes(admin, id)), id).toBe(digest);
    }
  };
  const restart = async () => {
    await server.start();
    admin = server.client();
  };

  beforeAll(async () => {
    ensureBuilt();
    await restart();
    ({ id: project } = await admin.call('project/new', { name: 'crash' }));
  }, 120_000);
  afterAll(async () => {
    await server.kill();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  let big = '';
  let stale = '';
  let staleUpload = '';
  let fresh = '';
  let freshFirst = Buffer.alloc(0);

  it('finishes a close that was killed in the middle of assembling a large file', async () => {
    const small = [random(MIN_PART), random(100_000)];
    closed.set(await uploadAndClose(admin, project, small, 'small'), sha256(Buffer.concat(small)));

    // Left open: one fresh (must survive every restart), one that will look a day old.
    ({ id: fresh } = await admin.call('file/new', { project, name: 'fresh-open' }));
    freshFirst = random(MIN_PART);
    await expectPutOk(await putPart(admin, fresh, 1, freshFirst), freshFirst);
    ({ id: stale } = await admin.call('file/new', { project, name: 'stale-open' }));
    const staleBytes = random(1000);
    await expectPutOk(await putPart(admin, stale, 1, staleBytes), staleBytes);

    const parts = Array.from({ length: 3 }, () => random(12 * MiB));
    ({ id: big } = await admin.call('file/new', { project, name: 'big' }));
    for (const [i, part] of parts.entries()) await expectPutOk(await putPart(admin, big, i + 1, part), part);
    await admin.call('file-xxxx/close', big, {});
    // Kill the moment the assembled scratch file appears: the close is then certainly half done.
    const deadline = Date.now() + 20_000;
    while (!server.scratch().some((name) => name.includes('.assembled.'))) {
      if (Date.now() > deadline) throw new Error('the assembly never started');
      await new Promise((resolve) => setImmediate(resolve));
    }
    await server.kill();
    const state = server.db((db) => db.prepare('select state, uploadId from objects where id = ?').get(big) as { state: string; uploadId: string });
    expect(state.state).toBe('closing');
    expect(fs.existsSync(server.assembledBlob(big))).toBe(false);
    staleUpload = server.db((db) => (db.prepare('select uploadId from objects where id = ?').get(stale) as { uploadId: string }).uploadId);
    expect(fs.existsSync(server.uploadDir(staleUpload))).toBe(true);

    // The stale upload's last activity moves back 25 hours while the server is down.
    server.db((db) => db.prepare('update objects set stateChanged = ? where id = ?').run(Date.now() - 25 * 3600_000, stale));

    await restart();
    const described = await waitForState(admin, big, 'closed');
    expect(described.size).toBe(3 * 12 * MiB);
    closed.set(big, sha256(Buffer.concat(parts)));
    await expectAllIntact();
  }, 120_000);

  it('abandons uploads left open for over 24 hours at start-up, and keeps the fresh one', async () => {
    await expectApiError(admin.call('file-xxxx/describe', stale, {}), 'ResourceNotFound');
    expect(fs.existsSync(server.uploadDir(staleUpload))).toBe(false);
    const freshNow = await admin.call('file-xxxx/describe', fresh, { fields: { state: true, parts: true } });
    expect(freshNow).toEqual({ id: fresh, state: 'open', parts: { '1': { state: 'complete', size: MIN_PART, md5: md5(freshFirst) } } });
  });

  it('recovers from a kill in the middle of a part PUT, right after a close, and right after a removal', async () => {
    // A close accepted just before the crash.
    const quickParts = [random(MIN_PART), random(1025)];
    const { id: quick } = await admin.call('file/new', { project, name: 'quick' });
    for (const [i, part] of quickParts.entries()) await expectPutOk(await putPart(admin, quick, i + 1, part), part);
    // A removal just before the crash (its blob may or may not have been deleted yet).
    const [victim] = [...closed.keys()] as [string];
    // A part PUT that is half sent when the server dies.
    const declared = random(8 * MiB);
    const upload = await admin.call('file-xxxx/upload', fresh, { index: 2, size: declared.length, md5: md5(declared) });
    let sent!: () => void;
    const halfSent = new Promise<void>((resolve) => {
      sent = resolve;
    });
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(declared.subarray(0, 4 * MiB)));
        sent();
        // ... and never the rest.
      },
    });
    const put = fetch(upload.url, { method: 'PUT', headers: upload.headers, body: stalled, duplex: 'half' } as RequestInit).catch((error: Error) => error);
    await halfSent;
    await admin.call('project-xxxx/removeObjects', project, { objects: [victim] });
    await admin.call('file-xxxx/close', quick, {});
    await sleep(100);
    await server.kill();
    expect(await put).toBeInstanceOf(Error);
    closed.delete(victim);

    await restart();
    closed.set(quick, sha256(Buffer.concat(quickParts)));
    await waitForState(admin, quick, 'closed');
    await expectAllIntact();
    const parts = (await admin.call('file-xxxx/describe', fresh, { fields: { parts: true } })).parts as Record<string, unknown>;
    expect(Object.keys(parts)).toEqual(['1']);
    await expectApiError(admin.call('file-xxxx/describe', victim, {}), 'ResourceNotFound');
    // Pending deletions are finished in the background after the start.
    const deadline = Date.now() + 15_000;
    while (fs.existsSync(server.assembledBlob(victim))) {
      if (Date.now() > deadline) throw new Error(`the blob of ${victim} was never deleted`);
      await sleep(25);
    }

    // The open file is still usable: its last part, then a close.
    const last = random(2 * MiB + 1);
    await expectPutOk(await putPart(admin, fresh, 2, last), last);
    await admin.call('file-xxxx/close', fresh, {});
    await waitForState(admin, fresh, 'closed');
    closed.set(fresh, sha256(Buffer.concat([freshFirst, last])));
    await expectAllIntact();
    // The parts directory of every closed (or abandoned) upload is gone.
    expect(fs.readdirSync(path.join(server.blobRoot, 'uploads'))).toEqual([]);
  }, 60_000);

  it('survives a kill while idle and shuts down cleanly on SIGTERM', async () => {
    await server.kill();
    await restart();
    await expectAllIntact();
    expect(await server.stop()).toBe(0);
    const pending = server.db((db) => (db.prepare('select count(*) as n from blobDeletions').get() as { n: number }).n);
    expect(pending).toBe(0);
    const states = server.db((db) => db.prepare("select state, count(*) as n from objects where class = 'file' group by state").all());
    expect(states).toEqual([{ state: 'closed', n: closed.size }]);
  }, 60_000);
});

async function uploadAndClose(client: PanxClient, project: string, parts: Buffer[], name: string): Promise<string> {
  const { id } = await client.call('file/new', { project, name });
  for (const [i, part] of parts.entries()) await expectPutOk(await putPart(client, id, i + 1, part), part);
  await client.call('file-xxxx/close', id, {});
  await waitForState(client, id, 'closed');
  return id;
}
