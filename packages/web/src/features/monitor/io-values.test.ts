import { describe, expect, it } from 'vitest';
import { classify, dataObjectPath, dataObjectsOf, IO_ARRAY_EXPAND_LIMIT, IO_DATA_OBJECTS_LIMIT, IO_FIELDS_LIMIT, ioFields } from './io-values';

const file = (n: number) => `file-${String(n).padStart(24, '0')}`;

describe('classify', () => {
  it('recognises data object links, execution output references, arrays, scalars and other JSON', () => {
    expect(classify({ $dnanexus_link: file(1) })).toEqual({ kind: 'object', id: file(1), project: undefined });
    expect(classify({ $dnanexus_link: { project: 'project-1', id: file(2) } })).toEqual({ kind: 'object', id: file(2), project: 'project-1' });
    expect(classify({ $dnanexus_link: { job: 'job-1', field: 'out' } })).toEqual({ kind: 'execution-output', execution: 'job-1', field: 'out' });
    expect(classify(3)).toEqual({ kind: 'scalar', text: '3' });
    expect(classify(true)).toEqual({ kind: 'scalar', text: 'true' });
    expect(classify('<b>x</b>')).toEqual({ kind: 'scalar', text: '<b>x</b>' });
    expect(classify(null)).toEqual({ kind: 'empty' });
    expect(classify({ $dnanexus_link: 'not-an-id' }).kind).toBe('json');
  });

  it('expands arrays to 1,000 items and counts the rest', () => {
    const value = classify(Array.from({ length: 1_500 }, (_, index) => index));
    expect(value.kind === 'array' && value.items.length).toBe(IO_ARRAY_EXPAND_LIMIT);
    expect(value.kind === 'array' && value.hidden).toBe(500);
  });
});

describe('ioFields and data objects', () => {
  it('keeps 1,000 fields sorted by name', () => {
    const io = Object.fromEntries(Array.from({ length: 1_200 }, (_, index) => [`f${String(index).padStart(4, '0')}`, index]));
    const { fields, hidden } = ioFields(io);
    expect(fields).toHaveLength(IO_FIELDS_LIMIT);
    expect(hidden).toBe(200);
    expect(fields[0]?.name).toBe('f0000');
    expect(ioFields(null)).toEqual({ fields: [], hidden: 0 });
  });

  it('lists each data object once, up to 10,000', () => {
    const { fields } = ioFields({
      a: { $dnanexus_link: file(1) },
      b: [{ $dnanexus_link: file(1) }, { $dnanexus_link: { project: 'project-2', id: file(2) } }],
    });
    expect(dataObjectsOf(fields)).toEqual([
      { id: file(1), project: undefined },
      { id: file(2), project: 'project-2' },
    ]);
    const many = Object.fromEntries(
      Array.from({ length: 11 }, (_, f) => [`f${f}`, Array.from({ length: 1_000 }, (_, i) => ({ $dnanexus_link: file(f * 1_000 + i) }))]),
    );
    expect(dataObjectsOf(ioFields(many).fields)).toHaveLength(IO_DATA_OBJECTS_LIMIT);
  });

  it('links files to the viewer and other objects to their folder', () => {
    expect(dataObjectPath(file(1), 'project-1')).toBe(`/panx/project-1/${file(1)}/view`);
    expect(dataObjectPath('record-1', 'project-1', '/out/x')).toBe('/panx/projects/project-1/data/out/x');
    expect(dataObjectPath(file(1), undefined)).toBeUndefined();
  });
});
