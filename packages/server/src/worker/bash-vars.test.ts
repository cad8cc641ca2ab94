import { describe, expect, it } from 'vitest';
import { bashVars, filePrefix, pythonJson, shellQuote } from './bash-vars.js';

const A = 'file-AAAAAAAAAAAAAAAAAAAAAAAA';
const B = 'file-BBBBBBBBBBBBBBBBBBBBBBBB';

describe('bash input variables (dx-print-bash-vars)', () => {
  it('quotes like Python and prints JSON like json.dumps', () => {
    expect(shellQuote('plain-text_1.0')).toBe('plain-text_1.0');
    expect(shellQuote("it's")).toBe(`'it'"'"'s'`);
    expect(shellQuote('')).toBe("''");
    expect(pythonJson({ a: [1, true, null], b: 'é' })).toBe('{"a": [1, true, null], "b": "\\u00e9"}');
  });

  it('strips what a pattern matched, else the extension (and .gz)', () => {
    expect(filePrefix('foo.zed.bam', ['*.bam'])).toBe('foo.zed');
    expect(filePrefix('xxx.bwa-index.tar.gz', ['*.bam', '*.bwa-index.tar.gz'])).toBe('xxx');
    expect(filePrefix('food.sam', ['foo*.sam'])).toBe('food');
    expect(filePrefix('xx.c.gz', [])).toBe('xx');
    expect(filePrefix('.bashrc', [])).toBe('.bashrc');
  });

  it('defines scalars first, then the four arrays of each file input', () => {
    const names = new Map([
      [A, 'a.fq'],
      [B, 'b.fq'],
    ]);
    const files = Array.from({ length: 11 }, (_, i) => ({ $dnanexus_link: i % 2 ? B : A }));
    const { lines, skipped } = bashVars({
      input: { reads: files, ref: { $dnanexus_link: A }, k: 31, name: 'my sample', opts: { x: 1 }, words: ['a', 'b c'], HOME: 'x' },
      inputSpec: [{ name: 'reads', patterns: ['*.fq'] }],
      fileNames: names,
      home: '/home/job',
      environment: { HOME: '/home/job' },
    });
    expect(skipped).toEqual(['HOME']);
    expect(lines.slice(0, 4)).toEqual([`export k=31`, `export name='my sample'`, `export opts='{"x": 1}'`, `export words=( a 'b c' )`]);
    expect(lines).toContain(
      `export reads_path=( ${files.map((_, i) => `/home/job/in/reads/${String(i).padStart(2, '0')}/${i % 2 ? 'b' : 'a'}.fq`).join(' ')} )`,
    );
    expect(lines).toContain(`export reads_prefix=( ${files.map((_, i) => (i % 2 ? 'b' : 'a')).join(' ')} )`);
    expect(lines).toContain(`export ref=( '{"$dnanexus_link": "${A}"}' )`);
    expect(lines).toContain('export ref_name=( a.fq )');
    expect(lines).toContain('export ref_prefix=( a )');
    expect(lines).toContain('export ref_path=( /home/job/in/ref/a.fq )');
  });
});
