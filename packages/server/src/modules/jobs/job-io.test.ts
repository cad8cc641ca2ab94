import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.js';
import { canonicalJson, checkAgainstSpec, globMatches, jborOf, jborsIn, objectRefsIn, reuseKeyOf, substitute, valueOfJbor } from './job-io.js';

const FILE = 'file-BBBBBBBBBBBBBBBBBBBBBBBB';
const JOB = 'job-FFFFFFFFFFFFFFFFFFFFFFFF';

function refused(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).type).toBe('InvalidInput');
    return (error as ApiError).message;
  }
  throw new Error('expected InvalidInput');
}

describe('links and job-based references', () => {
  it('reads both link forms and both reference forms', () => {
    expect(objectRefsIn({ a: { $dnanexus_link: FILE }, b: [{ $dnanexus_link: { project: 'project-x', id: FILE } }], c: 'text' })).toEqual([
      { id: FILE, key: 'a' },
      { id: FILE, project: 'project-x', key: 'b' },
    ]);
    expect(jborOf({ $dnanexus_link: { job: JOB, field: 'out', index: 2 } })).toEqual({ job: JOB, field: 'out', index: 2 });
    expect(jborOf({ job: JOB, field: 'out' })).toEqual({ job: JOB, field: 'out' });
    expect(jborOf({ job: JOB, field: 'out', other: 1 })).toBeUndefined();
    expect(jborsIn({ x: [{ job: JOB, field: 'a' }] })).toEqual([{ job: JOB, field: 'a', key: 'x' }]);
  });

  it('substitutes references with outputs and plain links', () => {
    const outputs = new Map([[JOB, { out: [1, 2, 3], file: { $dnanexus_link: { project: 'project-x', id: FILE } } }]]);
    expect(
      substitute(
        { a: { $dnanexus_link: { job: JOB, field: 'out', index: 1 } }, b: [{ job: JOB, field: 'file' }], c: { $dnanexus_link: { project: 'p', id: FILE } } },
        outputs,
      ),
    ).toEqual({ a: 2, b: [{ $dnanexus_link: FILE }], c: { $dnanexus_link: FILE } });
    expect(() => valueOfJbor({ job: JOB, field: 'missing' }, {})).toThrow(/no output field "missing"/);
  });
});

describe('checking values against an I/O spec', () => {
  const spec = [
    { name: 'reads', class: 'array:file' },
    { name: 'k', class: 'int', default: 31, choices: [21, 31] },
    { name: 'ratio', class: 'float', optional: true },
    { name: 'opts', class: 'hash', optional: true },
    { name: 'ok', class: 'boolean', optional: true },
  ];
  const link = { $dnanexus_link: FILE };

  it('fills in defaults and accepts references for any class', () => {
    expect(checkAgainstSpec(spec, { reads: [link] }, { what: 'input', applyDefaults: true })).toEqual({ reads: [link], k: 31 });
    expect(checkAgainstSpec(spec, { reads: { job: JOB, field: 'r' }, k: 21, ratio: 1 }, { what: 'input', applyDefaults: true })).toMatchObject({ ratio: 1 });
  });

  it.each([
    [{}, 'input field "reads" (class array:file) is required'],
    [{ reads: link }, '"reads" must be an array of file'],
    [{ reads: [{ $dnanexus_link: 'record-BBBBBBBBBBBBBBBBBBBBBBBB' }] }, '"reads"[0] must be of class file'],
    [{ reads: [link], k: 25 }, '"k" must be one of 21, 31'],
    [{ reads: [link], k: 2.5 }, '"k" must be of class int'],
    [{ reads: [link], ratio: 'x' }, '"ratio" must be of class float'],
    [{ reads: [link], opts: link }, '"opts" must be of class hash'],
    [{ reads: [link], ok: 'yes' }, '"ok" must be of class boolean'],
    [{ reads: [link], extra: 1 }, 'input field "extra" is not in the input spec'],
  ])('refuses %j', (values, message) => {
    expect(refused(() => checkAgainstSpec(spec, values, { what: 'input', applyDefaults: true }))).toContain(message);
  });

  it('accepts anything without a spec', () => {
    expect(checkAgainstSpec(null, { whatever: [1] }, { what: 'output', applyDefaults: false })).toEqual({ whatever: [1] });
  });
});

describe('helpers', () => {
  it('matches DNAnexus globs', () => {
    expect(globMatches('a.fastq.gz', '*.fastq.gz')).toBe(true);
    expect(globMatches('a.fq', 'a.f?')).toBe(true);
    expect(globMatches('a.bam', '*.fq')).toBe(false);
    expect(globMatches('a(1).fq', 'a(1).*')).toBe(true);
  });

  it('gives equal inputs equal reuse keys, whatever their key order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    const key = (input: Record<string, unknown>, instanceType = 'x') => reuseKeyOf({ executable: 'applet-x', function: 'main', input, instanceType });
    expect(key({ a: 1, b: 2 })).toBe(key({ b: 2, a: 1 }));
    expect(key({ a: 1 })).not.toBe(key({ a: 2 }));
    expect(key({ a: 1 })).not.toBe(key({ a: 1 }, 'y'));
  });
});
