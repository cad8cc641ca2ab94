import { PanxApiError } from '@panx/client';
import { describe, expect, it } from 'vitest';
import { describeChanges, isClosedMeanwhile, isEditConflict, pendingEditKey, rebase, restoreConflict, serializeConflict } from './conflict';
import { removeStageEdit, setInputEdit, stageSettingsEdit } from './edits';
import { INFOS, stage, workflow } from './fixtures.test-helpers';
import { outputLink } from './model';

const A = stage('stage-a', 'applet-producer');
const B = stage('stage-b', 'applet-consumer', { reads: outputLink('stage-a', 'out') });

describe('edit conflicts', () => {
  it('recognises the server’s out-of-date answer and a workflow closed meanwhile', () => {
    const conflict = new PanxApiError(
      'InvalidState',
      'editVersion 3 of workflow-1 is out of date: its current editVersion is 4 (describe it again and retry)',
      422,
    );
    const closed = new PanxApiError('InvalidState', 'workflow-1 was closed meanwhile: closed workflows cannot be edited', 422);
    expect(isEditConflict(conflict)).toBe(true);
    expect(isClosedMeanwhile(conflict)).toBe(false);
    expect(isEditConflict(closed)).toBe(false);
    expect(isClosedMeanwhile(closed)).toBe(true);
    expect(isEditConflict(new PanxApiError('InvalidInput', 'editVersion 3 is out of date', 422))).toBe(false);
    expect(isEditConflict(new Error('editVersion 3 is out of date'))).toBe(false);
  });

  it('lists what the other version changed', () => {
    const base = workflow([A, B], 3);
    const latest = { ...workflow([{ ...B, name: 'align', input: {} }, A, stage('stage-c', 'applet-consumer')], 5), name: 'other' };
    expect(describeChanges(base, latest, INFOS)).toEqual([
      'Workflow renamed from "wf" to "other"',
      'Stage "Consumer" added',
      'Stage "Consumer" renamed to "align"',
      'Stage "align": reads unbound',
      'Stages reordered',
    ]);
    expect(describeChanges(base, { ...base, editVersion: 4 })).toEqual(['Settings outside the stages changed']);
  });

  it('re-applies the user’s steps on top of the latest version when they still apply, and says why not otherwise', () => {
    const base = workflow([A, B], 3);
    const mine = stageSettingsEdit(base, 'stage-b', { name: 'mine' });
    const latestWithC = workflow([A, B, stage('stage-c', 'applet-producer')], 4);
    expect(rebase(latestWithC, mine?.steps ?? [])).toEqual({ ok: true, steps: mine?.steps });
    const latestWithoutB = workflow([A], 4);
    expect(rebase(latestWithoutB, mine?.steps ?? [])).toEqual({ ok: false, problems: ['the stage stage-b no longer exists'] });
    // removing A needs its links unbound: planned on the base, it still applies when B is unchanged
    expect(rebase(latestWithC, removeStageEdit(base, 'stage-a').steps).ok).toBe(true);
    // but a link someone else added meanwhile (C → A) stands in the way
    const latestLinked = workflow([A, B, stage('stage-c', 'applet-consumer', { reads: outputLink('stage-a', 'out') })], 4);
    expect(rebase(latestLinked, removeStageEdit(base, 'stage-a').steps)).toEqual({ ok: false, problems: ['stage-c links to it'] });
    expect(rebase(latestLinked, setInputEdit('stage-b', 'label', 'x').steps).ok).toBe(true);
  });
});

describe('kept conflicts', () => {
  it('survive a reload as text and come back against the latest version; anything else is dropped', () => {
    const base = workflow([A, B], 3);
    const latest = workflow([A, B, stage('stage-c', 'applet-producer')], 4);
    const conflict = {
      label: 'Set label',
      pending: setInputEdit('stage-b', 'label', 'x').steps,
      origin: 'edit' as const,
      base,
      latest: base,
      message: 'out of date',
    };
    const text = serializeConflict(conflict);
    expect(restoreConflict(text, latest)).toEqual({ ...conflict, latest });
    expect(restoreConflict(null, latest)).toBeUndefined();
    expect(restoreConflict('{bad', latest)).toBeUndefined();
    expect(restoreConflict(JSON.stringify({ ...JSON.parse(text), pending: [{ kind: 'drop' }] }), latest)).toBeUndefined();
    expect(restoreConflict(JSON.stringify({ ...JSON.parse(text), origin: 'other' }), latest)).toBeUndefined();
    expect(restoreConflict(text, { ...latest, id: 'workflow-other' })).toBeUndefined();
    expect(pendingEditKey('workflow-1')).toBe('panx.workflowEdit.workflow-1');
  });
});
