import { describe, expect, it } from 'vitest';
import { bashVarsFor, filePrefix, fnmatch, formatBashVars, splitExtension } from '../src/bash-vars.js';
import type { IoSpecItem, JobInput } from '../src/job-files.js';
import { pythonFloatRepr, pythonJson, shellQuote } from '../src/python-format.js';

const F1 = 'file-0000000000000000000000F1';
const F2 = 'file-0000000000000000000000F2';
const F3 = 'file-0000000000000000000000F3';
const link = (id: string, project?: string) => ({ $dnanexus_link: project ? { project, id } : id });
const names = { [F1]: 'reads_1.fastq.gz', [F2]: 'sample.sorted.bam', [F3]: 'ref.fa' };

/** The expected lines are what dx-print-bash-vars (dxpy file_load_utils.gen_bash_vars) prints. */
const cases: { title: string; input: JobInput; spec?: IoSpecItem[]; env?: Record<string, string>; expected: string[] }[] = [
  {
    title: 'a string, an int and a boolean',
    input: { mode: 'fast', threads: 4, verbose: false },
    expected: ['export mode=fast', 'export threads=4', 'export verbose=false'],
  },
  {
    title: 'strings that need quoting, and an empty one',
    input: { label: "it's a test", empty: '', glob: '*.txt', path: '/a/b-c_d.e:f,g@h%i+j=k' },
    expected: [`export label='it'"'"'s a test'`, "export empty=''", "export glob='*.txt'", 'export path=/a/b-c_d.e:f,g@h%i+j=k'],
  },
  {
    title: 'floats as Python writes them, integers as floats when the spec says float',
    input: { ratio: 0.5, tiny: 0.00001, big: 1e16, whole: 2, count: 2 },
    spec: [{ name: 'whole', class: 'float' }],
    expected: ['export ratio=0.5', 'export tiny=1e-05', 'export big=10000000000000000', 'export whole=2.0', 'export count=2'],
  },
  {
    title: 'a hash as json.dumps with spaces, non-ASCII escaped',
    input: { options: { a: 1, b: [true, null], c: 'é' } },
    expected: [`export options='{"a": 1, "b": [true, null], "c": "\\u00e9"}'`],
  },
  {
    title: 'arrays of strings and numbers, and an empty array',
    input: { names: ['a b', 'c'], sizes: [1, 2.5], none: [] },
    expected: ["export names=( 'a b' c )", 'export sizes=( 1 2.5 )', 'export none=(  )'],
  },
  {
    title: 'a file: link, name, prefix (last extension and .gz dropped) and path, all as arrays',
    input: { reads: link(F1, 'project-000000000000000000000001') },
    expected: [
      `export reads=( '{"$dnanexus_link": "${F1}"}' )`,
      'export reads_name=( reads_1.fastq.gz )',
      'export reads_prefix=( reads_1 )',
      'export reads_path=( /home/dnanexus/in/reads/reads_1.fastq.gz )',
    ],
  },
  {
    title: 'an array of files in numbered folders, non-file inputs first',
    input: { files: [link(F2), link(F3)], n: 1 },
    expected: [
      'export n=1',
      `export files=( '{"$dnanexus_link": "${F2}"}' '{"$dnanexus_link": "${F3}"}' )`,
      'export files_name=( sample.sorted.bam ref.fa )',
      'export files_prefix=( sample.sorted ref )',
      'export files_path=( /home/dnanexus/in/files/0/sample.sorted.bam /home/dnanexus/in/files/1/ref.fa )',
    ],
  },
  {
    title: 'inputSpec patterns choose the prefix (the shortest match wins)',
    input: { bam: link(F2) },
    spec: [{ name: 'bam', class: 'file', patterns: ['*.bam', '*.sorted.bam', 'nomatch', { name: ['*.bam'] }] }],
    expected: [
      `export bam=( '{"$dnanexus_link": "${F2}"}' )`,
      'export bam_name=( sample.sorted.bam )',
      'export bam_prefix=( sample )',
      'export bam_path=( /home/dnanexus/in/bam/sample.sorted.bam )',
    ],
  },
  {
    title: 'names already in the environment are skipped',
    input: { HOME: 'x', ok: 'y' },
    env: { HOME: '/home/dnanexus' },
    expected: ['export ok=y'],
  },
  {
    title: 'links to other classes are JSON values, JBOR-free',
    input: { rec: link('record-0000000000000000000000R1') },
    expected: [`export rec='{"$dnanexus_link": "record-0000000000000000000000R1"}'`],
  },
];

describe('bashVarsFor', () => {
  it.each(cases)('$title', ({ input, spec, env, expected }) => {
    const skipped: string[] = [];
    const vars = bashVarsFor(input, spec, { home: '/home/dnanexus', fileNames: names, environment: env, onCollision: (name) => skipped.push(name) });
    expect(formatBashVars(vars).trimEnd().split('\n')).toEqual(expected);
    if (env) expect(skipped).toEqual(Object.keys(env));
  });

  it('pads array folders to the width of the last index and escapes slashes in names', () => {
    const files = Array.from({ length: 11 }, (_, i) => `file-${String(i).padStart(24, '0')}`);
    const fileNames = Object.fromEntries(files.map((id, i) => [id, i === 10 ? 'a/b.txt' : `f${i}.txt`]));
    const vars = bashVarsFor({ many: files.map((id) => link(id)) }, undefined, { home: '/h', fileNames });
    const paths = vars.find((v) => v.name === 'many_path')?.value ?? '';
    expect(paths.startsWith('( /h/in/many/00/f0.txt /h/in/many/01/f1.txt')).toBe(true);
    expect(paths.endsWith('/h/in/many/10/a%2Fb.txt )')).toBe(true);
  });

  it('writes plain assignments for the runner’s vars file and warns before very long values', () => {
    const vars = bashVarsFor({ a: 'x', long: 'y'.repeat(20_000) }, undefined, { home: '/h', fileNames: {} });
    expect(formatBashVars(vars, { export: false }).split('\n')[0]).toBe('a=x');
    expect(formatBashVars(vars)).toContain('echo "warning: variable long is long (20000 bytes)"\nexport long=');
  });

  it('fails when a file has no name', () => {
    expect(() => bashVarsFor({ f: link(F1) }, undefined, { home: '/h', fileNames: {} })).toThrow(/no name/);
  });
});

describe('Python formatting', () => {
  it.each([
    [1.0, '1.0'],
    [0.1, '0.1'],
    [-2.5, '-2.5'],
    [1e-4, '0.0001'],
    [1.5e-5, '1.5e-05'],
    [123456789012345.6, '123456789012345.6'],
    [1e16, '1e+16'],
    [2.5e100, '2.5e+100'],
    [-0, '-0.0'],
  ])('repr(%s) is %s', (value, text) => {
    expect(pythonFloatRepr(value)).toBe(text);
  });

  it('dumps like json.dumps, with and without indent', () => {
    expect(pythonJson({ a: [1, 'x'], b: {} })).toBe('{"a": [1, "x"], "b": {}}');
    expect(pythonJson({ a: [1], b: [] }, { indent: 4 })).toBe('{\n    "a": [\n        1\n    ],\n    "b": []\n}');
    expect(pythonJson('tab\there "q" \u007f 😀')).toBe('"tab\\there \\"q\\" \\u007f \\ud83d\\ude00"');
  });

  it.each([
    ['abc', 'abc'],
    ['', "''"],
    ['a b', "'a b'"],
    ["a'b", `'a'"'"'b'`],
    ['$HOME', "'$HOME'"],
    ['é', "'é'"],
  ])('shlex.quote(%j) is %s', (text, quoted) => {
    expect(shellQuote(text)).toBe(quoted);
  });

  it.each([
    ['x.bam', '*.bam', true],
    ['x.bam', 'x?bam', true],
    ['a1.txt', 'a[0-9].txt', true],
    ['ab.txt', 'a[!b].txt', false],
    ['X.BAM', '*.bam', false],
  ])('fnmatch(%s, %s) is %s', (name, pattern, matches) => {
    expect(fnmatch(name, pattern)).toBe(matches);
  });

  it.each([
    ['a.tar.gz', undefined, 'a'],
    ['a.txt', undefined, 'a'],
    ['.bashrc', undefined, '.bashrc'],
    ['noext', undefined, 'noext'],
    ['x.bwa-index.tar.gz', ['*.bwa-index.tar.gz'], 'x'],
    ['food.sam', ['foo*.sam'], 'food'],
    // dxpy cuts what follows the last "*" ("ra.sam"), whatever its docstring says.
    ['zebra.sam', ['z*ra.sam'], 'zeb'],
    ['foo.txt', ['foo*'], ''],
  ])('the prefix of %s with %j is %s', (name, patterns, prefix) => {
    expect(filePrefix(name, patterns)).toBe(prefix);
    expect(splitExtension('..')).toEqual(['..', '']);
  });
});
