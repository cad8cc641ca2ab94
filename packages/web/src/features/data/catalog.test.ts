import { describe, expect, it } from 'vitest';
import { catalogFilters, catalogRequest, catalogSearch } from './catalog';

describe('data catalogs (SPEC §2)', () => {
  it('reads and writes the query string', () => {
    const filters = catalogFilters(new URLSearchParams('name=reads&mode=regex&class=file&page=3&tag=wgs'));
    expect(filters).toEqual({ name: 'reads', mode: 'regex', class: 'file', project: '', tag: 'wgs', page: 3 });
    expect(catalogSearch(filters)).toBe('?name=reads&mode=regex&class=file&tag=wgs&page=3');
    expect(catalogFilters(new URLSearchParams('page=-2')).page).toBe(1);
    expect(catalogSearch(catalogFilters(new URLSearchParams('')))).toBe('');
  });

  it('asks for closed Dataset records in the datasets catalog, whatever the class filter says', () => {
    const filters = catalogFilters(new URLSearchParams('class=file&name=cohort'));
    expect(catalogRequest('datasets', filters)).toMatchObject({ class: 'record', type: 'Dataset', state: 'closed', name: { regexp: 'cohort', flags: 'i' } });
    expect(catalogRequest('data', filters)).toMatchObject({ class: 'file' });
    expect(catalogRequest('data', { ...filters, project: 'project-1' })).toMatchObject({ scope: { project: 'project-1', recurse: true } });
    expect(catalogRequest('data', { ...filters, name: '(', mode: 'regex' })).toBe('invalid');
  });
});
