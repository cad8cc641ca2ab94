/**
 * Where a job's runner process actually runs. The scheduler decides *which* job runs and records
 * every state; an executor only starts, watches and stops processes. Implementations: the local
 * executor (child processes on this host) and, later, Slurm (`sbatch` on a cluster).
 *
 * What every implementation guarantees (checked by `executor.contract.ts`, which each one runs):
 *
 * 1. **Launch.** `launch` runs `spec.command` with exactly `spec.env` as environment, in
 *    `spec.workDir` (created if missing), and answers a handle (a string) that identifies the
 *    execution durably: after a restart of the server, `attach` with that handle finds it again.
 * 2. **Resources.** A job is given the cores and memory it asks for (clamped to `capacity`).
 *    `hasCapacityFor` answers whether one more such job can start now; the executor never runs
 *    more at once than its capacity holds. A job's reservation ends when its exit is reported.
 * 3. **Logs.** Every line the job writes to stdout and stderr reaches `sink.onLog` once, in order
 *    within each stream, labelled with its stream and the time it was read, without the newline.
 *    A last line without a newline is delivered when the job ends. `onLog` calls never overlap for
 *    one job, and each says up to where each stream has been read (`offsets`): a later `attach`
 *    given those offsets continues after them, so lines persisted with their offsets are never
 *    delivered twice nor lost.
 * 4. **Exit.** `sink.onExit` is called exactly once per launch (or attach), after the last
 *    `onLog`, with the exit code (or signal) when known, or `lost: true` when the process
 *    vanished without a trace of its status.
 * 5. **Termination.** `terminate` stops the job and every process it started (its whole process
 *    group or cluster allocation), escalating to SIGKILL; `onExit` follows.
 * 6. **Detach.** `detachAll` stops watching without touching the processes (server shutdown);
 *    they keep running and can be attached again.
 */
export interface Resources {
  cores: number;
  memoryMB: number;
}

export interface LaunchSpec {
  jobId: string;
  try: number;
  resources: Resources;
  /** argv of the job runner. */
  command: string[];
  /** The complete environment of the command. */
  env: Record<string, string>;
  workDir: string;
}

export type LogStream = 'stdout' | 'stderr';

export interface LogLine {
  stream: LogStream;
  text: string;
  /** ms since the epoch, when the executor read the line. */
  timestamp: number;
}

/** How far each stream has been delivered (bytes); opaque to the caller, which stores and hands them back. */
export type StreamOffsets = Partial<Record<LogStream, number>>;

export interface ExitStatus {
  exitCode: number | null;
  signal: string | null;
  /** The process is gone and nothing says how it ended (killed with the host, or never found). */
  lost?: boolean;
}

export interface ExecutionSink {
  onLog(lines: LogLine[], offsets: StreamOffsets): Promise<void>;
  onExit(status: ExitStatus): Promise<void>;
}

export interface Executor {
  readonly kind: string;
  /** The most one job can get; larger requests are clamped to it. */
  readonly capacity: Resources;
  hasCapacityFor(resources: Resources): boolean;
  launch(spec: LaunchSpec, sink: ExecutionSink): Promise<string>;
  /** Watches an execution started earlier (maybe by an earlier server process) from `offsets` on. */
  attach(handle: string, spec: LaunchSpec, sink: ExecutionSink, offsets: StreamOffsets): Promise<'running' | 'exited'>;
  terminate(handle: string): Promise<void>;
  detachAll(): Promise<void>;
  /**
   * The try's runner has reported its outcome over the API and is about to exit: an executor that
   * polls for exits (Slurm) looks sooner than its usual period. Optional: others see exits at once.
   */
  expectExit?(jobId: string, tryNumber: number): void;
}

/** Clamps a request to what the executor can give at most. */
export function clampResources(requested: Resources, capacity: Resources): Resources {
  return { cores: Math.min(requested.cores, capacity.cores), memoryMB: Math.min(requested.memoryMB, capacity.memoryMB) };
}
