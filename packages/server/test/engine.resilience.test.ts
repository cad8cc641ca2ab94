/**
 * The engine survives what servers go through: a SIGKILL of the server while jobs run (the
 * restarted server re-attaches to live jobs and gives lost ones a true end), and several API
 * servers sharing one PostgreSQL database (each job claimed and run exactly once).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type PanxClient } from '@panx/client';
import Database from 'better-sqlite3';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, type Platform } from '../src/app.js';
import { bootstrap } from '../src/bootstrap.js';
import { configSchema, loadConfig } from '../src/config.js';
import { ensureServerBuilt, ROOT as root, SERVER_ARGS } from './built-server.js';
import { sleep, waitUntil } from './data-helpers.js';
import { logOf, newApplet, waitForJob } from './engine-helpers.js';
import { freePort } from './moto.js';

const GATED_APPLET = {
  name: 'gated',
  inputSpec: [
    { name: 'n', class: 'int' },
    { name: 'gate', class: 'string' },
  ],
  outputSpec: [{ name: 'n', class: 'int' }],
  runSpec: { systemRequirements: { '*': { instanceType: 'mem2_ssd1_x1' } } },
  code: `main() {
  echo "start $n"
  while [ ! -e "$gate" ]; do sleep 0.1; done
  echo "end $n"
  echo "{\\"n\\": $n}" > job_output.json
}`,
};

/**
 * With the inline runner the server prepares each try and reads its outcome from the try's files;
 * with the process runner (as on Slurm) a Node runner per job reports the outcome over the API, and
 * keeps trying while the server is down.
 */
describe.each(['inline', 'process'])('kill -9 of the server while 10 jobs run (SQLite, server in a child process, %s runner)', (runner) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-engine-crash-'));
  const token = `crash-${randomBytes(16).toString('hex')}`;
  let port = 0;
  let child: ChildProcess | undefined;
  let output = '';
  let client: PanxClient;

  async function start(): Promise<void> {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PANX_DATA_DIR: dataDir,
      PANX_PORT: String(port),
      PANX_HOST: '127.0.0.1',
      PANX_PUBLIC_URL: `http://127.0.0.1:${port}`,
      PANX_ADMIN_TOKEN: token,
      PANX_DEMO_PROJECT: 'false',
      PANX_LOG_LEVEL: 'warn',
      PANX_LOCAL_CORES: '16',
      PANX_LOCAL_MEMORY_MB: '64000',
      PANX_LOCAL_RUNNER: runner,
    };
    child = spawn(process.execPath, [...SERVER_ARGS], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await waitUntil(
      'the server answers',
      async () => {
        if (child?.exitCode !== null) throw new Error(`the server exited:\n${output}`);
        return fetch(`http://127.0.0.1:${port}/health`).then(
          (response) => response.ok,
          () => false,
        );
      },
      30_000,
    );
  }

  async function kill(): Promise<void> {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGKILL');
    await exited;
    child = undefined;
  }

  beforeAll(async () => {
    ensureServerBuilt();
    port = await freePort();
    await start();
    client = createClient({ baseUrl: `http://127.0.0.1:${port}`, token, retries: 0 });
  }, 120_000);
  afterAll(async () => {
    await kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('re-attaches to the jobs still running, and ends the ones lost in the meantime with a true state', async () => {
    const gate = path.join(dataDir, 'gate');
    const { id: project } = await client.call('project/new', { name: 'crash' });
    const applet = await newApplet(client, project, GATED_APPLET);
    const jobs: string[] = [];
    for (let n = 1; n <= 10; n++) {
      // The ninth job may restart when its worker is lost; the tenth may not.
      const policy = n === 9 ? { executionPolicy: { restartOn: { UnresponsiveWorker: 1 } } } : {};
      jobs.push(((await client.post(applet, 'run', { project, input: { n, gate }, ...policy })) as { id: string }).id);
    }
    await waitUntil(
      'all 10 jobs run and have logged',
      async () => {
        for (const [i, id] of jobs.entries()) if (!(await logOf(client, id)).some((line) => line.msg === `start ${i + 1}`)) return false;
        return true;
      },
      60_000,
    );

    await kill();
    // While the server is down: two jobs lose their processes, the others finish their work.
    const db = new Database(path.join(dataDir, 'panx.db'));
    const handles = jobs
      .slice(8)
      .map((id) => (db.prepare('select executorHandle from jobs where id = ?').get(id) as { executorHandle: string }).executorHandle);
    db.close();
    for (const handle of handles) process.kill(-(JSON.parse(handle) as { pid: number }).pid, 'SIGKILL');
    fs.writeFileSync(gate, '');
    await sleep(1000);
    await start();

    const ended = await Promise.all(jobs.map((id) => waitForJob(client, id, ['done', 'failed', 'terminated'], 60_000)));
    for (const [i, job] of ended.slice(0, 9).entries()) {
      expect(job.state, `job ${i + 1}: ${JSON.stringify(job)}`).toBe('done');
      expect(job.output).toEqual({ n: i + 1 });
    }
    expect(ended[8]?.try).toBe(1);
    expect(ended[9]).toMatchObject({ state: 'failed', failureReason: 'UnresponsiveWorker', try: 0 });
    expect(((ended[9]?.stateTransitions ?? []) as { newState: string }[]).map((step) => step.newState).slice(-2)).toEqual(['unresponsive', 'failed']);
    // Every line once: nothing lost, nothing repeated by the re-attached watchers.
    for (const [i, id] of jobs.slice(0, 8).entries()) {
      const lines = (await logOf(client, id)).filter((line) => line.source === 'APP').map((line) => line.msg);
      expect(lines).toEqual([`start ${i + 1}`, `end ${i + 1}`]);
    }
    const running = (await client.post('system', 'findJobs', {
      project,
      state: ['idle', 'waiting_on_input', 'runnable', 'running', 'waiting_on_output', 'terminating'],
    })) as {
      results: unknown[];
    };
    expect(running.results).toEqual([]);
  }, 150_000);
});

const PG_ADMIN_URL = process.env.PANX_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

describe('two API servers on one PostgreSQL database', () => {
  const dbName = `panx_test_${randomBytes(6).toString('hex')}`;
  const databaseUrl = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`);
  const token = `two-${randomBytes(16).toString('hex')}`;
  const servers: { platform: Platform; dataDir: string; url: string }[] = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-two-servers-'));

  async function server(name: string): Promise<{ platform: Platform; dataDir: string; url: string }> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `panx-${name}-`));
    const port = await freePort();
    const config = loadConfig(
      {},
      {
        port,
        host: '127.0.0.1',
        publicUrl: `http://127.0.0.1:${port}`,
        dataDir,
        databaseUrl,
        signingSecret: 'shared-signing-secret-of-both-servers',
        admin: { username: 'admin', email: 'admin@example.org', password: 'admin-password', token },
        createDemoProject: false,
        logLevel: 'silent',
        engine: configSchema.shape.engine.parse({ serverId: name, tickMs: 100, local: { cores: 4, memoryMB: 64_000 } }),
      },
    );
    const platform = await createPlatform(config, pino({ level: 'silent' }));
    await bootstrap(platform);
    await platform.http.listen({ port, host: '127.0.0.1' });
    return { platform, dataDir, url: `http://127.0.0.1:${port}` };
  }

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    servers.push(await server('server-a'));
    servers.push(await server('server-b'));
  }, 120_000);
  afterAll(async () => {
    for (const { platform, dataDir } of servers) {
      await platform.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('runs every job exactly once, whichever server claims it', async () => {
    const [a, b] = servers.map(({ url }) => createClient({ baseUrl: url, token, retries: 0 })) as [PanxClient, PanxClient];
    const { id: project } = await a.call('project/new', { name: 'shared' });
    const ran = path.join(scratch, 'ran');
    const applet = await newApplet(a, project, {
      name: 'count',
      inputSpec: [
        { name: 'n', class: 'int' },
        { name: 'ran', class: 'string' },
      ],
      runSpec: { systemRequirements: { '*': { instanceType: 'mem2_ssd1_x1' } } },
      code: 'main() { echo "$DX_JOB_ID $n" >> "$ran"; }',
    });
    const jobs: string[] = [];
    for (let n = 0; n < 16; n++) jobs.push(((await (n % 2 ? b : a).post(applet, 'run', { project, input: { n, ran } })) as { id: string }).id);
    for (const id of jobs) {
      const job = await waitForJob(a, id, undefined, 90_000);
      expect(job.state, JSON.stringify({ job, log: await logOf(a, id) })).toBe('done');
    }
    const lines = fs.readFileSync(ran, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(16);
    expect(new Set(lines.map((line) => line.split(' ')[0]))).toEqual(new Set(jobs));
    const runners = new Set<string>();
    for (const id of jobs) {
      const starts = (await logOf(b, id)).filter((line) => line.source === 'SYSTEM' && line.msg.startsWith('Running main of'));
      expect(starts).toHaveLength(1);
      runners.add(/\(server (\S+)\)/.exec(starts[0]?.msg ?? '')?.[1] ?? '');
    }
    expect(runners).toEqual(new Set(['server-a', 'server-b']));
  }, 120_000);
});
