import { describe, expect, it } from 'vitest';
import { executionPath, prefillFromState, runnerPath, VERSION_SWITCH_SOURCE, versionSwitchState } from './prefill';

describe('inputs handed to the runner', () => {
  it('reads navigation state with a runInput, ignoring anything else', () => {
    expect(prefillFromState({ runInput: { a: 1 }, name: 'again', tags: ['x', 3], folder: '/out', project: 'project-1' })).toEqual({
      source: 'state',
      runInput: { a: 1 },
      name: 'again',
      tags: ['x'],
      folder: '/out',
      project: 'project-1',
    });
    expect(prefillFromState({ runInput: { a: 1 }, source: 'job-9', name: '' })).toEqual({ source: 'job-9', runInput: { a: 1 } });
    expect(prefillFromState(null)).toBeUndefined();
    expect(prefillFromState({ runInput: [1] })).toBeUndefined();
    expect(prefillFromState('state')).toBeUndefined();
  });

  it('builds the runner and execution paths', () => {
    expect(runnerPath('applet-1')).toBe('/panx/tools/run/applet-1');
    expect(runnerPath('workflow-1', { project: 'project-1', from: 'analysis-2' })).toBe('/panx/projects/project-1/run/workflow-1?from=analysis-2');
    expect(executionPath('project-1', 'job-3')).toBe('/panx/projects/project-1/monitor/job/job-3');
    expect(executionPath('project-1', 'analysis-4')).toBe('/panx/projects/project-1/monitor/analysis/analysis-4');
  });

  it('carries the form to another version, dropping the notice of an automatic switch', () => {
    const draft = { runInput: { reads: 'x' }, name: 'mine', folder: '/out', tags: ['t'] };
    const state = versionSwitchState({ switchedFrom: '2.0.0', project: 'project-1', runInput: { old: 1 } }, draft);
    expect(state).toEqual({ project: 'project-1', runInput: { reads: 'x' }, name: 'mine', folder: '/out', tags: ['t'], source: VERSION_SWITCH_SOURCE });
    expect(prefillFromState(state)).toMatchObject({ source: VERSION_SWITCH_SOURCE, runInput: { reads: 'x' }, name: 'mine', folder: '/out', tags: ['t'] });
    expect(versionSwitchState({ switchedFrom: '2.0.0', project: 'project-1' }, undefined)).toEqual({ project: 'project-1' });
  });
});
