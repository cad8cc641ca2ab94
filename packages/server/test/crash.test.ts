import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient, type PanxClient } from '@panx/client';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { downloadBytes, expectPutOk, MIN_PART, MiB, md5, putPart, random, sha256, sleep, waitForState } from './data-helpers.js';
import { FsBlobStore } from '../src/storage/fs.blob-store.js';
import { ensureServerBuilt, ROOT, SERVER_ARGS } from './built-server.js';
import { expectApiError } from './harness.js';
import { freePort } from './moto.js';

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
    const child = spawn(process.execPath, [...SERVER_ARGS], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
    ensureServerBuilt();
    await restart();
    ({ id: project } = await admin.call('project/new', { name: 'crash' }));
  }, 120_000);
  afterAll(async () => {
    await server.kill();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  let stale = '';
  let staleUpload = '';
  let fresh = '';
  let freshFirst = Buffer.alloc(0);

  it('finishes closes killed at every step: before the manifest, after it, and after the parts folder moved', async () => {
    const small = [random(MIN_PART), random(100_000)];
    closed.set(await uploadAndClose(admin, project, small, 'small'), sha256(Buffer.concat(small)));

    // Left open: one fresh (must survive every restart), one that will look a day old.
    ({ id: fresh } = await admin.call('file/new', { project, name: 'fresh-open' }));
    freshFirst = random(MIN_PART);
    await expectPutOk(await putPart(admin, fresh, 1, freshFirst), freshFirst);
    ({ id: stale } = await admin.call('file/new', { project, name: 'stale-open' }));
    const staleBytes = random(1000);
    await expectPutOk(await putPart(admin, stale, 1, staleBytes), staleBytes);

    // Closing a local file writes a manifest into the upload's folder, then moves the folder to its
    // blob name, then marks the file closed. The server dies with one file before each of those steps.
    const steps = ['before-manifest', 'after-manifest', 'after-move'] as const;
    const uploaded = new Map<string, { id: string; bytes: Buffer }>();
    for (const step of steps) {
      const parts = [random(6 * MiB), random(5 * MiB), random(12345)];
      const { id } = await admin.call('file/new', { project, name: step });
      for (const [i, part] of parts.entries()) await expectPutOk(await putPart(admin, id, i + 1, part), part);
      uploaded.set(step, { id, bytes: Buffer.concat(parts) });
    }
    await server.kill();
    const rowOf = (id: string) =>
      server.db((db) => db.prepare('select blobKey, uploadId from objects where id = ?').get(id) as { blobKey: string; uploadId: string });
    const partsOf = (id: string) =>
      server.db(
        (db) =>
          db.prepare('select partIndex as "index", partRef, size from fileParts where fileId = ? order by partIndex').all(id) as {
            index: number;
            partRef: string;
            size: number;
          }[],
      );
    // What file-xxxx/close commits before the store is asked to complete: the state closing.
    for (const { id } of uploaded.values()) server.db((db) => db.prepare("update objects set state = 'closing' where id = ?").run(id));
    // The store's own steps, replayed on the server's data directory up to each point.
    const store = new FsBlobStore(server.blobRoot);
    const afterManifest = uploaded.get('after-manifest') as { id: string };
    const { blobKey, uploadId } = rowOf(afterManifest.id);
    const realRename = fsp.rename;
    const rename = vi.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (String(from).endsWith(uploadId)) throw new Error('killed before the folder moved');
      await realRename(from, to);
    });
    await expect(store.completeUpload(blobKey, uploadId, partsOf(afterManifest.id))).rejects.toThrow('killed');
    rename.mockRestore();
    expect(fs.readdirSync(server.uploadDir(uploadId))).toContain('manifest.json');
    const afterMove = uploaded.get('after-move') as { id: string };
    const moved = rowOf(afterMove.id);
    await store.completeUpload(moved.blobKey, moved.uploadId, partsOf(afterMove.id));
    expect(fs.existsSync(path.join(server.assembledBlob(afterMove.id), 'manifest.json'))).toBe(true);
    expect(fs.existsSync(server.assembledBlob((uploaded.get('before-manifest') as { id: string }).id))).toBe(false);

    staleUpload = server.db((db) => (db.prepare('select uploadId from objects where id = ?').get(stale) as { uploadId: string }).uploadId);
    expect(fs.existsSync(server.uploadDir(staleUpload))).toBe(true);
    // The stale upload's last activity moves back 25 hours while the server is down.
    server.db((db) => db.prepare('update objects set stateChanged = ? where id = ?').run(Date.now() - 25 * 3600_000, stale));

    await restart();
    for (const { id, bytes } of uploaded.values()) {
      const described = await waitForState(admin, id, 'closed');
      expect(described.size).toBe(bytes.length);
      closed.set(id, sha256(bytes));
    }
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
