import { describe, expect, it, vi } from 'vitest';
import { nameMatcher, serverNameFilter } from './name-filter';

describe('name filter (SPEC §5)', () => {
  it('matches plain text case-insensitively, special characters literally', () => {
    const match = nameMatcher('READS.', 'text');
    expect(match('my_reads.fastq')).toBe(true);
    expect(match('my_readsXfastq')).toBe(false);
    expect(nameMatcher('a+b', 'text')('A+B.txt')).toBe(true);
  });

  it('matches regular expressions case-insensitively', () => {
    const match = nameMatcher('^sample_\\d+\\.vcf(\\.gz)?$', 'regex');
    expect(match('SAMPLE_12.VCF.GZ')).toBe(true);
    expect(match('xsample_1.vcf')).toBe(false);
  });

  it('logs an invalid regular expression and matches nothing', () => {
    const log = vi.fn();
    const match = nameMatcher('reads(', 'regex', log);
    expect(log).toHaveBeenCalledOnce();
    expect(log.mock.calls[0]?.[0]).toMatch(/Invalid regular expression/);
    expect(match('reads(')).toBe(false);
    expect(match('anything')).toBe(false);
  });

  it('matches everything when empty', () => {
    expect(nameMatcher('', 'regex')('x')).toBe(true);
  });

  it('gives the server a case-insensitive regexp', () => {
    expect(serverNameFilter('a.b', 'text')).toEqual({ regexp: 'a\\.b', flags: 'i' });
    expect(serverNameFilter('^a', 'regex')).toEqual({ regexp: '^a', flags: 'i' });
    expect(serverNameFilter('[', 'regex')).toBe('invalid');
    expect(serverNameFilter('', 'text')).toBeUndefined();
  });
});
