import { JOB_STATES, type JobState } from '@panx/contract';
import { describe, expect, it } from 'vitest';
import { allEdges, InvalidTransitionError, isTerminal, type JobEvent, nextState, transition } from './job-state.js';

const EVENTS: JobEvent[] = [
  'inputsPending',
  'inputsReady',
  'reuse',
  'start',
  'codeFinishedPending',
  'codeFinished',
  'outputsReady',
  'fail',
  'restart',
  'requeue',
  'terminate',
  'terminated',
  'hold',
  'lostContact',
  'regainedContact',
];

/** The whole machine as a table: [from, event, to]; every pair not listed is refused. */
const TABLE: [JobState, JobEvent, JobState][] = [
  ['idle', 'inputsPending', 'waiting_on_input'],
  ['idle', 'inputsReady', 'runnable'],
  ['idle', 'reuse', 'done'],
  ['idle', 'fail', 'failed'],
  ['idle', 'terminate', 'terminating'],
  ['waiting_on_input', 'inputsReady', 'runnable'],
  ['waiting_on_input', 'reuse', 'done'],
  ['waiting_on_input', 'fail', 'failed'],
  ['waiting_on_input', 'terminate', 'terminating'],
  ['runnable', 'start', 'running'],
  ['runnable', 'fail', 'failed'],
  ['runnable', 'terminate', 'terminating'],
  ['running', 'codeFinishedPending', 'waiting_on_output'],
  ['running', 'codeFinished', 'done'],
  ['running', 'fail', 'failed'],
  ['running', 'restart', 'restartable'],
  ['running', 'terminate', 'terminating'],
  ['running', 'hold', 'debug_hold'],
  ['running', 'lostContact', 'unresponsive'],
  ['waiting_on_output', 'outputsReady', 'done'],
  ['waiting_on_output', 'fail', 'failed'],
  ['waiting_on_output', 'terminate', 'terminating'],
  ['restartable', 'requeue', 'runnable'],
  ['restartable', 'fail', 'failed'],
  ['restartable', 'terminate', 'terminating'],
  ['unresponsive', 'regainedContact', 'running'],
  ['unresponsive', 'restart', 'restartable'],
  ['unresponsive', 'fail', 'failed'],
  ['unresponsive', 'terminate', 'terminating'],
  ['debug_hold', 'fail', 'failed'],
  ['debug_hold', 'terminate', 'terminating'],
  ['terminating', 'terminated', 'terminated'],
];

describe('the job state machine', () => {
  it.each(TABLE)('%s --%s--> %s', (from, event, to) => {
    expect(transition(from, event)).toBe(to);
  });

  it('refuses every pair the table does not list', () => {
    const allowed = new Set(TABLE.map(([from, event]) => `${from}/${event}`));
    for (const from of JOB_STATES) {
      for (const event of EVENTS) {
        if (allowed.has(`${from}/${event}`)) continue;
        expect(nextState(from, event), `${from}/${event}`).toBeUndefined();
        expect(() => transition(from, event)).toThrow(InvalidTransitionError);
      }
    }
  });

  it('lists exactly the edges of the table', () => {
    expect(allEdges()).toHaveLength(TABLE.length);
  });

  it('ends in done, failed or terminated, which nothing leaves', () => {
    for (const state of ['done', 'failed', 'terminated'] as const) {
      expect(isTerminal(state)).toBe(true);
      for (const event of EVENTS) expect(nextState(state, event)).toBeUndefined();
    }
    for (const state of JOB_STATES.filter((s) => !['done', 'failed', 'terminated'].includes(s))) {
      expect(isTerminal(state)).toBe(false);
      // Every non-terminal state can be terminated, and terminating ends in terminated.
      expect(transition(state, state === 'terminating' ? 'terminated' : 'terminate')).toBe(state === 'terminating' ? 'terminated' : 'terminating');
    }
  });

  it('reaches every state from idle', () => {
    const reached = new Set<JobState>(['idle']);
    for (let changed = true; changed; ) {
      changed = false;
      for (const { from, to } of allEdges()) {
        if (reached.has(from) && !reached.has(to)) {
          reached.add(to);
          changed = true;
        }
      }
    }
    expect([...reached].sort()).toEqual([...JOB_STATES].sort());
  });
});
