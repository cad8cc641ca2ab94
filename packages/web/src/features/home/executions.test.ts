import { describe, expect, it } from 'vitest';
import { ACTIVE_EXECUTION_STATES, executionPath, stateColor, stateLabel, toExecutionSummary } from './executions';

describe('running executions on the home page', () => {
  it('summarises a findExecutions result, tolerating missing fields', () => {
    expect(toExecutionSummary({ id: 'job-1', describe: { name: 'bwa', state: 'running', project: 'project-1', created: 5 } })).toEqual({
      id: 'job-1',
      name: 'bwa',
      state: 'running',
      project: 'project-1',
      created: 5,
    });
    expect(toExecutionSummary({ id: 'job-2' })).toEqual({ id: 'job-2', name: 'job-2', state: 'unknown', project: undefined, created: undefined });
  });

  it('links to the execution page of its project, or the project-less one', () => {
    expect(executionPath({ id: 'job-1', name: '', state: 'running', project: 'project-9', created: 0 })).toBe('/panx/projects/project-9/monitor/job/job-1');
    expect(executionPath({ id: 'analysis-1', name: '', state: 'in_progress', project: 'project-9', created: 0 })).toBe(
      '/panx/projects/project-9/monitor/analysis/analysis-1',
    );
    expect(executionPath({ id: 'job-2', name: '', state: 'idle', project: undefined, created: 0 })).toBe('/panx/executions/job-2');
  });

  it('colours and names states, and asks only for those that have not ended', () => {
    expect(stateColor('running')).toBe('blue');
    expect(stateColor('waiting_on_output')).toBe('cyan');
    expect(stateColor('unresponsive')).toBe('orange');
    expect(stateColor('done')).toBe('green');
    expect(stateLabel('waiting_on_input')).toBe('waiting on input');
    for (const ended of ['done', 'failed', 'terminated']) expect(ACTIVE_EXECUTION_STATES).not.toContain(ended);
  });
});
