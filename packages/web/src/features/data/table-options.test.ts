import { describe, expect, it } from 'vitest';
import { type BrowserRow, cycleSort, defaultDataTableOptions, parseTableOptions, setColumnSize, sortRows, toggleColumn } from './table-options';

const row = (id: string, name: string, extra: Partial<BrowserRow> = {}): BrowserRow => ({
  id,
  kind: 'object',
  name,
  class: 'file',
  tags: [],
  folder: '/',
  hidden: false,
  project: 'project-1',
  types: [],
  ...extra,
});

describe('data table options (SPEC §3)', () => {
  it('defaults to page size 50, the detail columns and no sort', () => {
    const options = defaultDataTableOptions();
    expect(options.pageSize).toBe(50);
    expect(options.columnsToShow).toEqual(expect.arrayContaining(['name', 'class', 'size', 'created']));
    expect(options.sortOrder).toEqual([]);
  });

  it('toggles columns in their canonical order, never the name', () => {
    let options = toggleColumn(defaultDataTableOptions(), 'class');
    expect(options.columnsToShow).not.toContain('class');
    options = toggleColumn(options, 'class');
    expect(options.columnsToShow.indexOf('class')).toBe(1);
    expect(toggleColumn(options, 'name').columnsToShow).toContain('name');
  });

  it('clamps column sizes and cycles sort ascending → descending → none', () => {
    expect(setColumnSize(defaultDataTableOptions(), 'name', 5).sizeColumns.name).toBe(60);
    let options = cycleSort(defaultDataTableOptions(), 'size');
    expect(options.sortOrder).toEqual([{ id: 'size', desc: false }]);
    options = cycleSort(options, 'size');
    expect(options.sortOrder).toEqual([{ id: 'size', desc: true }]);
    expect(cycleSort(options, 'size').sortOrder).toEqual([]);
    expect(cycleSort(options, 'name').sortOrder).toEqual([{ id: 'name', desc: false }]);
  });

  it('reads stored options defensively', () => {
    expect(parseTableOptions('{"columnsToShow":["size","bogus"],"sortOrder":[{"id":"size","desc":true}],"sizeColumns":{"name":300,"x":1}}')).toMatchObject({
      columnsToShow: ['name', 'size'],
      sortOrder: [{ id: 'size', desc: true }],
      sizeColumns: { name: 300 },
      pageSize: 50,
    });
    expect(parseTableOptions('garbage')).toEqual(defaultDataTableOptions());
  });

  it('puts folders first and sorts objects with stable ties', () => {
    const rows = [
      row('file-2', 'b.txt', { size: 10 }),
      row('/z', 'z', { kind: 'folder', class: 'folder' }),
      row('file-1', 'a.txt', { size: 10 }),
      row('/A', 'A', { kind: 'folder', class: 'folder' }),
      row('file-3', 'c.txt', { size: 1 }),
    ];
    expect(sortRows(rows, []).map((r) => r.id)).toEqual(['/A', '/z', 'file-2', 'file-1', 'file-3']);
    expect(sortRows(rows, [{ id: 'size', desc: true }]).map((r) => r.id)).toEqual(['/A', '/z', 'file-1', 'file-2', 'file-3']);
    expect(sortRows(rows, [{ id: 'name', desc: false }]).map((r) => r.id)).toEqual(['/A', '/z', 'file-1', 'file-2', 'file-3']);
  });
});
