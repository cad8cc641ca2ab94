import { describe, expect, it } from 'vitest';
import { analysisState, isAnalysisFinished } from './analysis-state.js';

describe('analysisState', () => {
  const table: [string, string[], boolean, string][] = [
    ['every stage waiting', ['idle', 'waiting_on_input'], false, 'in_progress'],
    ['one running, one waiting', ['running', 'waiting_on_input'], false, 'in_progress'],
    ['a restart under way', ['done', 'restartable'], false, 'in_progress'],
    ['every stage done', ['done', 'done', 'done'], false, 'done'],
    ['no stages at all', [], false, 'done'],
    ['one failed, one running', ['failed', 'running'], false, 'partially_failed'],
    ['one failed, one done, one waiting', ['done', 'failed', 'waiting_on_input'], false, 'partially_failed'],
    ['a stage terminated on its own, one running', ['terminated', 'running'], false, 'partially_failed'],
    ['failed and done', ['done', 'failed'], false, 'failed'],
    ['failed and terminated', ['failed', 'terminated'], false, 'failed'],
    ['only terminations and done', ['done', 'terminated'], false, 'terminated'],
    ['terminate asked, stages still stopping', ['terminating', 'done', 'running'], true, 'terminating'],
    ['terminate asked, a stage waiting', ['waiting_on_input'], true, 'terminating'],
    ['terminate asked, everything stopped', ['terminated', 'done', 'terminated'], true, 'terminated'],
    ['terminate asked after a failure, everything stopped', ['failed', 'terminated'], true, 'terminated'],
    ['terminate asked when everything was done', ['done', 'done'], true, 'done'],
  ];
  it.each(table)('%s', (_name, states, terminate, expected) => {
    expect(analysisState(states, terminate)).toBe(expected);
  });

  it('knows which states are final', () => {
    expect(['done', 'failed', 'terminated'].every(isAnalysisFinished)).toBe(true);
    expect(['in_progress', 'partially_failed', 'terminating'].some(isAnalysisFinished)).toBe(false);
  });
});
