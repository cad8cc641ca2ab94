import { describe, expect, it } from 'vitest';
import {
  buildRunInput,
  dependentState,
  describeBinding,
  errorField,
  fieldStatus,
  fieldsFromSpec,
  formState,
  initialValues,
  matchesPatterns,
  parseField,
  type RawValue,
  sectionNeedsAttention,
  sections,
  valuesFromRunInput,
} from './form-state';

const appletSpec = [
  { name: 'reads', class: 'file', patterns: ['*.fastq.gz', '*.fq'], label: 'Reads', help: 'FASTQ' },
  { name: 'mode', class: 'string', choices: ['fast', 'accurate'], default: 'fast' },
  { name: 'threads', class: 'int', default: 4, group: 'Advanced' },
  { name: 'ratio', class: 'float', optional: true, group: 'Advanced' },
  { name: 'paired', class: 'boolean', default: true },
  { name: 'regions', class: 'array:string', optional: true },
  { name: 'sizes', class: 'array:int', optional: true },
  { name: 'others', class: 'array:file', optional: true },
  { name: 'options', class: 'hash', optional: true },
];

const workflowSpec = [
  { name: 'stage-a.reads', stage: 'stage-a', class: 'file', optional: true, default: { $dnanexus_link: { project: 'project-1', id: 'file-1' } } },
  { name: 'stage-a.reference', stage: 'stage-a', class: 'file' },
  { name: 'stage-b.bam', stage: 'stage-b', class: 'file', optional: true, default: { $dnanexus_link: { stage: 'stage-a', outputField: 'bam' } } },
  { name: 'stage-b.reference', stage: 'stage-b', class: 'file', optional: true, default: { $dnanexus_link: { stage: 'stage-a', inputField: 'reference' } } },
  { name: 'stage-b.depth', stage: 'stage-b', class: 'int', group: 'Filtering', optional: true },
];

describe('fields from an input spec', () => {
  it('reads classes, arrays, defaults, choices, patterns, groups and labels', () => {
    const fields = fieldsFromSpec(appletSpec);
    expect(fields.map((f) => [f.key, f.class, f.array, f.optional])).toEqual([
      ['reads', 'file', false, false],
      ['mode', 'string', false, false],
      ['threads', 'int', false, false],
      ['ratio', 'float', false, true],
      ['paired', 'boolean', false, false],
      ['regions', 'string', true, true],
      ['sizes', 'int', true, true],
      ['others', 'file', true, true],
      ['options', 'hash', false, true],
    ]);
    expect(fields[0]).toMatchObject({ label: 'Reads', help: 'FASTQ', patterns: ['*.fastq.gz', '*.fq'] });
    expect(fields[1]).toMatchObject({ label: 'mode', choices: ['fast', 'accurate'], default: 'fast' });
    expect(fields[2]?.group).toBe('Advanced');
    expect(initialValues(fields)).toMatchObject({ mode: 'fast', threads: '4', paired: true, reads: undefined });
  });

  it('turns workflow bindings into bound fields: a value, another stage output, another stage input', () => {
    const fields = fieldsFromSpec(workflowSpec);
    expect(fields.map((f) => [f.key, f.name, f.stage])).toEqual([
      ['stage-a.reads', 'reads', 'stage-a'],
      ['stage-a.reference', 'reference', 'stage-a'],
      ['stage-b.bam', 'bam', 'stage-b'],
      ['stage-b.reference', 'reference', 'stage-b'],
      ['stage-b.depth', 'depth', 'stage-b'],
    ]);
    expect(fields[0]?.binding).toEqual({ kind: 'value', value: { $dnanexus_link: { project: 'project-1', id: 'file-1' } } });
    expect(fields[2]?.binding).toEqual({ kind: 'stageOutput', stage: 'stage-a', field: 'bam' });
    expect(fields[3]?.binding).toEqual({ kind: 'stageInput', stage: 'stage-a', field: 'reference' });
    // Bound values are not copied into the form: the workflow gives them unless overridden.
    expect(initialValues(fields)['stage-a.reads']).toBeUndefined();
    expect(describeBinding(fields[2]?.binding ?? { kind: 'value', value: 1 }, { 'stage-a': 'Map' })).toBe('Output "bam" of Map (stage-a)');
  });

  it('skips malformed items', () => {
    expect(fieldsFromSpec([null, { name: 'x' }, { class: 'int' }, 'y', { name: 'ok', class: 'int' }]).map((f) => f.key)).toEqual(['ok']);
    expect(fieldsFromSpec(null)).toEqual([]);
  });
});

describe('parsing and validating a field', () => {
  const fields = fieldsFromSpec(appletSpec);
  const field = (key: string) => {
    const found = fields.find((f) => f.key === key);
    if (!found) throw new Error(key);
    return found;
  };

  it('checks ints, floats, booleans, hashes and choices', () => {
    expect(parseField(field('threads'), '8')).toEqual({ ok: true, value: 8 });
    expect(parseField(field('threads'), '-3')).toEqual({ ok: true, value: -3 });
    expect(parseField(field('threads'), '4.5')).toEqual({ ok: false, error: '"4.5" is not a whole number' });
    expect(parseField(field('threads'), 'many')).toEqual({ ok: false, error: '"many" is not a whole number' });
    expect(parseField(field('threads'), '99999999999999999999')).toMatchObject({ ok: false });
    expect(parseField(field('ratio'), '0.25')).toEqual({ ok: true, value: 0.25 });
    expect(parseField(field('ratio'), '1e3')).toEqual({ ok: true, value: 1000 });
    expect(parseField(field('ratio'), 'abc')).toEqual({ ok: false, error: '"abc" is not a number' });
    expect(parseField(field('paired'), false)).toEqual({ ok: true, value: false });
    expect(parseField(field('options'), '{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseField(field('options'), '[1]')).toEqual({ ok: false, error: 'Expected a JSON object ({…})' });
    expect(parseField(field('options'), '{a')).toEqual({ ok: false, error: 'Not valid JSON' });
    expect(parseField(field('mode'), 'accurate')).toEqual({ ok: true, value: 'accurate' });
    expect(parseField(field('mode'), 'slow')).toEqual({ ok: false, error: 'Must be one of: fast, accurate' });
  });

  it('requires required fields and leaves optional empty ones out', () => {
    expect(parseField(field('reads'), undefined)).toEqual({ ok: false, error: 'Required' });
    expect(parseField(field('mode'), '  ')).toEqual({ ok: false, error: 'Required' });
    expect(parseField(field('ratio'), '')).toEqual({ ok: true, value: undefined });
    expect(parseField(field('regions'), ['', ' '])).toEqual({ ok: true, value: undefined });
  });

  it('reads arrays item by item and says which item is wrong', () => {
    expect(parseField(field('regions'), ['chr1', '', 'chr2'])).toEqual({ ok: true, value: ['chr1', 'chr2'] });
    expect(parseField(field('sizes'), ['1', 'x', '3'])).toEqual({ ok: false, error: 'Item 2: "x" is not a whole number' });
  });

  it('links picked objects, one for a single field, all for an array', () => {
    expect(parseField(field('reads'), [{ id: 'file-1', project: 'project-1', name: 'a.fq' }])).toEqual({
      ok: true,
      value: { $dnanexus_link: { project: 'project-1', id: 'file-1' } },
    });
    expect(parseField(field('reads'), [{ id: 'file-1' }, { id: 'file-2' }])).toEqual({ ok: false, error: 'Only one file can be given' });
    expect(parseField(field('others'), [{ id: 'file-1' }, { id: 'file-2', project: 'project-2' }])).toEqual({
      ok: true,
      value: [{ $dnanexus_link: 'file-1' }, { $dnanexus_link: { project: 'project-2', id: 'file-2' } }],
    });
  });

  it('has the states DEFAULT, LOADING and ERROR; local errors wait for a touch or a run, server errors show at once', () => {
    const reads = field('reads');
    expect(fieldStatus(reads, undefined, { touched: false, submitted: false })).toEqual({ state: 'DEFAULT' });
    expect(fieldStatus(reads, undefined, { touched: true, submitted: false })).toEqual({ state: 'ERROR', error: 'Required' });
    expect(fieldStatus(reads, undefined, { touched: false, submitted: true })).toEqual({ state: 'ERROR', error: 'Required' });
    expect(fieldStatus(reads, [{ id: 'file-1' }], { touched: true, submitted: true, checking: true })).toEqual({ state: 'LOADING' });
    expect(fieldStatus(reads, [{ id: 'file-1' }], { touched: true, submitted: true, checkError: 'file-1 is not closed' })).toEqual({
      state: 'ERROR',
      error: 'file-1 is not closed',
    });
    expect(fieldStatus(reads, [{ id: 'file-1' }], { touched: false, submitted: false, serverError: 'no match' })).toEqual({
      state: 'ERROR',
      error: 'no match',
    });
  });
});

describe('dependent inputs and the form state', () => {
  const fields = fieldsFromSpec(workflowSpec);
  const reference = fields[3];
  if (!reference) throw new Error('spec');

  it('WAIT_USER_INPUT until the input it follows has a value, WAIT_API while that is checked, then READY', () => {
    const empty: Record<string, RawValue> = {};
    expect(dependentState(reference, empty, fields)).toBe('WAIT_USER_INPUT');
    const given = { 'stage-a.reference': [{ id: 'file-9' }] };
    expect(dependentState(reference, given, fields, new Set(['stage-a.reference']))).toBe('WAIT_API');
    expect(dependentState(reference, given, fields)).toBe('READY');
    expect(dependentState(fields[2] ?? reference, empty, fields)).toBe('READY');
    expect(dependentState(fields[4] ?? reference, empty, fields)).toBeUndefined();
  });

  it('the form waits for the user while a required input is empty and for the API while loading', () => {
    expect(formState(fields, {})).toBe('WAIT_USER_INPUT');
    expect(formState(fields, { 'stage-a.reference': [{ id: 'file-9' }] })).toBe('READY');
    expect(formState(fields, { 'stage-a.reference': [{ id: 'file-9' }] }, { loading: true })).toBe('WAIT_API');
    expect(formState(fields, { 'stage-a.reference': [{ id: 'file-9' }] }, { checking: new Set(['stage-a.reference']) })).toBe('WAIT_API');
  });

  it('builds the run input with stage-qualified keys, leaving bound inputs to the workflow unless overridden', () => {
    expect(buildRunInput(fields, { 'stage-a.reference': [{ id: 'file-9', project: 'project-1' }], 'stage-b.depth': '10' })).toEqual({
      input: { 'stage-a.reference': { $dnanexus_link: { project: 'project-1', id: 'file-9' } }, 'stage-b.depth': 10 },
      errors: {},
    });
    expect(buildRunInput(fields, { 'stage-a.reads': [{ id: 'file-2' }], 'stage-b.bam': [{ id: 'file-3' }] })).toEqual({
      input: { 'stage-a.reads': { $dnanexus_link: 'file-2' } },
      errors: { 'stage-a.reference': 'Required' },
    });
  });

  it('puts sections per stage then per group, and flags those needing the user', () => {
    const list = sections(fields);
    expect(list.map((s) => [s.stage, s.group, s.fields.map((f) => f.name)])).toEqual([
      ['stage-a', undefined, ['reads', 'reference']],
      ['stage-b', undefined, ['bam', 'reference']],
      ['stage-b', 'Filtering', ['depth']],
    ]);
    expect(list.map((s) => sectionNeedsAttention(s, {}, {}))).toEqual([true, false, false]);
    expect(sectionNeedsAttention(list[2] ?? { fields: [] }, {}, { 'stage-b.depth': 'too deep' })).toBe(true);
  });
});

describe('server errors and earlier runs', () => {
  const fields = [...fieldsFromSpec(appletSpec), ...fieldsFromSpec(workflowSpec)];

  it('puts an InvalidInput error beside the field it names', () => {
    expect(errorField(fields, { field: 'threads' }, 'input field "threads" must be of class int')).toBe('threads');
    expect(errorField(fields, { field: 'stage-a.reference' }, 'input "stage-a.reference" (class file) is required')).toBe('stage-a.reference');
    expect(errorField(fields, undefined, 'input field "reads": the file name "x.txt" matches none of its patterns')).toBe('reads');
    expect(errorField(fields, { field: 'costLimit' }, 'costLimit must be positive')).toBe('costLimit');
    expect(errorField(fields, { field: 'systemRequirements.*.instanceType' }, 'unknown instance type')).toBe('systemRequirements');
    expect(errorField(fields, undefined, 'the stages wait for each other')).toBeUndefined();
  });

  it('reads an earlier runInput back into the form, reporting keys the tool no longer has', () => {
    const { values, unknown } = valuesFromRunInput(fields, {
      reads: { $dnanexus_link: { project: 'project-1', id: 'file-1' } },
      threads: 2,
      paired: false,
      regions: ['chr1', 'chr2'],
      options: { a: 1 },
      others: [{ $dnanexus_link: 'file-2' }],
      'stage-b.bam': { $dnanexus_link: { stage: 'stage-a', outputField: 'bam' } },
      gone: 1,
    });
    expect(values).toEqual({
      reads: [{ id: 'file-1', project: 'project-1' }],
      threads: '2',
      paired: false,
      regions: ['chr1', 'chr2'],
      options: '{\n  "a": 1\n}',
      others: [{ id: 'file-2' }],
    });
    expect(unknown).toEqual(['gone']);
    expect(valuesFromRunInput(fields, 'nonsense')).toEqual({ values: {}, unknown: [] });
  });

  it('matches file names against patterns', () => {
    expect(matchesPatterns(['*.fastq.gz', '*.fq'], 'sample_R1.fastq.gz')).toBe(true);
    expect(matchesPatterns(['*.fastq.gz'], 'sample_R1.fastq')).toBe(false);
    expect(matchesPatterns(['chr?.fa'], 'chr1.fa')).toBe(true);
    expect(matchesPatterns(['a+b(1).txt'], 'a+b(1).txt')).toBe(true);
    expect(matchesPatterns([], 'anything')).toBe(true);
  });
});

describe('input classes the form does not know', () => {
  it('are typed as text and say so, instead of being passed on unchecked', () => {
    const [field] = fieldsFromSpec([{ name: 'table', class: 'array:gtable', help: 'A table.' }]);
    expect(field).toMatchObject({ key: 'table', class: 'string', array: true, help: 'A table. (Class gtable: the form takes it as text.)' });
    expect(fieldsFromSpec([{ name: 'n', class: 'int' }])[0]?.class).toBe('int');
  });
});
