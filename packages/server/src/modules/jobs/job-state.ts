import type { JobState } from '@panx/contract';

/**
 * The job state machine (SPEC §4, reference §7.1), pure: every state change of every job goes
 * through `transition`, so no code path can invent an edge.
 *
 *   idle ─▶ waiting_on_input ─▶ runnable ─▶ running ─▶ waiting_on_output ─▶ done
 *     └──────────────────────────▲    ▲         │ └──────────────────────────▲
 *                                 │    └ restartable ◀┤ (restartOn: try + 1)
 *                                 │                   ├▶ unresponsive ─▶ running | restartable | failed
 *                                 │                   └▶ debug_hold
 *   any non-terminal state ─▶ failed;  any non-terminal state ─▶ terminating ─▶ terminated
 *   idle | waiting_on_input ─▶ done when an identical finished job is reused
 */
export type JobEvent =
  /** Inputs, dependencies or input objects are not ready yet. */
  | 'inputsPending'
  /** Everything the job needs is there: it may be scheduled. */
  | 'inputsReady'
  /** An identical finished job's outputs are reused instead of running. */
  | 'reuse'
  /** An executor has taken the job. */
  | 'start'
  /** The code finished; subjobs, output references or output objects are still pending. */
  | 'codeFinishedPending'
  /** The code finished and its output is complete. */
  | 'codeFinished'
  /** Subjobs, references and output objects of a waiting job are complete. */
  | 'outputsReady'
  | 'fail'
  /** A failure that `executionPolicy.restartOn` allows to retry. */
  | 'restart'
  /** A restartable job goes back to the queue with the next try. */
  | 'requeue'
  | 'terminate'
  /** The processes of a terminating job are gone. */
  | 'terminated'
  /** A failure matched `debug.debugOn`: the job is held for inspection. */
  | 'hold'
  /** The worker stopped answering. */
  | 'lostContact'
  | 'regainedContact';

export const TERMINAL_STATES: ReadonlySet<JobState> = new Set(['done', 'failed', 'terminated']);
/** States in which a job's code has a process (or may have one) on an executor. */
export const PROCESS_STATES: ReadonlySet<JobState> = new Set(['running', 'terminating', 'unresponsive', 'debug_hold']);

const EDGES: Record<JobState, Partial<Record<JobEvent, JobState>>> = {
  idle: { inputsPending: 'waiting_on_input', inputsReady: 'runnable', reuse: 'done', fail: 'failed', terminate: 'terminating' },
  waiting_on_input: { inputsReady: 'runnable', reuse: 'done', fail: 'failed', terminate: 'terminating' },
  runnable: { start: 'running', fail: 'failed', terminate: 'terminating' },
  running: {
    codeFinishedPending: 'waiting_on_output',
    codeFinished: 'done',
    fail: 'failed',
    restart: 'restartable',
    terminate: 'terminating',
    hold: 'debug_hold',
    lostContact: 'unresponsive',
  },
  waiting_on_output: { outputsReady: 'done', fail: 'failed', terminate: 'terminating' },
  restartable: { requeue: 'runnable', fail: 'failed', terminate: 'terminating' },
  unresponsive: { regainedContact: 'running', restart: 'restartable', fail: 'failed', terminate: 'terminating' },
  debug_hold: { fail: 'failed', terminate: 'terminating' },
  terminating: { terminated: 'terminated' },
  done: {},
  failed: {},
  terminated: {},
};

export class InvalidTransitionError extends Error {
  constructor(
    readonly from: JobState,
    readonly event: JobEvent,
  ) {
    super(`A job in state ${from} cannot take the event ${event}`);
  }
}

/** The state after `event`, or undefined when the event does not apply to `from`. */
export function nextState(from: JobState, event: JobEvent): JobState | undefined {
  return EDGES[from]?.[event];
}

/** The state after `event`; throws InvalidTransitionError when the event does not apply to `from`. */
export function transition(from: JobState, event: JobEvent): JobState {
  const to = nextState(from, event);
  if (!to) throw new InvalidTransitionError(from, event);
  return to;
}

export function isTerminal(state: string): boolean {
  return TERMINAL_STATES.has(state as JobState);
}

/** Every edge of the machine, for documentation and tests. */
export function allEdges(): { from: JobState; event: JobEvent; to: JobState }[] {
  return Object.entries(EDGES).flatMap(([from, events]) =>
    Object.entries(events).map(([event, to]) => ({ from: from as JobState, event: event as JobEvent, to: to as JobState })),
  );
}
