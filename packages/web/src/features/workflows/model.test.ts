import { describe, expect, it } from 'vitest';
import { INFOS, stage, workflow } from './fixtures.test-helpers';
import {
  describeValue,
  editBlockedReason,
  executableInfoOf,
  instanceTypeOf,
  newStageId,
  outputLink,
  runBlockedReason,
  stageLinksIn,
  unboundRequiredInputs,
  workflowFromDescribe,
} from './model';

describe('workflow model', () => {
  it('reads workflow-xxxx/describe and refuses what is not a workflow', () => {
    const model = workflowFromDescribe({
      id: 'workflow-1',
      project: 'project-1',
      name: 'wf',
      title: 'Nice',
      state: 'open',
      editVersion: 7,
      stages: [
        { id: 'stage-a', executable: 'applet-x', name: null, folder: '/o', input: { n: 1 }, systemRequirements: { '*': { instanceType: 't' } } },
        'junk',
      ],
    });
    expect(model).toEqual({
      id: 'workflow-1',
      project: 'project-1',
      name: 'wf',
      title: 'Nice',
      state: 'open',
      editVersion: 7,
      outputFolder: null,
      stages: [
        {
          id: 'stage-a',
          executable: 'applet-x',
          name: null,
          folder: '/o',
          input: { n: 1 },
          systemRequirements: { '*': { instanceType: 't' } },
          executionPolicy: {},
        },
      ],
    });
    expect(instanceTypeOf(model.stages[0] as never)).toBe('t');
    expect(() => workflowFromDescribe({ name: 'x' })).toThrow('The server did not describe a workflow');
  });

  it('reads executable specs, leaving out malformed items; defaults make inputs optional', () => {
    const info = executableInfoOf('applet-x', {
      name: 'x',
      inputSpec: [{ name: 'a', class: 'int', default: 3 }, { name: 'b', class: 'file', patterns: ['*.bam', 1] }, { class: 'int' }],
      outputSpec: 'nope',
    });
    expect(info).toEqual({
      id: 'applet-x',
      name: 'x',
      title: 'x',
      inputSpec: [
        { name: 'a', class: 'int', optional: true, default: 3 },
        { name: 'b', class: 'file', optional: false, patterns: ['*.bam'] },
      ],
      outputSpec: [],
    });
  });

  it('finds links in values and array elements and describes values readably', () => {
    const input = {
      a: outputLink('stage-1', 'out'),
      b: [outputLink('stage-2', 'x'), { $dnanexus_link: 'file-1' }],
      c: { $dnanexus_link: { stage: 'stage-3', inputField: 'y' } },
    };
    expect(stageLinksIn(input)).toEqual([
      { stage: 'stage-1', outputField: 'out', field: 'a' },
      { stage: 'stage-2', outputField: 'x', field: 'b' },
      { stage: 'stage-3', inputField: 'y', field: 'c' },
    ]);
    expect(describeValue(input.b, (id) => id.toUpperCase())).toBe('[← STAGE-2.x, file-1]');
    expect(describeValue(input.c)).toBe('= stage-3 input y');
    expect(describeValue({ $dnanexus_link: { project: 'project-1', id: 'file-2' } })).toBe('project-1:file-2');
    expect(describeValue(3)).toBe('3');
  });

  it('says why the editor is read-only or running is not allowed', () => {
    expect(editBlockedReason('closed', 'ADMINISTER')).toMatch(/closed/);
    expect(editBlockedReason('open', 'VIEW')).toBe(
      'You have VIEW access to this project: editing a workflow needs UPLOAD access or more. Ask a project administrator.',
    );
    expect(editBlockedReason('open', 'UPLOAD')).toBeUndefined();
    expect(editBlockedReason('open', undefined)).toBeUndefined();
    expect(runBlockedReason('UPLOAD')).toBe('You have UPLOAD access: running needs CONTRIBUTE access or more.');
    expect(runBlockedReason('CONTRIBUTE')).toBeUndefined();
  });

  it('lists the required inputs without a value, and makes stage IDs the server accepts', () => {
    const model = workflow([stage('stage-a', 'applet-producer'), stage('stage-b', 'applet-consumer', { label: 'x' }, 'align')]);
    expect(unboundRequiredInputs(model, INFOS)).toEqual(['align.reads']);
    const id = newStageId(() => 0.5);
    expect(id).toMatch(/^stage-[0-9A-Za-z]{24}$/);
    expect(newStageId()).not.toBe(newStageId());
  });
});
