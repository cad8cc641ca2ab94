import { describe, expect, it } from 'vitest';
import { folderProblem, importerReducer, initialImporterState, link, logFileName, logLine, normalizeFolder, STATUS_OK, STATUS_REFUSED } from './import-status';

describe('workflow importer state', () => {
  it('goes from idle through the steps to done with the status output, and resets', () => {
    let state = importerReducer(initialImporterState('project-1'), { type: 'folder', outputFolder: 'imports//germline/' });
    expect(state.outputFolder).toBe('/imports/germline');
    state = importerReducer(state, { type: 'start', project: 'project-1', outputFolder: '/imports' });
    expect(state.status).toBe('uploading');
    // the folder and project cannot change while an import runs
    expect(importerReducer(state, { type: 'folder', outputFolder: '/x' }).outputFolder).toBe('/imports');
    expect(importerReducer(state, { type: 'project', project: null }).project).toBe('project-1');
    state = importerReducer(state, { type: 'log', line: logLine(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)), 'Detected panx-json') });
    expect(state.log).toEqual(['2026-01-02 03:04:05 Detected panx-json']);
    const output = {
      primary_descriptor: link('project-1', 'file-1'),
      compiled_workflow: link('project-1', 'workflow-1'),
      output_log: link('project-1', 'file-2'),
      status_code: STATUS_OK,
    };
    state = importerReducer(state, { type: 'finish', output });
    expect(state).toMatchObject({ status: 'done', output });
    const failed = importerReducer(state, { type: 'finish', output: { ...output, compiled_workflow: null, status_code: STATUS_REFUSED } });
    expect(failed.status).toBe('failed');
    expect(importerReducer(failed, { type: 'reset' })).toEqual({ project: 'project-1', outputFolder: '/imports', status: 'idle', log: [], output: null });
  });

  it('checks folders and names the log after the descriptor', () => {
    expect(normalizeFolder('')).toBe('/');
    expect(folderProblem('/a/../b')).toBe('Folder names "." and ".." are not allowed');
    expect(folderProblem('/a/b')).toBeUndefined();
    expect(logFileName('wf.json')).toBe('wf.json.import.log');
  });
});
