import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Readable, type Writable } from 'node:stream';
import { ToolError } from './errors.js';
import type { ToolIo } from './io.js';
import { runTool, TOOL_NAMES } from './main.js';

/**
 * The helper host: a resident process that runs the helpers of a job's script (dx-download-all-inputs,
 * dx-upload-all-outputs, dx-jobutil-add-output, dx, ...) so that a call costs the shell a connection
 * instead of starting Node (tens of milliseconds each, several times per job; it dominated short
 * stage jobs). The bins' shell wrapper (lib/run-tool.bash) connects with bash's own /dev/tcp (no
 * process to start: a `curl` alone took 12-14 ms) and sends the command, its arguments, working
 * directory, environment and process id; the host writes the command's output straight to that
 * process's standard output and error (opened through /proc/<pid>/fd) and answers its exit code.
 *
 * Who may call: the port listens on 127.0.0.1 only, and every request must carry the host's key:
 * random per host, in a file only the host's user can read (PANX_HELPER_KEY_FILE names it; the key is
 * never in a job's environment, which a job may print to its log). A caller reaches nothing it could not reach itself: every API call is made with the
 * token from the caller's environment, and file work happens as the same user.
 *
 * The host answers `fallback` when it cannot serve a call faithfully (an output descriptor it cannot
 * open, or a regular file opened without O_APPEND, where its writes would interleave wrongly with the
 * caller's); the wrapper then runs the command in a Node process of its own.
 */

export interface HelperHost {
  /** The loopback port the bins connect to (PANX_HELPER_PORT). */
  readonly port: number;
  /** What every request must carry (read by the bins from PANX_HELPER_KEY_FILE). */
  readonly key: string;
  readonly keyFile: string | undefined;
  /** Calls run here, calls answered `fallback`, and requests refused (a wrong key, malformed). */
  readonly stats: { served: number; fallbacks: number; refused: number };
  close(): Promise<void>;
}

/** The first field of every request: a changed wire format gets a new name. */
export const PROTOCOL = 'panx-helper/1';
const MAGIC = Buffer.from(`${PROTOCOL}\0`);
/** A request past this size is refused (arguments and environment are far smaller). */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
/** A connection must have sent its whole request by then (the call itself may run for hours). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface HostRequest {
  key: string;
  command: string;
  cwd: string;
  pid: number;
  /** The caller's copies of its standard output and error. */
  stdoutFd: number;
  stderrFd: number;
  args: string[];
  env: Record<string, string>;
}

/**
 * Parses a request: NUL-terminated fields — the protocol name, the key, command, cwd, pid, the
 * descriptors of the caller's standard output and error, the argument count, the arguments, then the
 * environment as `env -0` writes it, ended by an empty field (an environment entry is never empty).
 * Answers undefined while the request is still incomplete.
 *
 * The caller names copies of its stdout and stderr rather than 1 and 2: while bash writes the
 * request, its fd 1 is the connection itself, and the host may look before bash has put it back.
 */
export function parseHostRequest(body: Buffer): HostRequest | undefined {
  const malformed = () => new Error('malformed helper request');
  // Anything else (a port scan, an HTTP client) is told so from its first bytes, not left waiting.
  const seen = Math.min(MAGIC.length, body.length);
  if (!body.subarray(0, seen).equals(MAGIC.subarray(0, seen))) throw malformed();
  const fields: string[] = [];
  let from = 0;
  for (let nul = body.indexOf(0, from); nul >= 0; nul = body.indexOf(0, from)) {
    fields.push(body.toString('utf8', from, nul));
    from = nul + 1;
  }
  if (fields.length < 8) return undefined;
  const [, key, command, cwd, ...numbers] = fields as [string, string, string, string, string, string, string, string];
  if (!command || !cwd || !numbers.slice(0, 4).every((text) => /^\d+$/.test(text))) throw malformed();
  const [pid, stdoutFd, stderrFd, count] = numbers.slice(0, 4).map(Number) as [number, number, number, number];
  if (pid <= 0) throw malformed();
  const envStart = 8 + count;
  if (fields.length <= envStart) return undefined;
  const end = fields.indexOf('', envStart);
  if (end < 0) return undefined;
  const env: Record<string, string> = {};
  for (const entry of fields.slice(envStart, end)) {
    const equals = entry.indexOf('=');
    if (equals > 0) env[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return { key, command, cwd, pid, stdoutFd, stderrFd, args: fields.slice(8, envStart), env };
}

const openAsync = promisify(fs.open);
const fstatAsync = promisify(fs.fstat);

const O_APPEND = 0o2000;
/** /dev/null: major 1, minor 3. */
const DEV_NULL_RDEV = (1 << 8) | 3;

async function descriptorFlags(pid: number, fd: number): Promise<number | undefined> {
  try {
    const info = await fs.promises.readFile(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    const match = /^flags:\s*([0-7]+)$/m.exec(info);
    return match ? Number.parseInt(match[1] as string, 8) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The caller's output descriptor `fd`, opened for this host: a pipe or socket-like FIFO through libuv
 * (never blocking the host), a regular file opened by the caller with O_APPEND (so both append), or
 * /dev/null. Anything else (a terminal, a file the caller writes at its own offset): undefined.
 */
async function openCallerOutput(pid: number, fd: number): Promise<Writable | undefined> {
  let own: number;
  try {
    // Non-blocking: opening a pipe whose reader is gone fails at once instead of waiting for one.
    own = await openAsync(`/proc/${pid}/fd/${fd}`, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  } catch {
    return undefined;
  }
  try {
    const stat = await fstatAsync(own);
    if (stat.isFIFO()) return new net.Socket({ fd: own, readable: false, writable: true });
    const usable = stat.isFile() ? (((await descriptorFlags(pid, fd)) ?? 0) & O_APPEND) !== 0 : stat.isCharacterDevice() && stat.rdev === DEV_NULL_RDEV;
    if (usable) return fs.createWriteStream('', { fd: own, autoClose: true });
  } catch {
    // unusable: closed below
  }
  fs.close(own, () => {});
  return undefined;
}

function finished(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed) return resolve();
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
    stream.end();
  });
}

/** Runs one request: 'exit N' when it ran, 'fallback' when the caller should run it itself. */
export async function serveHostRequest(request: HostRequest, signal?: AbortSignal): Promise<string> {
  if (!TOOL_NAMES.includes(request.command)) return 'fallback';
  const [stdout, stderr] = await Promise.all([openCallerOutput(request.pid, request.stdoutFd), openCallerOutput(request.pid, request.stderrFd)]);
  if (!stdout || !stderr) {
    for (const stream of [stdout, stderr]) stream?.destroy();
    return 'fallback';
  }
  // A reader that went away (`dx ls | head`) ends the output, not the host.
  for (const stream of [stdout, stderr]) stream.on('error', () => {});
  const toolIo: ToolIo = {
    env: request.env,
    cwd: request.cwd,
    stdout,
    stderr,
    signal,
    stdin: () => {
      // The wrapper runs calls that read standard input (an argument "-") in a process of their own.
      const empty = Readable.from([]);
      empty.destroy(new ToolError('standard input is not available in the helper host'));
      return empty;
    },
  };
  let code: number;
  try {
    code = await runTool(request.command, request.args, toolIo);
  } finally {
    await Promise.all([finished(stdout), finished(stderr)]);
  }
  return `exit ${code}`;
}

/** Writes the key readable by its owner only, whole or not at all. */
async function writeKeyFile(file: string, key: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.promises.writeFile(tmp, `${key}\n`, { mode: 0o600 });
  await fs.promises.chmod(tmp, 0o600);
  await fs.promises.rename(tmp, file);
}

/** Whether two keys are equal, in a time that does not tell how much of them matched. */
function sameKey(given: string, key: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Starts a host on a free loopback port. `key` is the one requests must carry (a random one by
 * default); it is written to `keyFile` (mode 0600), which is what the jobs are told
 * (PANX_HELPER_KEY_FILE): the key itself never enters their environment, which a job may print.
 */
export async function startHelperHost(options: { key?: string; keyFile?: string; requestTimeoutMs?: number } = {}): Promise<HelperHost> {
  const key = options.key ?? randomBytes(24).toString('hex');
  if (options.keyFile) await writeKeyFile(options.keyFile, key);
  const stats = { served: 0, fallbacks: 0, refused: 0 };
  const connections = new Set<net.Socket>();
  const server = net.createServer((connection) => {
    connections.add(connection);
    connection.once('close', () => connections.delete(connection));
    // The greeting tells the bins they reached a helper host (see lib/run-tool.bash).
    connection.write(`${PROTOCOL}\n`);
    let received: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => connection.destroy(), options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
    const answer = (text: string) => {
      clearTimeout(timer);
      connection.end(`${text}\n`);
    };
    const refuse = (reason: string) => {
      stats.refused++;
      connection.removeAllListeners('data');
      answer(`refused ${reason}`);
    };
    connection.on('error', () => clearTimeout(timer));
    connection.on('data', (chunk: Buffer) => {
      received = received.length ? Buffer.concat([received, chunk]) : chunk;
      if (received.length > MAX_REQUEST_BYTES) return refuse('the request is too large');
      let request: HostRequest | undefined;
      try {
        request = parseHostRequest(received);
      } catch (error) {
        return refuse((error as Error).message);
      }
      if (!request) return;
      clearTimeout(timer);
      connection.removeAllListeners('data');
      if (!sameKey(request.key, key)) return refuse('wrong key');
      // The caller's end closing before the answer means it is gone (its job terminated, killed):
      // the call's API requests and downloads stop.
      const callerGone = new AbortController();
      connection.once('end', () => callerGone.abort());
      connection.once('close', () => callerGone.abort());
      serveHostRequest(request, callerGone.signal).then(
        (outcome) => {
          if (outcome === 'fallback') stats.fallbacks++;
          else stats.served++;
          answer(outcome);
        },
        (error: unknown) => answer(`error the helper host failed: ${(error as Error).message}`),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    key,
    keyFile: options.keyFile,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const connection of connections) connection.destroy();
      }),
  };
}
