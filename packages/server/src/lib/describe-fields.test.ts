import { describe, expect, it } from 'vitest';
import { fieldSelector } from './describe-fields.js';

const DEFAULTS = ['id', 'name', 'state', 'size'];

describe('fieldSelector', () => {
  it.each([
    ['no options: the defaults', undefined, ['id', 'name', 'size', 'state']],
    ['true: the defaults', true, ['id', 'name', 'size', 'state']],
    ['fields alone: only those, plus id', { fields: { parts: true, state: true } }, ['id', 'parts', 'state']],
    ['fields alone ignores false entries', { fields: { name: false, size: true } }, ['id', 'size']],
    ['defaultFields adds true and drops false', { defaultFields: true, fields: { parts: true, size: false } }, ['id', 'name', 'parts', 'state']],
    ['legacy booleans add fields', { properties: true, details: true }, ['details', 'id', 'name', 'properties', 'size', 'state']],
    ['legacy file flags', { parts: true, size: true, md5: true }, ['id', 'md5', 'name', 'parts', 'size', 'state']],
  ])('%s', (_title, options, expected) => {
    const want = fieldSelector(options as never, DEFAULTS);
    const all = ['id', 'name', 'state', 'size', 'parts', 'properties', 'details', 'md5', 'folders'];
    expect(all.filter(want).sort()).toEqual(expected);
  });

  it('io:false drops input and output', () => {
    const want = fieldSelector({ io: false }, ['id', 'input', 'output', 'state']);
    expect(['id', 'input', 'output', 'state'].filter(want)).toEqual(['id', 'state']);
  });
});
