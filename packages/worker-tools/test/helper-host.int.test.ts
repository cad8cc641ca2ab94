import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HelperHost, PROTOCOL, parseHostRequest, startHelperHost } from '../src/host.js';
import { BIN_DIR, jobEnv, tempDir } from './run-tool.js';

/**
 * How the helper host meets the shell that calls a bin: the descriptors it can write to (files
 * opened for appending, pipes, /dev/null), the ones it leaves to a Node process of the bin's own
 * (a file written at the shell's own offset), calls that read standard input, exit codes, a host
 * that is gone, and requests without the host's key. dx-print-bash-vars with an inputSpec file needs no API server.
 */

const VARS = 'export nums=( 1 2 )\nexport label=x\n';

/** Runs `body` with `server` listening on a free loopback port, and closes it after. */
async function withLocalServer<T>(server: net.Server, body: (port: number) => Promise<T>): Promise<T> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  try {
    return await body((server.address() as net.AddressInfo).port);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('the helper host', () => {
  let home: string;
  let host: HelperHost;
  let runs = 0;

  /**
   * Runs a bash snippet in HOME with the bins on PATH and the host's address in the environment; its
   * stderr goes to a file opened for appending, as a job's does (Node's stdio pipes are sockets, which
   * the host cannot open: every call would fall back).
   */
  function bash(script: string, env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
    const errFile = path.join(home, `stderr-${++runs}.txt`);
    const stderr = fs.openSync(errFile, 'a');
    return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', ['-c', script], {
        cwd: home,
        env: {
          PATH: `${BIN_DIR}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
          HOME: home,
          PANX_HELPER_PORT: String(host.port),
          PANX_HELPER_KEY_FILE: host.keyFile ?? '',
          ...env,
        },
        stdio: ['ignore', 'ignore', stderr],
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr: fs.readFileSync(errFile, 'utf8') }));
    }).finally(() => fs.closeSync(stderr));
  }
  const read = (name: string) => fs.readFileSync(path.join(home, name), 'utf8');

  beforeAll(async () => {
    home = tempDir('panx-helper-host-');
    fs.writeFileSync(path.join(home, 'job_input.json'), JSON.stringify({ nums: [1, 2], label: 'x' }));
    fs.writeFileSync(path.join(home, 'spec.json'), JSON.stringify({ inputSpec: [] }));
    host = await startHelperHost({ keyFile: path.join(home, '.host', 'helper.key') });
  });
  afterAll(async () => {
    await host?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('listens on the loopback only, and refuses a request without its key', async () => {
    expect(host.key).toMatch(/^[0-9a-f]{48}$/);
    const before = { ...host.stats };
    fs.writeFileSync(path.join(home, 'wrong.key'), 'not-the-key\n');
    const result = await bash('dx-print-bash-vars --input-spec spec.json >> refused.txt', { PANX_HELPER_KEY_FILE: path.join(home, 'wrong.key') });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("dx-print-bash-vars: the job's helper host failed: refused wrong key\n");
    expect(fs.existsSync(path.join(home, 'refused.txt')) ? read('refused.txt') : '').toBe('');
    expect(host.stats.refused - before.refused).toBe(1);
    expect(host.stats.served).toBe(before.served);
    // A peer that speaks anything else is answered and dropped at once.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(host.port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toBe(`${PROTOCOL}\nrefused malformed helper request\n`);
  });

  it('keeps its key in a file only its user can read: the jobs are told the file, never the key', () => {
    const keyFile = host.keyFile ?? '';
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(keyFile, 'utf8')).toBe(`${host.key}\n`);
  });

  it('writes to a file the caller appends to, and to a pipe, in the caller working directory', async () => {
    const before = { ...host.stats };
    fs.mkdirSync(path.join(home, 'sub'), { recursive: true });
    const result = await bash(
      'echo first >> appended.txt; dx-print-bash-vars --input-spec spec.json >> appended.txt; echo last >> appended.txt; dx-print-bash-vars --input-spec ../spec.json -h >/dev/null; cd sub && dx-print-bash-vars --input-spec ../spec.json | tr a-z A-Z > ../piped.txt',
    );
    expect(result).toEqual({ code: 0, stderr: '' });
    expect(read('appended.txt')).toBe(`first\n${VARS}last\n`);
    expect(read('piped.txt')).toBe(VARS.toUpperCase());
    expect(host.stats.served - before.served).toBe(3);
    expect(host.stats.fallbacks).toBe(before.fallbacks);
  });

  it('leaves a file written at the caller own offset to a process of the bin own (the output stays in order)', async () => {
    const before = { ...host.stats };
    const result = await bash('{ echo first; dx-print-bash-vars --input-spec spec.json; echo last; } > truncated.txt');
    expect(result).toEqual({ code: 0, stderr: '' });
    expect(read('truncated.txt')).toBe(`first\n${VARS}last\n`);
    expect(host.stats.fallbacks - before.fallbacks).toBe(1);
    expect(host.stats.served).toBe(before.served);
  });

  it('answers the exit code and the error message of a failed call', async () => {
    const before = { ...host.stats };
    const result = await bash('dx-print-bash-vars >> out.txt', { HOME: path.join(home, 'sub') });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `dx-print-bash-vars: could not find the job input file ${path.join(home, 'sub', 'job_input.json')}: this command is meant to run inside a job\n`,
    );
    expect(host.stats.served - before.served).toBe(1);
    const usage = await bash('dx-jobutil-add-output 2>>err.txt');
    expect(usage.code).toBe(2);
    expect(read('err.txt')).toMatch(/^dx-jobutil-add-output: usage: dx-jobutil-add-output /);
  });

  it('keeps the connection of a call that runs longer than the time allowed to send a request', async () => {
    // An API that takes 600 ms to answer, and a host that allows 200 ms for a request to arrive.
    const slowApi = http.createServer((_request, response) => {
      setTimeout(() => {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'ResourceNotFound', message: 'slow answer' } }));
      }, 600);
    });
    const quickHost = await startHelperHost({ keyFile: path.join(home, '.quick', 'helper.key'), requestTimeoutMs: 200 });
    try {
      const result = await withLocalServer(slowApi, (apiPort) =>
        bash('dx cat file-aaaaaaaaaaaaaaaaaaaaaaaa >> slow.txt', {
          ...jobEnv({ url: `http://127.0.0.1:${apiPort}`, token: 'token', home }),
          PANX_HELPER_PORT: String(quickHost.port),
          PANX_HELPER_KEY_FILE: quickHost.keyFile ?? '',
        }),
      );
      expect(result.stderr).toContain('slow answer');
      expect(result.stderr).not.toContain('helper host failed');
      expect(quickHost.stats.served).toBe(1);
    } finally {
      await quickHost.close();
    }
  });

  it('stops a call whose caller is gone (its job terminated): the API request under way is dropped and not retried', async () => {
    // An API that never answers, and notes each request and when its client gave up on it.
    const seen: { closedAt?: number }[] = [];
    const hangingApi = http.createServer((request) => {
      const entry: { closedAt?: number } = {};
      seen.push(entry);
      request.socket.once('close', () => {
        entry.closedAt = Date.now();
      });
    });
    await withLocalServer(hangingApi, async (apiPort) => {
      const caller = spawn('bash', ['-c', 'dx cat file-aaaaaaaaaaaaaaaaaaaaaaaa >> gone.txt'], {
        cwd: home,
        detached: true, // its own process group, killed whole below as a terminated job's is
        stdio: 'ignore',
        env: {
          PATH: `${BIN_DIR}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
          ...jobEnv({ url: `http://127.0.0.1:${apiPort}`, token: 'token', home }),
          PANX_HELPER_PORT: String(host.port),
          PANX_HELPER_KEY_FILE: host.keyFile ?? '',
        },
      });
      const exited = new Promise((resolve) => caller.once('exit', resolve));
      for (let waited = 0; !seen.length; waited += 20) {
        if (waited > 10_000) throw new Error('the call never reached the API');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const killedAt = Date.now();
      process.kill(-(caller.pid as number), 'SIGKILL');
      await exited;
      for (let waited = 0; seen[0]?.closedAt === undefined; waited += 20) {
        if (waited > 5_000) throw new Error('the host kept the API request of a caller that is gone');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((seen[0]?.closedAt ?? 0) - killedAt).toBeLessThan(5_000);
      // The client gives up rather than retrying (it would retry a failed connection for seconds).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(seen).toHaveLength(1);
    });
  });

  it('never sees a call that reads standard input ("-"), which runs in a process of its own', async () => {
    const before = { ...host.stats };
    const result = await bash('echo \'{"x": 1}\' | dx-jobutil-new-job main --input-json-file - 2>>stdin-err.txt');
    expect(result.code).toBe(1); // outside a job: the call itself fails after reading stdin
    expect(read('stdin-err.txt')).toContain('DX_JOB_ID is not set');
    expect(host.stats).toEqual(before);
  });

  it('is not needed: with the host gone, the bins run in a process of their own', async () => {
    // A port nobody listens on, as a host killed with its server leaves its jobs.
    const port = await withLocalServer(net.createServer(), async (free) => free);
    const result = await bash('dx-print-bash-vars --input-spec spec.json >> stale.txt', { PANX_HELPER_PORT: String(port) });
    expect(result).toEqual({ code: 0, stderr: '' });
    expect(read('stale.txt')).toBe(VARS);
    // Its port taken by another service since: what answers is not a helper host, and the bin runs on its own.
    const other = net.createServer((socket) => {
      // (the bin may still be writing when this end closes: a reset here is expected)
      socket.on('error', () => {});
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    });
    const taken = await withLocalServer(other, (port) => bash('dx-print-bash-vars --input-spec spec.json >> taken.txt', { PANX_HELPER_PORT: String(port) }));
    expect(taken).toEqual({ code: 0, stderr: '' });
    expect(read('taken.txt')).toBe(VARS);
    // A peer that says nothing (as a socket connected to itself would not): no greeting within 5 s.
    const received: Buffer[] = [];
    const silent = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.on('data', (chunk) => received.push(chunk));
    });
    const quiet = await withLocalServer(silent, (port) => bash('dx-print-bash-vars --input-spec spec.json >> silent.txt', { PANX_HELPER_PORT: String(port) }));
    expect(quiet).toEqual({ code: 0, stderr: '' });
    expect(read('silent.txt')).toBe(VARS);
    expect(Buffer.concat(received).length).toBe(0); // it was sent nothing, not even the key
  }, 30_000);

  it('parses a request only once it is whole, and rejects a malformed one', () => {
    const body = (...fields: string[]) => Buffer.from(fields.map((field) => `${field}\u0000`).join(''));
    const head = [PROTOCOL, 'k', 'dx', '/tmp'];
    expect(() => parseHostRequest(body('HTTP', 'k'))).toThrow('malformed');
    expect(() => parseHostRequest(body(...head, 'notapid', '10', '11', '0', ''))).toThrow('malformed');
    expect(() => parseHostRequest(body(...head, '42', '10', '11', '-1', ''))).toThrow('malformed');
    // Incomplete: arguments still to come, or the environment not yet ended by its empty field.
    expect(parseHostRequest(body(...head, '42', '10', '11', '3', 'ls'))).toBeUndefined();
    expect(parseHostRequest(body(...head, '42', '10', '11', '0', 'A=1'))).toBeUndefined();
    // An empty argument is an argument; the empty field after the environment ends the request.
    expect(parseHostRequest(body(...head, '42', '10', '11', '3', 'ls', '', '-l', 'A=1', 'B=x=y', ''))).toEqual({
      key: 'k',
      command: 'dx',
      cwd: '/tmp',
      pid: 42,
      stdoutFd: 10,
      stderrFd: 11,
      args: ['ls', '', '-l'],
      env: { A: '1', B: 'x=y' },
    });
  });
});
