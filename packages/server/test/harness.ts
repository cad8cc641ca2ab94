import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type PanxClient } from '@panx/client';
import pg from 'pg';
import pino, { type DestinationStream } from 'pino';
import { createPlatform, type Platform } from '../src/app.js';
import { bootstrap } from '../src/bootstrap.js';
import type { z } from 'zod';
import { configSchema, loadConfig } from '../src/config.js';
import { createLogger } from '../src/lib/logger.js';
import { freePort, isAddressInUse, startMoto } from './moto.js';

export interface Backend {
  name: string;
  db: 'sqlite' | 'postgres';
  blobs: 'local' | 's3';
}

/** The behavioural suites run on each of these; PANX_TEST_BACKENDS=sqlite+local narrows the list. */
export const BACKENDS: Backend[] = (
  [
    { name: 'sqlite+local', db: 'sqlite', blobs: 'local' },
    { name: 'postgres+s3', db: 'postgres', blobs: 's3' },
  ] satisfies Backend[]
).filter((backend) => !process.env.PANX_TEST_BACKENDS || process.env.PANX_TEST_BACKENDS.split(',').includes(backend.name));

const PG_ADMIN_URL = process.env.PANX_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestPlatform {
  url: string;
  platform: Platform;
  adminToken: string;
  admin: PanxClient;
  /** A signed-in client for a new (non-admin) user. */
  newUser(handle?: string): Promise<{ id: string; client: PanxClient; token: string }>;
  close(): Promise<void>;
}

/** Engine settings as written in a config file: nested settings left out take their defaults. */
type EngineOptions = z.input<typeof configSchema.shape.engine>;

export interface TestPlatformOptions {
  /** A built web app (packages/web/dist) to serve under /panx, for the browser tests. */
  webDir?: string;
  /** Where the platform keeps its database and blobs (a mount of the test's own); a new temporary folder by default. */
  dataDir?: string;
  /** Where the local blob store keeps the bytes; `<dataDir>/blobs` by default. */
  blobDir?: string;
  /** Runtime configuration of the web app (`ui` of the server config), merged by system/getUIConfig. */
  ui?: Record<string, unknown>;
  /** Execution engine settings (executor capacity, scheduler period, ...). */
  engine?: EngineOptions;
  /** The server's own logger (with its redaction) at this level into this stream; silent otherwise. */
  log?: { level: string; stream: DestinationStream };
}

export async function startTestPlatform(
  backend: Backend = { name: 'sqlite+local', db: 'sqlite', blobs: 'local' },
  options: TestPlatformOptions = {},
): Promise<TestPlatform> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'panx-test-'));
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  let dbName: string | undefined;
  /** What `close` removes, and a start that failed half-way too. */
  const cleanUp = async () => {
    killJobsUnder(dataDir);
    if (dbName) {
      const pgAdmin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await pgAdmin.connect();
      await pgAdmin.query(`drop database if exists ${dbName} with (force)`);
      await pgAdmin.end();
    }
    if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  let platform: Platform | undefined;
  let port = 0;
  try {
    let databaseUrl: string | undefined;
    if (backend.db === 'postgres') {
      dbName = `panx_test_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      await admin.query(`create database ${dbName}`);
      await admin.end();
      databaseUrl = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`);
    }
    const s3 =
      backend.blobs === 's3'
        ? {
            endpoint: await startMoto(),
            bucket: `panx-${randomBytes(6).toString('hex')}`,
            region: 'us-east-1',
            prefix: '',
            accessKeyId: 'test',
            secretAccessKey: 'test',
            forcePathStyle: true,
            downloadMode: 'presigned' as const,
          }
        : undefined;
    const log = options.log ? createLogger(options.log.level, options.log.stream) : pino({ level: 'silent' });
    const configFor = (port: number) =>
      loadConfig(
        {},
        {
          port,
          host: '127.0.0.1',
          publicUrl: `http://127.0.0.1:${port}`,
          dataDir,
          databaseUrl,
          s3,
          admin: { username: 'admin', email: 'admin@example.org', password: 'admin-password', token: adminToken },
          createDemoProject: false,
          validateResponses: true,
          logLevel: 'silent',
          ...(options.webDir ? { webDir: options.webDir } : {}),
          ...(options.blobDir ? { blobDir: options.blobDir } : {}),
          ...(options.ui ? { ui: options.ui } : {}),
          ...(options.engine ? { engine: configSchema.shape.engine.parse(options.engine) } : {}),
        },
      );
    // The port is part of the configuration (download URLs carry it), so it is chosen before the platform
    // starts; if another process takes it first, the platform starts again on another (bootstrap is idempotent).
    for (let attempt = 1; !platform; attempt++) {
      port = await freePort();
      const candidate = await createPlatform(configFor(port), log);
      try {
        await bootstrap(candidate);
        await candidate.http.listen({ port, host: '127.0.0.1' });
        platform = candidate;
      } catch (error) {
        await candidate.close().catch(() => undefined);
        if (!isAddressInUse(error) || attempt === 3) throw error;
      }
    }
  } catch (error) {
    await cleanUp().catch(() => undefined);
    throw error;
  }
  const url = `http://127.0.0.1:${port}`;
  const admin = createClient({ baseUrl: url, token: adminToken, retries: 0 });
  let userCount = 0;
  return {
    url,
    platform,
    adminToken,
    admin,
    async newUser(handle) {
      const username = handle ?? `user${++userCount}${randomBytes(3).toString('hex')}`;
      const password = `pw-${randomBytes(8).toString('hex')}`;
      const { id } = await admin.call('user/new', { username, email: `${username}@example.org`, first: 'Test', last: username, password });
      const anonymous = createClient({ baseUrl: url, retries: 0 });
      const { access_token } = await anonymous.call('system/newAuthToken', { username, password });
      return { id, token: access_token, client: createClient({ baseUrl: url, token: access_token, retries: 0 }) };
    },
    async close() {
      await platform.close();
      await cleanUp();
    },
  };
}

/**
 * Jobs outlive a server that stops (they are re-attached when it starts again), so a test platform that
 * goes away for good kills what still runs from its data directory: otherwise every test that ends with a
 * running job leaves its processes behind. Linux: the command lines under /proc.
 */
function killJobsUnder(dataDir: string): void {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return;
  }
  for (const pid of pids) {
    let commandLine: string;
    try {
      commandLine = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // gone already
    }
    if (!commandLine.includes(dataDir)) continue;
    for (const target of [-Number(pid), Number(pid)]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // not a group leader, or gone
      }
    }
  }
}

/** Expects the promise to fail with the DNAnexus error type (and optionally a message fragment). */
export async function expectApiError(promise: Promise<unknown>, type: string, messagePart?: string): Promise<void> {
  try {
    await promise;
  } catch (error) {
    const e = error as { type?: string; message?: string; status?: number };
    if (e.type !== type) throw new Error(`expected ${type}, got ${e.type}: ${e.message}`);
    if (messagePart && !e.message?.includes(messagePart)) throw new Error(`expected message containing "${messagePart}", got "${e.message}"`);
    return;
  }
  throw new Error(`expected ${type}, but the call succeeded`);
}
