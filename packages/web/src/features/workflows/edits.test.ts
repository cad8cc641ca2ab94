import { describe, expect, it } from 'vitest';
import {
  addStageEdit,
  applySteps,
  inverseOf,
  moveStageEdit,
  removeStageEdit,
  renameEdit,
  requestOf,
  setInputEdit,
  stageSettingsEdit,
  stepsProblems,
} from './edits';
import { stage, workflow } from './fixtures.test-helpers';
import { outputLink } from './model';

const A = stage('stage-a', 'applet-producer', { n: 3 }, 'make');
const B = stage('stage-b', 'applet-consumer', { reads: outputLink('stage-a', 'out'), extra: [outputLink('stage-a', 'out'), { $dnanexus_link: 'file-x' }] });
const C = stage('stage-c', 'applet-consumer');

describe('workflow edits', () => {
  it('applies and inverts every kind of step back to the same workflow', () => {
    const model = workflow([A, B, C]);
    const edits = [
      addStageEdit(stage('stage-d', 'applet-producer'), 'Producer'),
      removeStageEdit(model, 'stage-a'),
      moveStageEdit(model, 'stage-c', 0),
      setInputEdit('stage-c', 'label', 'x'),
      setInputEdit('stage-b', 'reads', null),
      stageSettingsEdit(model, 'stage-b', { name: ' align ', folder: '/out', instanceType: 'mem2_ssd1_x2' }),
      renameEdit(model, 'renamed'),
    ];
    for (const edit of edits) {
      if (!edit) throw new Error('an edit was expected');
      const after = applySteps(model, edit.steps);
      expect(after).not.toEqual(model);
      const back = applySteps(after, inverseOf(model, edit.steps));
      expect(back).toEqual(model);
    }
  });

  it('removes a stage that others link to by unbinding the links first (array elements one by one)', () => {
    const model = workflow([A, B]);
    const edit = removeStageEdit(model, 'stage-a');
    expect(edit.steps).toEqual([
      { kind: 'updateStage', stageId: 'stage-b', input: { reads: null, extra: [{ $dnanexus_link: 'file-x' }] } },
      { kind: 'removeStage', stageId: 'stage-a' },
    ]);
    const after = applySteps(model, edit.steps);
    expect(after.stages.map((s) => s.id)).toEqual(['stage-b']);
    expect(after.stages[0]?.input).toEqual({ extra: [{ $dnanexus_link: 'file-x' }] });
    // undo re-adds the stage, moves it back to the front and relinks
    const inverse = inverseOf(model, edit.steps);
    expect(inverse.map((step) => step.kind)).toEqual(['addStage', 'moveStage', 'updateStage']);
    expect(applySteps(after, inverse)).toEqual(model);
  });

  it('names what stands in the way of a step', () => {
    const model = workflow([A, B]);
    expect(stepsProblems(model, [{ kind: 'removeStage', stageId: 'stage-a' }])).toEqual(['stage-b links to it']);
    expect(stepsProblems(model, [{ kind: 'removeStage', stageId: 'stage-z' }])).toEqual(['the stage stage-z no longer exists']);
    expect(stepsProblems(model, [{ kind: 'addStage', stage: A }])).toEqual(['the stage stage-a already exists']);
    expect(stepsProblems(model, [{ kind: 'moveStage', stageId: 'stage-a', newIndex: 2 }])).toEqual(['there are only 2 stages']);
    expect(stepsProblems(model, [setInputEdit('stage-b', 'reads', outputLink('stage-q', 'out')).steps[0] as never])).toEqual([
      'the input reads would link to stage-q, which is no longer a stage',
    ]);
    expect(() => applySteps(model, [{ kind: 'rename', name: ' ', title: null }])).toThrow('a workflow needs a name');
  });

  it('leaves out edits that change nothing', () => {
    const model = workflow([A, B]);
    expect(moveStageEdit(model, 'stage-a', 0)).toBeUndefined();
    expect(moveStageEdit(model, 'stage-a', 5)).toBeUndefined();
    expect(stageSettingsEdit(model, 'stage-a', { name: 'make', folder: '', instanceType: '' })).toBeUndefined();
    expect(renameEdit(model, ' wf ')).toBeUndefined();
    expect(stageSettingsEdit(model, 'stage-a', { name: '' })?.label).toBe('Clear the stage name');
  });

  it('turns steps into the API calls with the editVersion they are based on', () => {
    expect(requestOf({ kind: 'addStage', stage: { ...A, folder: 'x', systemRequirements: { '*': { instanceType: 't' } } } }, 4)).toEqual({
      route: 'workflow-xxxx/addStage',
      body: {
        editVersion: 4,
        id: 'stage-a',
        executable: 'applet-producer',
        input: { n: 3 },
        name: 'make',
        folder: 'x',
        systemRequirements: { '*': { instanceType: 't' } },
      },
    });
    expect(requestOf({ kind: 'moveStage', stageId: 'stage-a', newIndex: 1 }, 5)).toEqual({
      route: 'workflow-xxxx/moveStage',
      body: { editVersion: 5, stage: 'stage-a', newIndex: 1 },
    });
    expect(requestOf({ kind: 'updateStage', stageId: 'stage-b', name: 'n', input: { reads: null } }, 6)).toEqual({
      route: 'workflow-xxxx/update',
      body: { editVersion: 6, stages: { 'stage-b': { name: 'n', input: { reads: null } } } },
    });
    expect(requestOf({ kind: 'rename', name: 'n', title: 'n' }, 7)).toEqual({ route: 'workflow-xxxx/update', body: { editVersion: 7, name: 'n', title: 'n' } });
  });
});
