import { describe, expect, it } from 'vitest';
import { isDataClass, parseInputValue } from './input-values';

const FILE = 'file-B8Q0000000000000000000Zq';
const PROJECT = 'project-B8Q00000000000000000000P';

describe('typed input values', () => {
  it('parses scalars by class and says what is wrong', () => {
    expect(parseInputValue('int', ' 42 ')).toEqual({ ok: true, value: 42 });
    expect(parseInputValue('int', '4.2')).toEqual({ ok: false, error: '"4.2" is not a whole number' });
    expect(parseInputValue('float', '4.5e1')).toEqual({ ok: true, value: 45 });
    expect(parseInputValue('float', 'x')).toEqual({ ok: false, error: '"x" is not a number' });
    expect(parseInputValue('boolean', 'Yes')).toEqual({ ok: true, value: true });
    expect(parseInputValue('boolean', 'maybe')).toEqual({ ok: false, error: 'Enter true or false' });
    expect(parseInputValue('string', ' a b ')).toEqual({ ok: true, value: ' a b ' });
    expect(parseInputValue('string', '  ')).toEqual({ ok: false, error: 'Enter a value' });
    expect(parseInputValue('hash', '{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseInputValue('hash', '[1]')).toMatchObject({ ok: false });
    expect(parseInputValue('string', 'c', ['a', 'b'])).toEqual({ ok: false, error: 'Choose one of "a", "b"' });
    expect(parseInputValue('int', '2', [1, 2])).toEqual({ ok: true, value: 2 });
  });

  it('parses data objects by ID, project and ID, or path to resolve', () => {
    expect(parseInputValue('file', FILE)).toEqual({ ok: true, value: { $dnanexus_link: FILE } });
    expect(parseInputValue('file', `${PROJECT}:${FILE}`)).toEqual({ ok: true, value: { $dnanexus_link: { project: PROJECT, id: FILE } } });
    expect(parseInputValue('file', `${PROJECT}:/reads/a.fastq`)).toEqual({
      ok: 'resolve',
      project: PROJECT,
      folder: '/reads',
      name: 'a.fastq',
      element: false,
    });
    expect(parseInputValue('file', `${PROJECT}:/a.fastq`)).toMatchObject({ ok: 'resolve', folder: '/', name: 'a.fastq' });
    expect(parseInputValue('record', FILE)).toEqual({ ok: false, error: `${FILE} is not a record` });
    expect(parseInputValue('file', 'reads.fastq')).toMatchObject({ ok: false });
    expect(parseInputValue('applet', 'x')).toMatchObject({ ok: false });
    expect(parseInputValue('stage', 'x')).toEqual({ ok: false, error: 'Inputs of class stage cannot be typed here' });
    expect(isDataClass('array:file')).toBe(true);
    expect(isDataClass('int')).toBe(false);
  });

  it('parses lists as JSON or separated by commas and new lines, item by item', () => {
    expect(parseInputValue('array:int', '1, 2\n3')).toEqual({ ok: true, value: [1, 2, 3] });
    expect(parseInputValue('array:string', '["a", "b,c"]')).toEqual({ ok: true, value: ['a', 'b,c'] });
    expect(parseInputValue('array:file', `${FILE}, ${PROJECT}:${FILE}`)).toEqual({
      ok: true,
      value: [{ $dnanexus_link: FILE }, { $dnanexus_link: { project: PROJECT, id: FILE } }],
    });
    expect(parseInputValue('array:int', '1, x')).toEqual({ ok: false, error: 'Item 2: "x" is not a whole number' });
    expect(parseInputValue('array:int', '[1,')).toEqual({ ok: false, error: 'The list is not valid JSON' });
    expect(parseInputValue('array:file', `${PROJECT}:/a`)).toMatchObject({ ok: false });
    expect(parseInputValue('array:int', ' ')).toEqual({ ok: false, error: 'Enter at least one value' });
  });
});
