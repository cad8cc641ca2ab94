import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SYNTHETIC_GENOME, seededRandom, syntheticGenome } from '../src/demo/synthetic-genome.js';

/** Unit tests of the synthetic data set generator (the demo project's reference, reads and truth). */

const COMPLEMENT: Record<string, string> = { A: 'T', C: 'G', G: 'C', T: 'A' };
const revcomp = (s: string) =>
  [...s]
    .reverse()
    .map((b) => COMPLEMENT[b] ?? 'N')
    .join('');
const sequenceOf = (fasta: string) => fasta.split('\n').slice(1).join('');
const records = (gz: Buffer) => {
  const lines = gunzipSync(gz).toString('latin1').split('\n');
  expect(lines.pop()).toBe('');
  const out: { name: string; bases: string; quals: string }[] = [];
  for (let i = 0; i < lines.length; i += 4) {
    expect(lines[i + 2]).toBe('+');
    out.push({ name: lines[i] as string, bases: lines[i + 1] as string, quals: lines[i + 3] as string });
  }
  return out;
};

describe('synthetic genome', () => {
  const data = syntheticGenome();

  it('is deterministic: the same options give the same bytes, another seed other data', () => {
    const again = syntheticGenome({ seed: DEFAULT_SYNTHETIC_GENOME.seed });
    expect(again.referenceFasta).toBe(data.referenceFasta);
    expect(again.reads1FastqGz.equals(data.reads1FastqGz)).toBe(true);
    expect(again.reads2FastqGz.equals(data.reads2FastqGz)).toBe(true);
    expect(again.truth).toEqual(data.truth);
    const other = syntheticGenome({ seed: 7 });
    expect(other.referenceFasta).not.toBe(data.referenceFasta);
    expect(other.truth.map((s) => s.pos)).not.toEqual(data.truth.map((s) => s.pos));
    // The generator itself is a fixed sequence (mulberry32), the same on every machine.
    const random = seededRandom(42);
    expect([random(), random(), random()].map((x) => x.toFixed(6))).toEqual(['0.601104', '0.448291', '0.852466']);
  });

  it('writes a 50 kb reference and plants 10 SNPs at 1 kb-aligned positions, 8 homozygous and 2 heterozygous', () => {
    expect(data.referenceFasta.startsWith('>chrT ')).toBe(true);
    const reference = sequenceOf(data.referenceFasta);
    expect(reference).toMatch(/^[ACGT]{50000}$/);
    expect(
      data.referenceFasta
        .split('\n')
        .slice(1, -2)
        .every((line) => line.length === 60),
    ).toBe(true);
    expect(data.truth).toHaveLength(10);
    expect(data.truth.filter((s) => s.genotype === '1/1')).toHaveLength(8);
    expect(data.truth.filter((s) => s.genotype === '0/1')).toHaveLength(2);
    const positions = data.truth.map((s) => s.pos);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(10);
    for (const snp of data.truth) {
      expect(snp.chrom).toBe('chrT');
      expect(snp.pos % 1000).toBe(0);
      expect(snp.pos).toBeGreaterThanOrEqual(2000);
      expect(snp.pos).toBeLessThanOrEqual(48_000);
      expect(snp.ref).toBe(reference[snp.pos - 1]);
      expect(snp.alt).toMatch(/^[ACGT]$/);
      expect(snp.alt).not.toBe(snp.ref);
    }
    expect(data.truthTsv.split('\n')[0]).toBe('chrom\tpos\tref\talt\tgenotype');
    expect(data.truthTsv.trim().split('\n').slice(1)).toEqual(data.truth.map((s) => `${s.chrom}\t${s.pos}\t${s.ref}\t${s.alt}\t${s.genotype}`));
  });

  it('writes 2,000 pairs of 150 bp reads with matching names, quality I, and the alleles of the sample', () => {
    const r1 = records(data.reads1FastqGz);
    const r2 = records(data.reads2FastqGz);
    expect(r1).toHaveLength(2000);
    expect(r2).toHaveLength(2000);
    r1.forEach((read, i) => {
      const mate = r2[i] as (typeof r2)[number];
      expect(read.name.replace(/\/1$/, '/2')).toBe(mate.name);
      expect(read.bases).toMatch(/^[ACGT]{150}$/);
      expect(read.quals).toBe('I'.repeat(150));
    });
    // Reads over a planted SNP carry the ALT allele: always for homozygous SNPs (but for the 0.1 %
    // errors), about half of the time for heterozygous ones.
    const reference = sequenceOf(data.referenceFasta);
    const pile = [...r1, ...r2].flatMap((read) => [read.bases, revcomp(read.bases)]).join('\n');
    const count = (kmer: string) => {
      let n = 0;
      for (let at = pile.indexOf(kmer); at >= 0; at = pile.indexOf(kmer, at + 1)) n++;
      return n;
    };
    for (const snp of data.truth) {
      const left = reference.slice(snp.pos - 21, snp.pos - 1);
      const right = reference.slice(snp.pos, snp.pos + 20);
      const alt = count(`${left}${snp.alt}${right}`);
      const ref = count(`${left}${snp.ref}${right}`);
      if (snp.genotype === '1/1') {
        expect(alt).toBeGreaterThan(3);
        expect(ref).toBe(0);
      } else {
        expect(alt).toBeGreaterThan(1);
        expect(ref).toBeGreaterThan(1);
      }
    }
  });

  it('places mates on opposite strands of one fragment with inserts of 350 ± 30 (no SNPs, no errors)', () => {
    const clean = syntheticGenome({ seed: 3, snpCount: 0, heterozygousCount: 0, errorRate: 0, readPairs: 200 });
    expect(clean.truth).toEqual([]);
    const reference = sequenceOf(clean.referenceFasta);
    const inserts: number[] = [];
    const r2 = records(clean.reads2FastqGz);
    records(clean.reads1FastqGz).forEach((read, i) => {
      const mate = (r2[i] as (typeof r2)[number]).bases;
      const forward = reference.indexOf(read.bases);
      if (forward >= 0) {
        // Read 1 on the forward strand: read 2 is the reverse complement of the fragment's end.
        const end = reference.indexOf(revcomp(mate));
        expect(end).toBeGreaterThanOrEqual(forward);
        inserts.push(end + 150 - forward);
      } else {
        const reverse = reference.indexOf(revcomp(read.bases));
        const start = reference.indexOf(mate);
        expect(reverse).toBeGreaterThanOrEqual(0);
        expect(start).toBeGreaterThanOrEqual(0);
        inserts.push(reverse + 150 - start);
      }
    });
    const mean = inserts.reduce((a, b) => a + b, 0) / inserts.length;
    expect(mean).toBeGreaterThan(340);
    expect(mean).toBeLessThan(360);
    expect(Math.min(...inserts)).toBeGreaterThan(350 - 5 * 30);
    expect(Math.max(...inserts)).toBeLessThan(350 + 5 * 30);
  });

  it('is fast enough for the first start and refuses impossible options', () => {
    const started = performance.now();
    syntheticGenome({ seed: 11 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(() => syntheticGenome({ snpCount: 100 })).toThrow(RangeError);
    expect(() => syntheticGenome({ heterozygousCount: 11 })).toThrow(RangeError);
    expect(() => syntheticGenome({ readLength: 0 })).toThrow(RangeError);
    expect(() => syntheticGenome({ errorRate: 1 })).toThrow(RangeError);
    expect(() => syntheticGenome({ contig: 'chr 1' })).toThrow(RangeError);
  });
});
