/**
 * A server of several processes (PANX_PROCESSES=2, node:cluster): both processes answer on the one
 * port, jobs run (the leader's engine) and their live logs reach websockets held by either process,
 * a token revoked through one process is refused by the other at once, a killed process is started
 * again, and SIGTERM to the supervisor stops them all. The server runs from its build, as deployed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createClient, type PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { SERVER_NODE_FLAGS } from '../src/node-flags.js';
import { ensureServerBuilt, ROOT, SERVER_ARGS } from './built-server.js';
import { newApplet, waitForJob } from './engine-helpers.js';
import { freePort } from './moto.js';

interface Ready {
  status: string;
  process: { pid: number; role: string };
}

/** GET /ready on a connection of its own (so that each call may land on another process). */
function ready(url: string): Promise<Ready> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${url}/ready`, { agent: false, headers: { connection: 'close' } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve(JSON.parse(body) as Ready));
    });
    request.on('error', reject);
    // A connection handed to a process as it is killed may never be answered.
    request.setTimeout(2_000, () => request.destroy(new Error('no answer')));
  });
}

/** The processes that answered `tries` fresh connections: pid → role. */
async function answering(url: string, tries = 12): Promise<Map<number, string>> {
  const seen = new Map<number, string>();
  for (let i = 0; i < tries; i++) {
    try {
      const answer = await ready(url);
      seen.set(answer.process.pid, answer.process.role);
    } catch {
      // a process being replaced
    }
  }
  return seen;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Follows a job's log over the websocket until END_LOG: the messages, in order. */
function followLog(url: string, token: string, jobId: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/${jobId}/getLog/websocket`);
    const messages: string[] = [];
    socket.once('open', () => socket.send(JSON.stringify({ access_token: token, token_type: 'Bearer', tail: true })));
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { msg?: string };
      if (frame.msg === 'END_LOG') resolve(messages);
      else if (frame.msg !== undefined) messages.push(frame.msg);
    });
    socket.once('error', reject);
    socket.once('close', () => resolve(messages));
  });
}

describe('a server of two processes (SQLite + local storage + local executor)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-cluster-'));
  const token = `cluster-${randomBytes(16).toString('hex')}`;
  let supervisor: ChildProcess;
  let url: string;
  let admin: PanxClient;
  let output = '';

  beforeAll(async () => {
    ensureServerBuilt();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    supervisor = spawn(process.execPath, [...SERVER_ARGS], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PANX_PROCESSES: '2',
        PANX_DATA_DIR: dataDir,
        PANX_PORT: String(port),
        PANX_HOST: '127.0.0.1',
        PANX_PUBLIC_URL: url,
        PANX_ADMIN_TOKEN: token,
        PANX_DEMO_PROJECT: 'false',
        PANX_LOG_LEVEL: 'warn',
        PANX_LOCAL_CORES: '8',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [supervisor.stdout, supervisor.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
    }
    admin = createClient({ baseUrl: url, token, retries: 0 });
    await until('both processes', async () => ((await answering(url)).size === 2 ? true : undefined));
  }, 60_000);

  afterAll(async () => {
    if (supervisor.exitCode === null && supervisor.signalCode === null) supervisor.kill('SIGKILL');
    for (const pid of (await answering(url, 4).catch(() => new Map<number, string>())).keys()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers on one port from a leader and an API process', async () => {
    const seen = await answering(url);
    expect([...seen.values()].sort(), output).toEqual(['api', 'leader']);
    expect(output).toContain('Processes:      2');
  });

  it('runs every process with the Node options of the server (cluster.fork passes them on)', async () => {
    const pids = [...(await answering(url)).keys()];
    expect(pids).toHaveLength(2);
    for (const pid of pids) {
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(args).toEqual(expect.arrayContaining([...SERVER_NODE_FLAGS]));
    }
    expect(output).not.toContain('started without the Node options');
  });

  it('runs jobs, and their live log reaches websockets held by either process', async () => {
    const { id: project } = await admin.call('project/new', { name: 'cluster' });
    const applet = await newApplet(admin, project, {
      name: 'counts',
      code: 'main() { for i in 1 2 3 4 5; do echo "line $i"; sleep 0.2; done; }',
    });
    const { id } = (await admin.post(applet, 'run', { project, input: {} })) as { id: string };
    // Fresh connections alternate between the processes: four followers cover both.
    const followers = await Promise.all([0, 1, 2, 3].map(() => followLog(url, token, id)));
    const job = await waitForJob(admin, id);
    expect(job.state).toBe('done');
    for (const messages of followers) expect(messages.filter((msg) => msg.startsWith('line '))).toEqual(['line 1', 'line 2', 'line 3', 'line 4', 'line 5']);
  });

  it('refuses a revoked token in every process at once', async () => {
    const issued = await admin.call('system/newAuthToken', { label: 'short-lived' });
    const secret = issued.access_token;
    // Warm both processes' caches with the token, then revoke it through one of them.
    for (let i = 0; i < 6; i++) expect((await fetchWhoami(url, secret)).status).toBe(200);
    await admin.call('system/destroyAuthToken', { tokenId: issued.token_id });
    for (let i = 0; i < 6; i++) expect((await fetchWhoami(url, secret)).status).toBe(401);
  });

  it('starts a killed process again, and stops them all on SIGTERM', async () => {
    const before = await answering(url);
    const api = [...before].find(([, role]) => role === 'api')?.[0] as number;
    process.kill(api, 'SIGKILL');
    const replaced = await until('a new API process', async () => {
      const seen = await answering(url);
      return [...seen].some(([pid, role]) => role === 'api' && pid !== api) ? seen : undefined;
    });
    expect([...replaced.values()].sort()).toEqual(['api', 'leader']);
    expect(output).toContain(`the api process ${api} exited (SIGKILL); starting another`);

    const pids = [...replaced.keys()];
    const exited = new Promise<number | null>((resolve) => supervisor.once('exit', (code) => resolve(code)));
    supervisor.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
    expect(code, output).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});

/** system/whoami with a token, on a connection of its own. */
function fetchWhoami(url: string, secret: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}/system/whoami`,
      { method: 'POST', agent: false, headers: { connection: 'close', authorization: `Bearer ${secret}`, 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
      },
    );
    request.on('error', reject);
    request.end('{}');
  });
}
