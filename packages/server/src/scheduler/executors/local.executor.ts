import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  clampResources,
  type ExecutionSink,
  type ExitStatus,
  type Executor,
  type LaunchSpec,
  type LogLine,
  type LogStream,
  type Resources,
  type StreamOffsets,
} from './executor.js';

/** Longer lines are cut into pieces of this many bytes. */
const MAX_LINE_BYTES = 64 * 1024;
/** Bytes read per stream per poll. */
const READ_CHUNK = 256 * 1024;
const STREAMS: readonly LogStream[] = ['stdout', 'stderr'];

interface LocalHandle {
  pid: number;
  /** The process's start time in clock ticks (/proc/<pid>/stat), so that a reused pid is not mistaken for it. */
  start: string | null;
  dir: string;
}

export interface LocalExecutorOptions {
  cores?: number;
  memoryMB?: number;
  /**
   * How many jobs' reservations may share each core and MiB (default 1: none). With 4, a 2-core
   * host runs up to four 2-core jobs at once; each job is still given, and charged for, its whole
   * instance type, and no one job gets more than `cores`/`memoryMB`. For hosts that mostly run
   * short or idle jobs (tests, demos, trivial apps), never for real work that uses its cores.
   */
  oversubscribe?: number;
  /** How often output files and processes are looked at. */
  pollMs?: number;
  /** Between SIGTERM and SIGKILL on terminate. */
  killGraceMs?: number;
  /**
   * Start jobs through a small resident launcher process (default) rather than by forking the
   * server, whose size makes each fork cost milliseconds of its event loop.
   */
  launcher?: boolean;
}

/**
 * The launcher: a small Node process that starts jobs on request (over its IPC channel) and reports
 * their exits. It leaves when the server does; the jobs it started run on (each leads its own process
 * group) and a restarted server re-attaches to them by pid, as to any other.
 */
const LAUNCHER_SOURCE = `
const { spawn } = require('node:child_process');
const fs = require('node:fs');
process.on('disconnect', () => process.exit(0));
process.on('message', (m) => {
  let out;
  let err;
  try {
    out = fs.openSync(m.stdout, 'a');
    err = fs.openSync(m.stderr, 'a');
    const child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, detached: true, stdio: ['ignore', out, err] });
    if (child.pid === undefined) {
      child.once('error', (error) => process.send({ type: 'spawned', id: m.id, error: error.message }));
      return;
    }
    process.send({ type: 'spawned', id: m.id, pid: child.pid });
    child.once('exit', (code, signal) => process.send({ type: 'exit', id: m.id, code, signal }));
  } catch (error) {
    process.send({ type: 'spawned', id: m.id, error: error.message });
  } finally {
    if (out !== undefined) fs.closeSync(out);
    if (err !== undefined) fs.closeSync(err);
  }
});
`;

type LauncherMessage = { type: 'spawned'; id: number; pid?: number; error?: string } | { type: 'exit'; id: number; code: number | null; signal: string | null };

/** The server's end of the launcher: one process, started on first use, started again if it dies. */
class Launcher {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private readonly spawning = new Map<number, { resolve: (pid: number) => void; reject: (error: Error) => void }>();
  private readonly exits = new Map<number, { onExit: (status: ExitStatus) => void; onOrphaned: () => void }>();

  private process(): ChildProcess {
    if (this.child) return this.child;
    const child = spawn(process.execPath, ['-e', LAUNCHER_SOURCE], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { PATH: process.env.PATH ?? '' } });
    child.on('message', (message: LauncherMessage) => {
      if (message.type === 'spawned') {
        const waiting = this.spawning.get(message.id);
        this.spawning.delete(message.id);
        if (message.pid !== undefined) waiting?.resolve(message.pid);
        else waiting?.reject(new Error(message.error ?? 'the launcher could not start it'));
      } else {
        const listener = this.exits.get(message.id);
        this.exits.delete(message.id);
        listener?.onExit({ exitCode: message.code, signal: message.signal });
      }
    });
    const gone = () => {
      if (this.child !== child) return;
      this.child = undefined;
      for (const waiting of this.spawning.values()) waiting.reject(new Error('the launcher exited'));
      this.spawning.clear();
      for (const listener of this.exits.values()) listener.onOrphaned();
      this.exits.clear();
    };
    child.once('exit', gone);
    child.once('error', gone);
    this.idle(child);
    this.child = child;
    return child;
  }

  /** Like the executor's timers, the launcher never keeps the server's process alive by itself. */
  private idle(child: ChildProcess | undefined = this.child): void {
    if (!child) return;
    child.unref();
    (child as ChildProcess & { channel?: { unref(): void } }).channel?.unref();
  }

  async spawn(
    request: { file: string; args: string[]; cwd: string; env: Record<string, string>; stdout: string; stderr: string },
    onExit: (status: ExitStatus) => void,
    onOrphaned: () => void,
  ): Promise<number> {
    const child = this.process();
    const id = this.nextId++;
    const pid = new Promise<number>((resolve, reject) => this.spawning.set(id, { resolve, reject }));
    this.exits.set(id, {
      onExit: (status) => {
        onExit(status);
        this.idle();
      },
      onOrphaned,
    });
    this.idle();
    child.send({ ...request, id });
    try {
      return await pid;
    } catch (error) {
      this.exits.delete(id);
      this.idle();
      throw error;
    }
  }

  close(): void {
    const child = this.child;
    this.child = undefined;
    this.spawning.clear();
    this.exits.clear();
    if (child?.connected) child.disconnect();
  }
}

function processStart(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether the process runs. A zombie does not: a job whose parent (the launcher, or a server that
 * crashed) is gone waits as a zombie until PID 1 reaps it, and in a container PID 1 may never do so.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return true; // no /proc: trust the signal
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'"'"'`)}'`;
}

/**
 * The wrapper shell leads the process group and records the command's exit code in a file that
 * outlives the server. It is read only once the wrapper has exited, so a shell built-in write is
 * enough (no rename, no extra process): a wrapper killed before or during the write leaves no
 * number there, which reads as a lost process, as it is.
 */
function wrapperScript(status: string): string {
  return `"$@"; s=$?; printf '%s' "$s" > ${shellQuote(status)}; exit $s`;
}

/** One watched execution: follows its output files and its process until it has ended. */
class Watch {
  private readonly offsets: Record<LogStream, number>;
  private readonly partial: Record<LogStream, Buffer> = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
  private timer: NodeJS.Timeout | undefined;
  private exit: ExitStatus | undefined;
  private finished = false;
  private polling = false;
  stopped = false;

  constructor(
    readonly key: string,
    readonly handle: LocalHandle,
    private readonly sink: ExecutionSink,
    offsets: StreamOffsets,
    private readonly pollMs: number,
    /** Set when this process is our (or our launcher's) child: the exit event tells its status. */
    private isChild: boolean,
    private readonly onDone: (watch: Watch) => void,
  ) {
    this.offsets = { stdout: offsets.stdout ?? 0, stderr: offsets.stderr ?? 0 };
  }

  /**
   * Starts following. A process just started by us is first read after `pollMs` (or at its exit,
   * whichever comes first): a short job is then read once, whole, and its stdout and stderr lines
   * keep the order they were written in across the two files, which reads of a process still
   * writing cannot promise.
   */
  start(): void {
    this.schedule(this.isChild && this.exit === undefined ? this.pollMs : 0);
  }

  childExited(status: ExitStatus): void {
    this.exit = status;
    this.schedule(0);
  }

  /** Nobody will hear this process's exit any more (the launcher went away): watch its pid instead. */
  orphaned(): void {
    if (!this.isChild || this.exit !== undefined) return;
    this.isChild = false;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(delay: number): void {
    if (this.stopped || this.finished) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), delay);
    this.timer.unref();
  }

  private file(stream: LogStream): string {
    return path.join(this.handle.dir, `${stream}.log`);
  }

  /** New complete lines of one stream (all remaining bytes when `final`). */
  private read(stream: LogStream, final: boolean, now: number): LogLine[] {
    const lines: LogLine[] = [];
    let fd: number;
    try {
      fd = fs.openSync(this.file(stream), 'r');
    } catch {
      return lines;
    }
    try {
      for (;;) {
        const chunk = Buffer.alloc(READ_CHUNK);
        const position = this.offsets[stream] + this.partial[stream].length;
        const read = fs.readSync(fd, chunk, 0, READ_CHUNK, position);
        if (read <= 0) break;
        let buffer = Buffer.concat([this.partial[stream], chunk.subarray(0, read)]);
        let consumed = this.offsets[stream];
        for (let newline = buffer.indexOf(10); newline >= 0 || buffer.length >= MAX_LINE_BYTES; newline = buffer.indexOf(10)) {
          const cut = newline >= 0 && newline < MAX_LINE_BYTES ? newline : MAX_LINE_BYTES;
          const text = buffer.subarray(0, cut).toString('utf8');
          const skip = cut === newline ? cut + 1 : cut;
          lines.push({ stream, text: text.endsWith('\r') ? text.slice(0, -1) : text, timestamp: now });
          buffer = buffer.subarray(skip);
          consumed += skip;
        }
        this.offsets[stream] = consumed;
        this.partial[stream] = Buffer.from(buffer);
        if (read < READ_CHUNK) break;
      }
    } finally {
      fs.closeSync(fd);
    }
    if (final && this.partial[stream].length) {
      lines.push({ stream, text: this.partial[stream].toString('utf8'), timestamp: now });
      this.offsets[stream] += this.partial[stream].length;
      this.partial[stream] = Buffer.alloc(0);
    }
    return lines;
  }

  private gone(): boolean {
    if (this.isChild) return this.exit !== undefined;
    if (this.handle.pid <= 0 || !isAlive(this.handle.pid)) return true;
    return this.handle.start !== null && processStart(this.handle.pid) !== this.handle.start;
  }

  private statusFromFile(): ExitStatus {
    try {
      const text = fs.readFileSync(path.join(this.handle.dir, 'exit_status'), 'utf8').trim();
      const code = Number.parseInt(text, 10);
      if (Number.isInteger(code)) return { exitCode: code, signal: null };
    } catch {
      // no status file: the wrapper itself was killed
    }
    return { exitCode: null, signal: null, lost: true };
  }

  private async poll(): Promise<void> {
    if (this.polling || this.stopped || this.finished) return;
    this.polling = true;
    try {
      const final = this.gone();
      const now = Date.now();
      const lines = STREAMS.flatMap((stream) => this.read(stream, final, now));
      if (lines.length) await this.sink.onLog(lines, { ...this.offsets });
      if (final && !this.stopped) {
        this.finished = true;
        const status = this.exit && !(this.exit.exitCode === null && this.exit.signal === null) ? this.statusOrFile(this.exit) : this.statusFromFile();
        this.onDone(this);
        await this.sink.onExit(status);
        return;
      }
    } catch {
      // The sink failed (database busy, say): the same lines are read again next time.
    } finally {
      this.polling = false;
    }
    this.schedule(this.pollMs);
  }

  /** The wrapper's status file knows the runner's own exit code; the child exit event only the wrapper's. */
  private statusOrFile(exit: ExitStatus): ExitStatus {
    const fromFile = this.statusFromFile();
    return fromFile.lost ? exit : fromFile;
  }
}

/**
 * Runs jobs as child processes of this server, each in its own process group (so that terminate
 * reaches everything the job started), with stdout and stderr going to files in the job's
 * directory that are followed line by line. Because the output goes to files rather than pipes,
 * jobs outlive a crash of the server, and a restarted server attaches to them again.
 */
export class LocalExecutor implements Executor {
  readonly kind = 'local';
  readonly capacity: Resources;
  /** What all running jobs together may reserve: the capacity times the oversubscription. */
  readonly total: Resources;
  private readonly reserved = new Map<string, Resources>();
  private readonly watches = new Map<string, Watch>();
  private readonly pollMs: number;
  private readonly killGraceMs: number;
  private readonly launcher: Launcher | undefined;

  constructor(options: LocalExecutorOptions = {}) {
    this.capacity = {
      cores: options.cores ?? os.availableParallelism(),
      memoryMB: options.memoryMB ?? Math.floor(os.totalmem() / 1024 / 1024),
    };
    const oversubscribe = options.oversubscribe ?? 1;
    if (!(oversubscribe >= 1)) throw new Error(`oversubscribe must be a number ≥ 1, not ${oversubscribe}`);
    this.total = { cores: this.capacity.cores * oversubscribe, memoryMB: this.capacity.memoryMB * oversubscribe };
    this.pollMs = options.pollMs ?? 100;
    this.killGraceMs = options.killGraceMs ?? 2000;
    this.launcher = options.launcher === false ? undefined : new Launcher();
  }

  private used(): Resources {
    let cores = 0;
    let memoryMB = 0;
    for (const r of this.reserved.values()) {
      cores += r.cores;
      memoryMB += r.memoryMB;
    }
    return { cores, memoryMB };
  }

  hasCapacityFor(resources: Resources): boolean {
    const wanted = clampResources(resources, this.capacity);
    const used = this.used();
    return used.cores + wanted.cores <= this.total.cores + 1e-9 && used.memoryMB + wanted.memoryMB <= this.total.memoryMB;
  }

  private key(spec: LaunchSpec): string {
    return `${spec.jobId}/${spec.try}`;
  }

  private watch(spec: LaunchSpec, handle: LocalHandle, sink: ExecutionSink, offsets: StreamOffsets, isChild: boolean): Watch {
    const key = this.key(spec);
    this.watches.get(key)?.stop();
    this.reserved.set(key, clampResources(spec.resources, this.capacity));
    const watch = new Watch(key, handle, sink, offsets, this.pollMs, isChild, (done) => {
      if (this.watches.get(key) === done) {
        this.watches.delete(key);
        this.reserved.delete(key);
      }
    });
    this.watches.set(key, watch);
    return watch;
  }

  async launch(spec: LaunchSpec, sink: ExecutionSink): Promise<string> {
    const dir = path.join(spec.workDir, '.executor');
    fs.mkdirSync(dir, { recursive: true });
    if (this.launcher) return this.launchThroughLauncher(this.launcher, spec, sink, dir);
    // From here to the exit listener, nothing waits: the child's events must not pass unheard.
    const stdout = fs.openSync(path.join(dir, 'stdout.log'), 'a');
    const stderr = fs.openSync(path.join(dir, 'stderr.log'), 'a');
    const script = wrapperScript(path.join(dir, 'exit_status'));
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('/bin/sh', ['-c', script, 'panx-job', ...spec.command], {
        cwd: spec.workDir,
        env: spec.env,
        detached: true,
        stdio: ['ignore', stdout, stderr],
      });
    } finally {
      fs.closeSync(stdout);
      fs.closeSync(stderr);
    }
    const pid = child.pid;
    if (pid === undefined) {
      const error = await new Promise<Error>((resolve) => child.once('error', resolve));
      throw new Error(`could not start the job runner: ${error.message}`);
    }
    child.unref();
    const handle: LocalHandle = { pid, start: processStart(pid), dir };
    const watch = this.watch(spec, handle, sink, {}, true);
    child.once('exit', (code, signal) => watch.childExited({ exitCode: code, signal }));
    watch.start();
    return JSON.stringify(handle);
  }

  private async launchThroughLauncher(launcher: Launcher, spec: LaunchSpec, sink: ExecutionSink, dir: string): Promise<string> {
    let watch: Watch | undefined;
    let early: ExitStatus | undefined;
    let orphaned = false;
    const pid = await launcher.spawn(
      {
        file: '/bin/sh',
        args: ['-c', wrapperScript(path.join(dir, 'exit_status')), 'panx-job', ...spec.command],
        cwd: spec.workDir,
        env: spec.env,
        stdout: path.join(dir, 'stdout.log'),
        stderr: path.join(dir, 'stderr.log'),
      },
      (status) => {
        if (watch) watch.childExited(status);
        else early = status;
      },
      () => {
        if (watch) watch.orphaned();
        else orphaned = true;
      },
    );
    const handle: LocalHandle = { pid, start: processStart(pid), dir };
    watch = this.watch(spec, handle, sink, {}, true);
    if (early) watch.childExited(early);
    else if (orphaned) watch.orphaned();
    watch.start();
    return JSON.stringify(handle);
  }

  async attach(handleText: string, spec: LaunchSpec, sink: ExecutionSink, offsets: StreamOffsets): Promise<'running' | 'exited'> {
    let handle: LocalHandle;
    try {
      handle = JSON.parse(handleText) as LocalHandle;
    } catch {
      handle = { pid: 0, start: null, dir: path.join(spec.workDir, '.executor') };
    }
    const alive = handle.pid > 0 && isAlive(handle.pid) && (handle.start === null || processStart(handle.pid) === handle.start);
    const watch = this.watch(spec, handle, sink, offsets, false);
    watch.start();
    return alive ? 'running' : 'exited';
  }

  async terminate(handleText: string): Promise<void> {
    let handle: LocalHandle;
    try {
      handle = JSON.parse(handleText) as LocalHandle;
    } catch {
      return;
    }
    if (!(handle.pid > 0)) return;
    const owned = handle.start === null || processStart(handle.pid) === handle.start || !isAlive(handle.pid);
    if (!owned) return;
    try {
      process.kill(-handle.pid, 'SIGTERM');
    } catch {
      return; // the group is gone already
    }
    const deadline = Date.now() + this.killGraceMs;
    while (Date.now() < deadline && groupAlive(handle.pid)) await new Promise((resolve) => setTimeout(resolve, 50));
    if (groupAlive(handle.pid)) {
      try {
        process.kill(-handle.pid, 'SIGKILL');
      } catch {
        // gone in between
      }
    }
  }

  async detachAll(): Promise<void> {
    this.launcher?.close();
    for (const watch of this.watches.values()) watch.stop();
    this.watches.clear();
    this.reserved.clear();
  }
}
