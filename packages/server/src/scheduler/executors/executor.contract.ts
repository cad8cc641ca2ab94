/**
 * The behaviour every executor promises (see the interface in executor.ts), written once. Each
 * implementation runs it from its own test file with a factory:
 *
 *   describeExecutorContract('local', (capacity) => new LocalExecutor(capacity));
 *
 * The commands are plain /bin/sh, so the suite runs wherever the executor's jobs can run sh.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExecutionSink, Executor, ExitStatus, LaunchSpec, LogLine, Resources, StreamOffsets } from './executor.js';

export type ExecutorFactory = (capacity: Resources) => Executor | Promise<Executor>;

/** A sink that records what it is given. */
export class RecordingSink implements ExecutionSink {
  readonly lines: LogLine[] = [];
  offsets: StreamOffsets = {};
  status: ExitStatus | undefined;
  exits = 0;
  private resolveExit: ((status: ExitStatus) => void) | undefined;
  readonly exited = new Promise<ExitStatus>((resolve) => {
    this.resolveExit = resolve;
  });

  async onLog(lines: LogLine[], offsets: StreamOffsets): Promise<void> {
    this.lines.push(...lines);
    this.offsets = offsets;
  }

  async onExit(status: ExitStatus): Promise<void> {
    this.exits++;
    this.status = status;
    this.resolveExit?.(status);
  }

  texts(stream?: 'stdout' | 'stderr'): string[] {
    return this.lines.filter((line) => !stream || line.stream === stream).map((line) => line.text);
  }

  async waitForLine(text: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.texts().includes(text)) {
      if (Date.now() > deadline) throw new Error(`no line "${text}" within ${timeoutMs} ms; got ${JSON.stringify(this.texts())}`);
      await sleep(20);
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`${what} did not happen within ${ms} ms`)))]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function describeExecutorContract(name: string, factory: ExecutorFactory): void {
  describe(`executor contract: ${name}`, () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `panx-executor-${name}-`));
    let count = 0;
    const BIG: Resources = { cores: 4, memoryMB: 4096 };
    afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

    function spec(script: string, options: { env?: Record<string, string>; resources?: Resources } = {}): LaunchSpec {
      const workDir = path.join(root, `job-${++count}`);
      return {
        jobId: `job-contract${String(count).padStart(12, '0')}`,
        try: 0,
        resources: options.resources ?? { cores: 1, memoryMB: 100 },
        command: ['/bin/sh', '-c', script],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
        workDir,
      };
    }

    it('runs the command with exactly its environment, in its working directory', async () => {
      const executor = await factory(BIG);
      const job = spec('echo "$GREETING from $(pwd)"; if [ -z "$HOME" ]; then echo home=unset; fi; echo oops >&2', { env: { GREETING: 'hello' } });
      const sink = new RecordingSink();
      const handle = await executor.launch(job, sink);
      expect(typeof handle).toBe('string');
      const status = await withTimeout(sink.exited, 30_000, 'exit');
      expect(status.exitCode).toBe(0);
      expect(sink.texts('stdout')).toEqual([`hello from ${fs.realpathSync(job.workDir)}`, 'home=unset']);
      expect(sink.texts('stderr')).toEqual(['oops']);
      for (const line of sink.lines) expect(line.timestamp).toBeGreaterThan(Date.now() - 60_000);
    });

    it('reports the exit code of a failing command, once', async () => {
      const executor = await factory(BIG);
      const sink = new RecordingSink();
      await executor.launch(spec('echo before; exit 3'), sink);
      const status = await withTimeout(sink.exited, 30_000, 'exit');
      expect(status.exitCode).toBe(3);
      await sleep(300);
      expect(sink.exits).toBe(1);
      expect(sink.texts()).toEqual(['before']);
    });

    it('delivers every line in order, and a last line without a newline', async () => {
      const executor = await factory(BIG);
      const sink = new RecordingSink();
      await executor.launch(spec('i=1; while [ $i -le 2000 ]; do echo "line-$i"; i=$((i+1)); done; printf "%s" "no newline"'), sink);
      await withTimeout(sink.exited, 30_000, 'exit');
      const expected = Array.from({ length: 2000 }, (_, i) => `line-${i + 1}`);
      expect(sink.texts('stdout')).toEqual([...expected, 'no newline']);
    });

    it('terminates the whole process group', async () => {
      const executor = await factory(BIG);
      const job = spec('sleep 300 & echo $! > child.pid; echo started; sleep 300');
      const sink = new RecordingSink();
      const handle = await executor.launch(job, sink);
      await sink.waitForLine('started');
      const childPid = Number(fs.readFileSync(path.join(job.workDir, 'child.pid'), 'utf8'));
      expect(alive(childPid)).toBe(true);
      await executor.terminate(handle);
      const status = await withTimeout(sink.exited, 30_000, 'exit after terminate');
      expect(status.exitCode === 0).toBe(false);
      const deadline = Date.now() + 10_000;
      while (alive(childPid) && Date.now() < deadline) await sleep(50);
      expect(alive(childPid)).toBe(false);
    });

    it('never runs more at once than its capacity, and clamps larger requests', async () => {
      const executor = await factory({ cores: 2, memoryMB: 1000 });
      expect(executor.hasCapacityFor({ cores: 64, memoryMB: 100_000 })).toBe(true);
      const job = spec('echo started; while [ ! -e go ]; do sleep 0.05; done', { resources: { cores: 2, memoryMB: 100 } });
      const sink = new RecordingSink();
      await executor.launch(job, sink);
      expect(executor.hasCapacityFor({ cores: 1, memoryMB: 100 })).toBe(false);
      await sink.waitForLine('started');
      fs.writeFileSync(path.join(job.workDir, 'go'), '');
      await withTimeout(sink.exited, 30_000, 'exit');
      expect(executor.hasCapacityFor({ cores: 2, memoryMB: 1000 })).toBe(true);
      expect(executor.hasCapacityFor({ cores: 1, memoryMB: 1001 })).toBe(true); // clamped to the capacity
    });

    it('is attached again by a new executor (a restarted server) without repeating or losing lines', async () => {
      const first = await factory(BIG);
      const job = spec('echo a; while [ ! -e go ]; do sleep 0.05; done; echo b; exit 0');
      const sink = new RecordingSink();
      const handle = await first.launch(job, sink);
      await sink.waitForLine('a');
      await first.detachAll();
      const offsets = sink.offsets;

      const second = await factory(BIG);
      const resumed = new RecordingSink();
      expect(await second.attach(handle, job, resumed, offsets)).toBe('running');
      fs.writeFileSync(path.join(job.workDir, 'go'), '');
      const status = await withTimeout(resumed.exited, 30_000, 'exit after attach');
      expect(status.exitCode).toBe(0);
      expect(resumed.texts()).toEqual(['b']);
      expect(sink.exits).toBe(0);
    });

    it('reports what happened while nobody watched: the remaining lines and the exit status', async () => {
      const first = await factory(BIG);
      const job = spec('echo a; while [ ! -e go ]; do sleep 0.05; done; echo b; echo c >&2; exit 4');
      const sink = new RecordingSink();
      const handle = await first.launch(job, sink);
      await sink.waitForLine('a');
      await first.detachAll();
      fs.writeFileSync(path.join(job.workDir, 'go'), '');
      await sleep(1500);

      const second = await factory(BIG);
      const resumed = new RecordingSink();
      expect(await second.attach(handle, job, resumed, sink.offsets)).toBe('exited');
      const status = await withTimeout(resumed.exited, 30_000, 'exit after attach');
      expect(status.exitCode).toBe(4);
      expect(resumed.texts('stdout')).toEqual(['b']);
      expect(resumed.texts('stderr')).toEqual(['c']);
    });

    it('reports an execution it cannot find as lost', async () => {
      const executor = await factory(BIG);
      const job = spec('true');
      const sink = new RecordingSink();
      await executor.attach('not a handle', job, sink, {});
      const status = await withTimeout(sink.exited, 30_000, 'exit of a lost job');
      expect(status.exitCode).toBeNull();
      expect(status.lost).toBe(true);
    });
  });
}
