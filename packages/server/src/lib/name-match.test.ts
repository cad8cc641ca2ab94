import { describe, expect, it } from 'vitest';
import { globPrefix, globToRegExp, matchesProperties, matchesTags, nameMatcher } from './name-match.js';

describe('name matching', () => {
  it.each([
    ['*.bam', 'reads.bam', true],
    ['*.bam', 'reads.bam.bai', false],
    ['sample_?.vcf', 'sample_1.vcf', true],
    ['sample_?.vcf', 'sample_12.vcf', false],
    ['a[1].txt', 'a[1].txt', true],
    ['a.b', 'axb', false],
  ])('glob %s against %s → %s', (glob, name, expected) => {
    expect(globToRegExp(glob).test(name)).toBe(expected);
  });

  it('finds the literal prefix of a glob', () => {
    expect(globPrefix('sample_12*')).toBe('sample_12');
    expect(globPrefix('*x')).toBe('');
    expect(globPrefix('exact')).toBe('exact');
  });

  it('turns a wildcard-free glob into an exact match', () => {
    expect(nameMatcher({ glob: 'reads.bam' })).toMatchObject({ exact: 'reads.bam' });
    expect(nameMatcher({ glob: 'reads*' })).toMatchObject({ prefix: 'reads' });
  });

  it('applies regexp flags and rejects invalid expressions with InvalidInput', () => {
    expect(nameMatcher({ regexp: '^READS', flags: 'i' }).test('reads.bam')).toBe(true);
    expect(() => nameMatcher({ regexp: '(' })).toThrow(/Invalid regular expression/);
  });

  it('composes tag filters with $and and $or', () => {
    const tags = ['qc', 'tumor'];
    expect(matchesTags(tags, 'qc')).toBe(true);
    expect(matchesTags(tags, { $and: ['qc', 'normal'] })).toBe(false);
    expect(matchesTags(tags, { $or: ['normal', { $and: ['qc', 'tumor'] }] })).toBe(true);
  });

  it('matches properties by value, by presence and composed', () => {
    const properties = { sample: 'NA12878', run: '7' };
    expect(matchesProperties(properties, { sample: 'NA12878' })).toBe(true);
    expect(matchesProperties(properties, { sample: true, lane: true })).toBe(false);
    expect(matchesProperties(properties, { $or: [{ lane: true }, { run: '7' }] })).toBe(true);
  });
});
