import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SlurmConfig } from '../../config.js';
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
const READ_CHUNK = 256 * 1024;
/** Bytes read per stream per poll while the job runs (the rest comes next time). */
const MAX_READ_PER_POLL = 4 * 1024 * 1024;
const STREAMS: readonly LogStream[] = ['stdout', 'stderr'];
/** Job states after which nothing runs any more (squeue's long names). */
const FINAL_STATES = new Set([
  'BOOT_FAIL',
  'CANCELLED',
  'COMPLETED',
  'DEADLINE',
  'FAILED',
  'NODE_FAIL',
  'OUT_OF_MEMORY',
  'PREEMPTED',
  'REVOKED',
  'SPECIAL_EXIT',
  'TIMEOUT',
]);
/** The shortest time between two squeue calls when a job looks finished (its exit-status file appeared). */
const SOON_GAP_MS = 200;
/** After a runner reported its outcome, its exit-status file is looked for this often... */
const EXIT_POLL_MS = 20;
/** ...for this long (then at the usual pollMs). */
const EXIT_WATCH_MS = 5_000;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SLURM_ID = /^[0-9]+$/;

/** What `attach` needs to find an execution again: the Slurm job id and the directory of its files. */
interface SlurmHandle {
  slurmJobId: string;
  dir: string;
}

export interface SlurmExecutorOptions {
  partition?: string;
  account?: string;
  qos?: string;
  /** More sbatch arguments, one word each. */
  extraArgs?: string[];
  /** Directory of the Slurm commands (default: PATH). */
  binDir?: string;
  /** The most one job gets; the partition's largest node (sinfo) bounds it anyway. */
  maxCores?: number;
  maxMemoryMB?: number;
  /** How much is submitted at once (default: the partition's total, from sinfo). */
  totalCores?: number;
  totalMemoryMB?: number;
  /** How often output and exit-status files are read. */
  pollMs?: number;
  /** How often one squeue call asks about every watched job. */
  statePollMs?: number;
  /** After scancel, before scancel --signal=KILL. */
  killGraceMs?: number;
  /** Timeout of each Slurm command. */
  commandTimeoutMs?: number;
}

/** Nodes of a partition, as sinfo reports them. */
export interface SlurmNode {
  name: string;
  cpus: number;
  memoryMB: number;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'"'"'`)}'`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function errorText(error: unknown): string {
  const failed = error as { stderr?: string; message?: string };
  return (failed.stderr?.trim() || failed.message || String(error)).split('\n').slice(0, 5).join('; ');
}

/** `3:0` → exit code 3; `0:15` → signal 15. */
function parseExitCode(text: string | undefined): { code: number; signal: number } | null {
  const match = /^(\d+):(\d+)$/.exec(text ?? '');
  return match ? { code: Number(match[1]), signal: Number(match[2]) } : null;
}

function signalName(number: number): string {
  const entry = Object.entries(os.constants.signals).find(([, value]) => value === number);
  return entry ? entry[0] : `SIG${number}`;
}

/** The status of a finished Slurm job whose batch script left no exit-status file. */
export function statusFromSlurm(state: string, exitCodeText: string | undefined): ExitStatus {
  const exit = parseExitCode(exitCodeText);
  if (state === 'NODE_FAIL' || state === 'BOOT_FAIL' || !exit) return { exitCode: null, signal: null, lost: true };
  if (exit.signal > 0) return { exitCode: null, signal: signalName(exit.signal) };
  if (['CANCELLED', 'TIMEOUT', 'PREEMPTED', 'DEADLINE'].includes(state)) {
    // Killed by Slurm: the shell's 128+n, if any, names the signal; SIGTERM is what Slurm sends first.
    return { exitCode: null, signal: exit.code > 128 && exit.code < 128 + 65 ? signalName(exit.code - 128) : 'SIGTERM' };
  }
  if (state === 'OUT_OF_MEMORY' && exit.code === 0) return { exitCode: null, signal: 'SIGKILL' };
  return { exitCode: exit.code, signal: null };
}

/** `sinfo -N -o '%N|%P|%c|%m'` lines → the nodes of `partition` (the default one, marked `*`, when unset). */
export function parseSinfoNodes(output: string, partition?: string): SlurmNode[] {
  const rows = output
    .split('\n')
    .map((line) => line.trim().split('|'))
    .filter((fields) => fields.length >= 4);
  const wanted = partition ? rows.filter((fields) => fields[1]?.replace(/\*$/, '') === partition) : rows.filter((fields) => fields[1]?.endsWith('*'));
  const nodes = new Map<string, SlurmNode>();
  for (const [name, , cpus, memory] of wanted.length || partition ? wanted : rows) {
    if (!name || nodes.has(name)) continue;
    nodes.set(name, { name, cpus: Number.parseInt(cpus ?? '', 10) || 0, memoryMB: Number.parseInt(memory ?? '', 10) || 0 });
  }
  return [...nodes.values()];
}

/** The batch script: the runner with exactly the spec's environment (sourced from a file), then its exit code recorded durably. */
function batchScript(spec: LaunchSpec, dir: string): string {
  const envFile = path.join(dir, 'env.sh');
  const status = path.join(dir, 'exit_status');
  return [
    '#!/bin/sh',
    `# Panx ${spec.jobId} try ${spec.try}, written by the Slurm executor. The environment comes from env.sh only.`,
    `/usr/bin/env -i /bin/sh -c '. "$1" && shift && exec "$@"' panx-job ${[envFile, ...spec.command].map(shellQuote).join(' ')}`,
    's=$?',
    `printf '%s' "$s" > ${shellQuote(`${status}.tmp`)} && mv -f ${shellQuote(`${status}.tmp`)} ${shellQuote(status)}`,
    'exit $s',
    '',
  ].join('\n');
}

function envFileText(env: Record<string, string>): string {
  const lines = ['# The complete environment of the job (sourced by job.sh under env -i).'];
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name)) throw new Error(`environment variable name ${JSON.stringify(name)} cannot be passed to a Slurm job`);
    lines.push(`export ${name}=${shellQuote(value)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Complete lines of `file` from `offset` on (and the unterminated rest when `final`), with the offset after them. */
function readLines(file: string, offset: number, final: boolean): { texts: string[]; next: number } {
  const texts: string[] = [];
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return { texts, next: offset };
  }
  let next = offset;
  try {
    let buffer = Buffer.alloc(0);
    let position = offset;
    for (;;) {
      if (!final && position - offset >= MAX_READ_PER_POLL) break;
      const chunk = Buffer.alloc(READ_CHUNK);
      const read = fs.readSync(fd, chunk, 0, READ_CHUNK, position);
      if (read <= 0) break;
      position += read;
      buffer = buffer.length ? Buffer.concat([buffer, chunk.subarray(0, read)]) : chunk.subarray(0, read);
      for (let newline = buffer.indexOf(10); newline >= 0 || buffer.length >= MAX_LINE_BYTES; newline = buffer.indexOf(10)) {
        const cut = newline >= 0 && newline < MAX_LINE_BYTES ? newline : MAX_LINE_BYTES;
        const text = buffer.subarray(0, cut).toString('utf8');
        const skip = cut === newline ? cut + 1 : cut;
        texts.push(text.endsWith('\r') ? text.slice(0, -1) : text);
        buffer = buffer.subarray(skip);
        next += skip;
      }
      if (read < READ_CHUNK) break;
    }
    if (final && buffer.length) {
      texts.push(buffer.toString('utf8'));
      next += buffer.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { texts, next };
}

/** One watched Slurm job: follows its output files and its state until it has ended. */
class SlurmWatch {
  readonly offsets: Record<LogStream, number>;
  private busy = false;
  private finished = false;
  stopped = false;

  constructor(
    readonly key: string,
    readonly handle: SlurmHandle,
    private readonly sink: ExecutionSink,
    offsets: StreamOffsets,
    private readonly executor: SlurmExecutor,
    private readonly onDone: (watch: SlurmWatch) => void,
  ) {
    this.offsets = { stdout: offsets.stdout ?? 0, stderr: offsets.stderr ?? 0 };
  }

  private file(name: string): string {
    return path.join(this.handle.dir, name);
  }

  statusFile(): ExitStatus | null {
    try {
      const code = Number.parseInt(fs.readFileSync(this.file('exit_status'), 'utf8').trim(), 10);
      if (Number.isInteger(code)) return { exitCode: code, signal: null };
    } catch {
      // not (yet) written: still running, or the batch script itself was killed
    }
    return null;
  }

  /** Delivers new lines; offsets advance only once the sink took them. */
  private async deliver(final: boolean): Promise<void> {
    const now = Date.now();
    const lines: LogLine[] = [];
    const next = { ...this.offsets };
    for (const stream of STREAMS) {
      const { texts, next: after } = readLines(this.file(`${stream}.log`), this.offsets[stream], final);
      for (const text of texts) lines.push({ stream, text, timestamp: now });
      next[stream] = after;
    }
    if (!lines.length || this.stopped) return;
    await this.sink.onLog(lines, { ...next });
    Object.assign(this.offsets, next);
  }

  /**
   * One poll. `states` is squeue's answer of this tick (job id → state; missing = Slurm does not
   * know the job), or null when squeue was not asked or failed.
   */
  async step(states: Map<string, string> | null): Promise<void> {
    if (this.busy || this.stopped || this.finished) return;
    this.busy = true;
    try {
      await this.deliver(false);
      // The batch script writes the status file as its last act: the job has ended, its output is
      // complete, and Slurm will only tidy up. Its end applies now, not at Slurm's next answer.
      if (this.statusFile()) {
        await this.finish(undefined);
        return;
      }
      if (!states || this.stopped) return;
      const state = SLURM_ID.test(this.handle.slurmJobId) ? states.get(this.handle.slurmJobId) : undefined;
      if (state === undefined || FINAL_STATES.has(state)) await this.finish(state);
    } catch {
      // The sink failed (database busy, say): the same lines are read again next time.
    } finally {
      this.busy = false;
    }
  }

  private async finish(state: string | undefined): Promise<void> {
    await this.deliver(true);
    if (this.stopped) return;
    let status = this.statusFile();
    if (!status) status = state === undefined ? { exitCode: null, signal: null, lost: true } : await this.executor.statusOf(this.handle.slurmJobId, state);
    if (this.stopped || this.finished) return;
    this.finished = true;
    this.onDone(this);
    await this.sink.onExit(status);
  }

  stop(): void {
    this.stopped = true;
  }
}

/**
 * Runs each job as one Slurm batch job (`sbatch`): a small batch script in `<workDir>/.executor`
 * runs the command under `env -i` with the spec's environment sourced from `env.sh`, writes its
 * exit code to `exit_status` (which outlives Slurm's memory of the job), and sends stdout and
 * stderr to files there that are followed line by line. The work directory must be on storage
 * shared by this server and the nodes. One `squeue` per tick asks about every watched job; a job
 * Slurm no longer knows and that left no exit status is lost. Terminate is `scancel` of the whole
 * allocation. The Slurm commands run through execFile with argument arrays, never a shell.
 */
export class SlurmExecutor implements Executor {
  readonly kind = 'slurm';
  readonly capacity: Resources;
  private readonly total: Resources;
  private readonly reserved = new Map<string, Resources>();
  private readonly watches = new Map<string, SlurmWatch>();
  private readonly pollMs: number;
  private readonly statePollMs: number;
  private readonly killGraceMs: number;
  private readonly commandTimeoutMs: number;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = 0;
  private ticking = false;
  private lastStatePoll = 0;
  private stateSoon = false;
  /** Until then a runner that reported its outcome is about to exit: poll at EXIT_POLL_MS. */
  private exitExpectedUntil = 0;
  private snapshot: { at: number; states: Promise<Map<string, string> | null> } | undefined;

  private constructor(
    private readonly options: SlurmExecutorOptions,
    nodes: SlurmNode[],
  ) {
    const largest = { cores: Math.max(0, ...nodes.map((node) => node.cpus)), memoryMB: Math.max(0, ...nodes.map((node) => node.memoryMB)) };
    const sum = { cores: nodes.reduce((total, node) => total + node.cpus, 0), memoryMB: nodes.reduce((total, node) => total + node.memoryMB, 0) };
    // A node without RealMemory reports 1 MB: then only the configuration bounds memory.
    const pick = (configured: number | undefined, fromSinfo: number, what: string): number => {
      const known = fromSinfo > 1 ? fromSinfo : undefined;
      const value = configured !== undefined && known !== undefined ? Math.min(configured, known) : (configured ?? known);
      if (value === undefined) throw new Error(`the Slurm executor cannot tell the ${what}: sinfo reported no nodes; set it in engine.slurm`);
      return value;
    };
    this.capacity = {
      cores: pick(options.maxCores, largest.cores, 'cores of a node'),
      memoryMB: pick(options.maxMemoryMB, largest.memoryMB, 'memory of a node'),
    };
    this.total = {
      cores: options.totalCores ?? Math.max(sum.cores, this.capacity.cores),
      memoryMB: options.totalMemoryMB ?? Math.max(sum.memoryMB > nodes.length ? sum.memoryMB : 0, this.capacity.memoryMB),
    };
    this.pollMs = options.pollMs ?? 500;
    this.statePollMs = options.statePollMs ?? 1000;
    this.killGraceMs = options.killGraceMs ?? 10_000;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 30_000;
  }

  /** Asks sinfo for the partition's nodes (capacity) and answers a ready executor. */
  static async create(options: SlurmExecutorOptions = {}): Promise<SlurmExecutor> {
    let nodes: SlurmNode[] = [];
    try {
      const args = ['-h', '-N', '-o', '%N|%P|%c|%m', ...(options.partition ? ['-p', options.partition] : [])];
      nodes = parseSinfoNodes(await runSlurm(options.binDir, 'sinfo', args, options.commandTimeoutMs ?? 30_000), options.partition);
    } catch (error) {
      if (options.maxCores === undefined || options.maxMemoryMB === undefined)
        throw new Error(`the Slurm executor cannot reach the cluster: sinfo: ${errorText(error)}`);
    }
    if (!nodes.length && (options.maxCores === undefined || options.maxMemoryMB === undefined)) {
      throw new Error(`sinfo lists no nodes in ${options.partition ? `partition ${options.partition}` : 'the default partition'}`);
    }
    return new SlurmExecutor(options, nodes);
  }

  private run(command: string, args: string[]): Promise<string> {
    return runSlurm(this.options.binDir, command, args, this.commandTimeoutMs);
  }

  /** Cores as Slurm counts them (whole), within the capacity. */
  private grant(resources: Resources): Resources {
    const clamped = clampResources(resources, this.capacity);
    return {
      cores: Math.min(Math.max(1, Math.ceil(clamped.cores)), Math.max(1, Math.floor(this.capacity.cores))),
      memoryMB: Math.max(1, Math.ceil(clamped.memoryMB)),
    };
  }

  hasCapacityFor(resources: Resources): boolean {
    const wanted = this.grant(resources);
    let cores = 0;
    let memoryMB = 0;
    for (const used of this.reserved.values()) {
      cores += used.cores;
      memoryMB += used.memoryMB;
    }
    return cores + wanted.cores <= this.total.cores && memoryMB + wanted.memoryMB <= this.total.memoryMB;
  }

  private key(spec: LaunchSpec): string {
    return `${spec.jobId}/${spec.try}`;
  }

  private watch(spec: LaunchSpec, handle: SlurmHandle, sink: ExecutionSink, offsets: StreamOffsets): SlurmWatch {
    const key = this.key(spec);
    this.watches.get(key)?.stop();
    this.reserved.set(key, this.grant(spec.resources));
    const watch = new SlurmWatch(key, handle, sink, offsets, this, (done) => {
      if (this.watches.get(key) === done) {
        this.watches.delete(key);
        this.reserved.delete(key);
      }
    });
    this.watches.set(key, watch);
    this.schedule(0);
    return watch;
  }

  async launch(spec: LaunchSpec, sink: ExecutionSink): Promise<string> {
    if (!path.isAbsolute(spec.workDir)) throw new Error(`the work directory must be an absolute path: ${spec.workDir}`);
    if (!spec.command.length) throw new Error('no command to run');
    const dir = path.join(spec.workDir, '.executor');
    fs.mkdirSync(dir, { recursive: true });
    fs.rmSync(path.join(dir, 'exit_status'), { force: true });
    fs.writeFileSync(path.join(dir, 'env.sh'), envFileText(spec.env), { mode: 0o600 });
    fs.chmodSync(path.join(dir, 'env.sh'), 0o600);
    const script = path.join(dir, 'job.sh');
    fs.writeFileSync(script, batchScript(spec, dir), { mode: 0o700 });
    const granted = this.grant(spec.resources);
    const args = [
      '--parsable',
      `--job-name=panx-${spec.jobId}-try${spec.try}`,
      `--chdir=${spec.workDir}`,
      `--output=${path.join(dir, 'stdout.log')}`,
      `--error=${path.join(dir, 'stderr.log')}`,
      '--open-mode=append',
      '--nodes=1',
      '--ntasks=1',
      `--cpus-per-task=${granted.cores}`,
      `--mem=${granted.memoryMB}M`,
      '--no-requeue',
      // The batch script gets sbatch's own (minimal) environment and replaces it with env.sh anyway.
      '--export=ALL',
      ...(this.options.partition ? [`--partition=${this.options.partition}`] : []),
      ...(this.options.account ? [`--account=${this.options.account}`] : []),
      ...(this.options.qos ? [`--qos=${this.options.qos}`] : []),
      ...(this.options.extraArgs ?? []),
      script,
    ];
    let output: string;
    try {
      output = await this.run('sbatch', args);
    } catch (error) {
      throw new Error(`sbatch refused the job: ${errorText(error)}`);
    }
    const slurmJobId = output.trim().split('\n').pop()?.split(';')[0]?.trim() ?? '';
    if (!SLURM_ID.test(slurmJobId)) throw new Error(`sbatch answered no job id: ${JSON.stringify(output.trim())}`);
    const handle: SlurmHandle = { slurmJobId, dir };
    this.watch(spec, handle, sink, {});
    return JSON.stringify(handle);
  }

  async attach(handleText: string, spec: LaunchSpec, sink: ExecutionSink, offsets: StreamOffsets): Promise<'running' | 'exited'> {
    const handle = parseHandle(handleText) ?? { slurmJobId: '', dir: path.join(spec.workDir, '.executor') };
    let running = false;
    if (SLURM_ID.test(handle.slurmJobId) && !fs.existsSync(path.join(handle.dir, 'exit_status'))) {
      const states = await this.myJobStates();
      const state = states?.get(handle.slurmJobId);
      // When squeue fails, say running: the watch finds out.
      running = states === null || (state !== undefined && !FINAL_STATES.has(state));
    }
    this.watch(spec, handle, sink, offsets);
    return running ? 'running' : 'exited';
  }

  async terminate(handleText: string): Promise<void> {
    const handle = parseHandle(handleText);
    if (!handle || !SLURM_ID.test(handle.slurmJobId)) return;
    try {
      await this.run('scancel', [handle.slurmJobId]);
    } catch {
      // finished already, or the controller did not answer: the state poll tells
    }
    this.pollStateSoon();
    const deadline = Date.now() + this.killGraceMs;
    for (;;) {
      const state = (await this.states([handle.slurmJobId]))?.get(handle.slurmJobId);
      if (state === undefined || FINAL_STATES.has(state)) return;
      if (Date.now() >= deadline) break;
      await sleep(Math.min(250, this.statePollMs));
    }
    try {
      await this.run('scancel', ['--signal=KILL', '--full', handle.slurmJobId]);
    } catch {
      // gone in between
    }
    this.pollStateSoon();
  }

  async detachAll(): Promise<void> {
    for (const watch of this.watches.values()) watch.stop();
    this.watches.clear();
    this.reserved.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The state of each listed job that Slurm knows (squeue's long state names), or null when squeue failed. */
  async states(ids: string[]): Promise<Map<string, string> | null> {
    const valid = ids.filter((id) => SLURM_ID.test(id));
    if (!valid.length) return new Map();
    let output: string;
    try {
      output = await this.run('squeue', ['-h', '-t', 'all', '-j', valid.join(','), '-o', '%i|%T']);
    } catch (error) {
      // Asked about one job Slurm forgot, squeue fails instead of listing nothing.
      if (/invalid job id/i.test(errorText(error))) return new Map();
      return null;
    }
    return parseStates(output);
  }

  /**
   * The states of all of this user's jobs, asked at most once per statePollMs: a restarted server
   * attaches its jobs one after the other, and this keeps that to one squeue call per period.
   */
  private myJobStates(): Promise<Map<string, string> | null> {
    const now = Date.now();
    if (!this.snapshot || now - this.snapshot.at >= this.statePollMs) {
      const states = this.run('squeue', ['-h', '-t', 'all', '--me', '-o', '%i|%T']).then(parseStates, () => null);
      this.snapshot = { at: now, states };
    }
    return this.snapshot.states;
  }

  /** Exit status of a finished job from `scontrol show job` (JobState and ExitCode; kept MinJobAge seconds). */
  async statusOf(slurmJobId: string, state: string): Promise<ExitStatus> {
    try {
      const output = await this.run('scontrol', ['show', 'job', '-o', slurmJobId]);
      const exitCode = /(?:^|\s)ExitCode=(\S+)/.exec(output)?.[1];
      const jobState = /(?:^|\s)JobState=(\S+)/.exec(output)?.[1] ?? state;
      return statusFromSlurm(jobState, exitCode);
    } catch {
      return { exitCode: null, signal: null, lost: true };
    }
  }

  /** Asks squeue at the next poll rather than after statePollMs (an exit-status file appeared, or a job was cancelled). */
  expectExit(jobId: string, tryNumber: number): void {
    if (!this.watches.has(`${jobId}/${tryNumber}`)) return;
    this.exitExpectedUntil = Date.now() + EXIT_WATCH_MS;
    this.schedule(EXIT_POLL_MS);
  }

  pollStateSoon(): void {
    this.stateSoon = true;
    this.schedule(this.soonDelay());
  }

  /** Until the next squeue call that `pollStateSoon` may make: at most one per SOON_GAP_MS. */
  private soonDelay(): number {
    const gap = Math.min(SOON_GAP_MS, this.statePollMs);
    return Math.min(this.pollMs, Math.max(10, this.lastStatePoll + gap - Date.now()));
  }

  private schedule(delay: number): void {
    if (!this.watches.size) return;
    const due = Date.now() + delay;
    if (this.timer && this.timerDue <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tick();
    }, delay);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const watches = [...this.watches.values()];
      let states: Map<string, string> | null = null;
      const now = Date.now();
      const since = now - this.lastStatePoll;
      if (watches.length && ((this.stateSoon && since >= Math.min(SOON_GAP_MS, this.statePollMs)) || since >= this.statePollMs)) {
        this.stateSoon = false;
        this.lastStatePoll = now;
        states = await this.states(watches.map((watch) => watch.handle.slurmJobId));
      }
      await Promise.all(watches.map((watch) => watch.step(states)));
    } catch {
      // a step never throws; nothing to do but try again
    } finally {
      this.ticking = false;
      const usual = Date.now() < this.exitExpectedUntil ? Math.min(EXIT_POLL_MS, this.pollMs) : this.pollMs;
      this.schedule(this.stateSoon ? Math.min(this.soonDelay(), usual) : usual);
    }
  }
}

/** squeue `-o '%i|%T'` lines → job id → state. */
function parseStates(output: string): Map<string, string> {
  const states = new Map<string, string>();
  for (const line of output.split('\n')) {
    const [id, state] = line.trim().split('|');
    if (id && state) states.set(id, state.replace(/\+$/, ''));
  }
  return states;
}

function parseHandle(text: string): SlurmHandle | null {
  try {
    const handle = JSON.parse(text) as Partial<SlurmHandle>;
    if (typeof handle.slurmJobId === 'string' && typeof handle.dir === 'string' && SLURM_ID.test(handle.slurmJobId))
      return { slurmJobId: handle.slurmJobId, dir: handle.dir };
  } catch {
    // not one of ours
  }
  return null;
}

/**
 * The environment of the Slurm commands: enough to find them and the cluster, and who runs them
 * (HOME, USER, LOGNAME: without them batch jobs started about 0.2 s later on the test cluster), never
 * the server's secrets (sbatch passes it to the job, whose script replaces it with env.sh).
 */
function slurmCommandEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LANG: 'C' };
  for (const name of ['SLURM_CONF', 'SLURM_CLUSTERS', 'MUNGE_SOCKET', 'TZ']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  const user = os.userInfo();
  env.HOME = process.env.HOME || user.homedir;
  env.USER = process.env.USER || user.username;
  env.LOGNAME = process.env.LOGNAME || user.username;
  return env;
}

function runSlurm(binDir: string | undefined, command: string, args: string[], timeoutMs: number): Promise<string> {
  const file = binDir ? path.join(binDir, command) : command;
  return new Promise((resolve, reject) => {
    execFile(file, args, { env: slurmCommandEnv(), timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stderr }));
      else resolve(stdout);
    });
  });
}

/** The executor of `engine.executor: 'slurm'` (PANX_EXECUTOR=slurm), from `engine.slurm`. */
export function createSlurmExecutor(config: SlurmConfig): Promise<SlurmExecutor> {
  return SlurmExecutor.create({ ...config });
}
