import { describe, expect, it } from 'vitest';
import { folderCrumbs, pickBlocker, toggleSelection, visibleObjects } from './picker-rules';

const object = (name: string, extra: Partial<{ class: string; state: string }> = {}) => ({
  id: `file-${name}`,
  name,
  class: extra.class ?? 'file',
  state: extra.state ?? 'closed',
  project: 'project-1',
  folder: '/reads',
});

describe('the data picker', () => {
  const objects = [object('a_R1.fastq.gz'), object('a_R2.fastq.gz'), object('ref.fa'), object('notes.txt'), object('table', { class: 'record' })];

  it("shows the input's class, filtered by its patterns unless asked otherwise, and by name", () => {
    const names = (list: { name: string }[]) => list.map((o) => o.name);
    expect(names(visibleObjects(objects, { class: 'file', patterns: ['*.fastq.gz'], usePatterns: true, text: '' }))).toEqual([
      'a_R1.fastq.gz',
      'a_R2.fastq.gz',
    ]);
    expect(names(visibleObjects(objects, { class: 'file', patterns: ['*.fastq.gz'], usePatterns: false, text: '' }))).toEqual([
      'a_R1.fastq.gz',
      'a_R2.fastq.gz',
      'ref.fa',
      'notes.txt',
    ]);
    expect(names(visibleObjects(objects, { class: 'file', patterns: [], usePatterns: true, text: 'R2' }))).toEqual(['a_R2.fastq.gz']);
    expect(names(visibleObjects(objects, { class: 'record', patterns: ['*.fa'], usePatterns: false, text: '' }))).toEqual(['table']);
  });

  it('picks closed objects only', () => {
    expect(pickBlocker(object('x'))).toBeUndefined();
    expect(pickBlocker(object('y', { state: 'open' }))).toBe('y is open: only closed objects can be inputs');
  });

  it('replaces the single choice, toggles among several', () => {
    const one = toggleSelection([], object('a'), false);
    expect(one).toEqual([{ id: 'file-a', project: 'project-1', name: 'a' }]);
    expect(toggleSelection(one, object('b'), false).map((r) => r.id)).toEqual(['file-b']);
    const two = toggleSelection(one, object('b'), true);
    expect(two.map((r) => r.id)).toEqual(['file-a', 'file-b']);
    expect(toggleSelection(two, object('a'), true).map((r) => r.id)).toEqual(['file-b']);
  });

  it('makes breadcrumbs of a folder', () => {
    expect(folderCrumbs('/', 'Demo')).toEqual([{ path: '/', label: 'Demo' }]);
    expect(folderCrumbs('/a/b', 'Demo')).toEqual([
      { path: '/', label: 'Demo' },
      { path: '/a', label: 'a' },
      { path: '/a/b', label: 'b' },
    ]);
  });
});
