import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

const START_TIMEOUT_MS = 10_000;

/** Where the jobs' helpers reach a helper host (PANX_HELPER_PORT and PANX_HELPER_KEY_FILE in their environment). */
export interface HelperHostAddress {
  port: number;
  /** The file holding the key the requests must carry (mode 0600). */
  keyFile: string;
}

/**
 * The helper host of the jobs the server prepares itself (local executor): one resident process
 * (`@panx/worker-tools` dist/host-main.js) that runs the dx helpers of every job's script, reached by
 * the bins over a loopback port with a key (see packages/worker-tools/src/host.ts). A process of its own, not the
 * server: a helper hashing and uploading gigabytes must not hold up the API's event loop.
 *
 * It is started on first use and started again if it died; it leaves with the server (its stdin
 * closes). When it cannot start, jobs get no address and their helpers start Node each, as they can
 * always do: the host makes them faster, never possible.
 */
export class HelperHostProcess {
  private child: ChildProcess | undefined;
  private address: HelperHostAddress | undefined;
  private starting: Promise<HelperHostAddress | undefined> | undefined;
  private warned = false;
  /** Known to this server and its jobs only: the port is open to every local user. */
  private readonly key = randomBytes(24).toString('hex');

  constructor(
    /** Where the host writes its key (the jobs' work root). */
    private readonly keyFile: string,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  /** The address of a running host, starting one if needed; undefined when there can be none. */
  reach(workerToolsBin: string | undefined): Promise<HelperHostAddress | undefined> {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null && !this.starting && this.address) return Promise.resolve(this.address);
    this.starting ??= this.start(workerToolsBin).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(workerToolsBin: string | undefined): Promise<HelperHostAddress | undefined> {
    const entry = workerToolsBin ? path.resolve(workerToolsBin, '..', 'dist', 'host-main.js') : undefined;
    if (!entry || !fs.existsSync(entry)) return this.unavailable(`the worker tools are not built (${entry ?? 'no worker tools bin'})`);
    const child = spawn(process.execPath, [entry, this.keyFile], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { PATH: process.env.PATH ?? '', PANX_HELPER_KEY: this.key },
    });
    let port: number;
    try {
      port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('it did not start in time')), START_TIMEOUT_MS);
        let said = '';
        child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
          said += chunk;
          const line = /^listening (\d+)\n/.exec(said);
          if (line) {
            clearTimeout(timer);
            resolve(Number(line[1]));
          } else if (said.includes('\n')) {
            clearTimeout(timer);
            reject(new Error(`it said: ${said.trim()}`));
          }
        });
        child.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`it exited (${signal ?? `code ${code}`})`));
        });
      });
    } catch (error) {
      child.kill('SIGKILL');
      return this.unavailable((error as Error).message);
    }
    child.stdout?.removeAllListeners('data').resume();
    // Like the launcher, it never keeps the server's process alive by itself.
    child.unref();
    for (const stream of [child.stdin, child.stdout]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
    this.child = child;
    this.address = { port, keyFile: this.keyFile };
    return this.address;
  }

  private unavailable(reason: string): undefined {
    if (!this.warned) this.log.warn(`no helper host for the jobs (their helpers start Node on each call): ${reason}`);
    this.warned = true;
    return undefined;
  }

  /** Stops the host (its stdin closes) and waits for it to be gone, killing it after 2 s. */
  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(timer);
  }
}
