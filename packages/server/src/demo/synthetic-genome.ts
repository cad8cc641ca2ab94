import { gzipSync } from 'node:zlib';

/**
 * A small synthetic germline data set, generated in memory with a seeded random number generator
 * (no downloads, identical bytes for identical options): a random reference contig, a diploid sample
 * that carries planted SNPs (homozygous on both haplotypes, heterozygous on one), and Illumina-like
 * paired-end reads drawn from that sample. Defaults follow the tested pipeline of
 * shared/reference/machine-notes.md §2: 50 kb, 10 SNPs at 1 kb-aligned positions (8 homozygous, 2
 * heterozygous), 2,000 pairs of 2×150 bp, insert 350±30, 0.1 % substitution errors, quality `I`.
 * With these settings bwa mem + bcftools call finds exactly the planted SNPs (see the tests).
 */

export interface SyntheticGenomeOptions {
  /** Seed of the random number generator (any 32-bit integer). */
  seed?: number;
  /** Name of the reference contig. */
  contig?: string;
  referenceLength?: number;
  snpCount?: number;
  /** How many of the SNPs are heterozygous (the others are homozygous alternate). */
  heterozygousCount?: number;
  /** SNPs sit on multiples of this (1-based positions), at least twice this far from either end. */
  snpSpacing?: number;
  readPairs?: number;
  readLength?: number;
  insertMean?: number;
  insertSd?: number;
  /** Per-base substitution error rate of the reads. */
  errorRate?: number;
  /** Sample name, used in the read names' prefix and the truth table. */
  sample?: string;
}

export type ResolvedSyntheticGenomeOptions = Required<SyntheticGenomeOptions>;

export const DEFAULT_SYNTHETIC_GENOME: ResolvedSyntheticGenomeOptions = {
  seed: 42,
  contig: 'chrT',
  referenceLength: 50_000,
  snpCount: 10,
  heterozygousCount: 2,
  snpSpacing: 1000,
  readPairs: 2000,
  readLength: 150,
  insertMean: 350,
  insertSd: 30,
  errorRate: 0.001,
  sample: 'sample1',
};

export interface PlantedSnp {
  chrom: string;
  /** 1-based, as in VCF. */
  pos: number;
  ref: string;
  alt: string;
  /** VCF genotype of the sample: `1/1` homozygous alternate, `0/1` heterozygous. */
  genotype: '1/1' | '0/1';
}

export interface SyntheticGenome {
  options: ResolvedSyntheticGenomeOptions;
  /** The reference FASTA (one contig, 60 bases a line). */
  referenceFasta: string;
  /** Read 1 and read 2 of every pair, gzipped FASTQ (Phred+33 qualities). */
  reads1FastqGz: Buffer;
  reads2FastqGz: Buffer;
  /** The planted SNPs, sorted by position. */
  truth: PlantedSnp[];
  /** The same as a TSV with a header line: chrom, pos, ref, alt, genotype. */
  truthTsv: string;
}

/** mulberry32: a small, fast 32-bit generator; good enough for simulation, and the same everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASES = 'ACGT';
function validate(o: ResolvedSyntheticGenomeOptions): void {
  const positiveInts: (keyof ResolvedSyntheticGenomeOptions)[] = ['referenceLength', 'snpSpacing', 'readPairs', 'readLength', 'insertMean'];
  for (const key of positiveInts) {
    const value = o[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) throw new RangeError(`${key} must be a positive integer`);
  }
  if (!Number.isInteger(o.snpCount) || o.snpCount < 0) throw new RangeError('snpCount must be a non-negative integer');
  if (!Number.isInteger(o.heterozygousCount) || o.heterozygousCount < 0 || o.heterozygousCount > o.snpCount) {
    throw new RangeError('heterozygousCount must be between 0 and snpCount');
  }
  if (!(o.insertSd >= 0)) throw new RangeError('insertSd must be zero or more');
  if (!(o.errorRate >= 0 && o.errorRate < 1)) throw new RangeError('errorRate must be in [0, 1)');
  if (o.readLength > o.referenceLength) throw new RangeError('readLength must not exceed referenceLength');
  if (!/^[!-~]+$/.test(o.contig) || !/^[!-~]+$/.test(o.sample)) throw new RangeError('contig and sample must be printable ASCII without spaces');
  const slots = Math.floor((o.referenceLength - 2 * o.snpSpacing) / o.snpSpacing) - 1;
  if (o.snpCount > Math.max(0, slots)) throw new RangeError(`only ${Math.max(0, slots)} SNP positions fit in the reference at this spacing`);
}

/** Draws `count` distinct items of `items` (partial Fisher–Yates). */
function sample<T>(items: T[], count: number, random: () => number): T[] {
  const pool = items.slice();
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j] as T, pool[i] as T];
  }
  return pool.slice(0, count);
}

const CODE = { A: 65, C: 67, G: 71, T: 84 } as const;
const BASE_CODES = [CODE.A, CODE.C, CODE.G, CODE.T];
/** Complement of an ASCII base code (A↔T, C↔G). */
const complementCode = (code: number) => (code === CODE.A ? CODE.T : code === CODE.T ? CODE.A : code === CODE.C ? CODE.G : CODE.C);

export function syntheticGenome(options: SyntheticGenomeOptions = {}): SyntheticGenome {
  const o: ResolvedSyntheticGenomeOptions = { ...DEFAULT_SYNTHETIC_GENOME, ...options };
  validate(o);
  const random = seededRandom(o.seed);
  // Byte arrays throughout: building strings base by base spends most of the time in the GC.
  const reference = new Uint8Array(o.referenceLength);
  for (let i = 0; i < o.referenceLength; i++) reference[i] = BASE_CODES[Math.floor(random() * 4)] as number;

  // Planted SNPs: distinct 1-based positions on multiples of the spacing, away from the ends.
  const candidates: number[] = [];
  for (let pos = 2 * o.snpSpacing; pos <= o.referenceLength - 2 * o.snpSpacing; pos += o.snpSpacing) candidates.push(pos);
  const positions = sample(candidates, o.snpCount, random).sort((a, b) => a - b);
  const heterozygous = new Set(sample(positions, o.heterozygousCount, random));
  const truth: PlantedSnp[] = positions.map((pos) => {
    const ref = String.fromCharCode(reference[pos - 1] as number);
    const others = BASES.replace(ref, '');
    const alt = others[Math.floor(random() * 3)] as string;
    return { chrom: o.contig, pos, ref, alt, genotype: heterozygous.has(pos) ? '0/1' : '1/1' };
  });

  // The sample's two haplotypes: homozygous SNPs on both, heterozygous ones on the second only.
  const haplotypes = [reference.slice(), reference.slice()] as const;
  for (const snp of truth) {
    haplotypes[1][snp.pos - 1] = snp.alt.charCodeAt(0);
    if (snp.genotype === '1/1') haplotypes[0][snp.pos - 1] = snp.alt.charCodeAt(0);
  }

  let normalSpare: number | undefined;
  const normal = () => {
    if (normalSpare !== undefined) {
      const value = normalSpare;
      normalSpare = undefined;
      return value;
    }
    const u = 1 - random(); // (0, 1]
    const v = random();
    const radius = Math.sqrt(-2 * Math.log(u));
    normalSpare = radius * Math.sin(2 * Math.PI * v);
    return radius * Math.cos(2 * Math.PI * v);
  };

  // Both FASTQ files are written straight into buffers of their exact size.
  const L = o.readLength;
  const width = String(o.readPairs).length;
  const nameLength = `@${o.sample}.${'0'.repeat(width)}/1\n`.length;
  const recordLength = nameLength + L + 3 + L + 1; // name, bases, "\n+\n", qualities, "\n"
  const fastq = [Buffer.alloc(recordLength * o.readPairs), Buffer.alloc(recordLength * o.readPairs)] as const;
  /**
   * Writes one FASTQ record: `L` bases of `haplotype` from `from`, as they are or reverse-complemented,
   * with independent substitution errors (one random draw per base, in read order).
   */
  const writeRecord = (out: Buffer, offset: number, name: string, haplotype: Uint8Array, from: number, reverse: boolean) => {
    let at = offset + out.write(name, offset, 'latin1');
    for (let i = 0; i < L; i++) {
      let code = reverse ? complementCode(haplotype[from + L - 1 - i] as number) : (haplotype[from + i] as number);
      if (o.errorRate > 0 && random() < o.errorRate) {
        const others = BASE_CODES.filter((c) => c !== code);
        code = others[Math.floor(random() * 3)] as number;
      }
      out[at++] = code;
    }
    at += out.write('\n+\n', at, 'latin1');
    out.fill(73, at, at + L); // 'I', Phred 40
    out[at + L] = 10;
  };

  // Reads: a fragment from a random haplotype, on a random strand; read 1 from its start, read 2 from
  // the start of its reverse complement.
  for (let i = 0; i < o.readPairs; i++) {
    const haplotype = haplotypes[random() < 0.5 ? 0 : 1];
    const insert = Math.min(o.referenceLength, Math.max(L, Math.round(o.insertMean + o.insertSd * normal())));
    const start = Math.floor(random() * (o.referenceLength - insert + 1));
    const flipped = random() < 0.5;
    const name = `${o.sample}.${String(i + 1).padStart(width, '0')}`;
    const offset = i * recordLength;
    // Forward fragment: read 1 is its first L bases, read 2 the reverse complement of its last L.
    // Flipped fragment: the other way round.
    writeRecord(fastq[0], offset, `@${name}/1\n`, haplotype, flipped ? start + insert - L : start, flipped);
    writeRecord(fastq[1], offset, `@${name}/2\n`, haplotype, flipped ? start : start + insert - L, !flipped);
  }

  const referenceText = Buffer.from(reference).toString('latin1');
  const lines = [`>${o.contig} synthetic reference (seed ${o.seed}, ${o.referenceLength} bp)`];
  for (let i = 0; i < referenceText.length; i += 60) lines.push(referenceText.slice(i, i + 60));
  const truthTsv = `${['chrom', 'pos', 'ref', 'alt', 'genotype'].join('\t')}\n${truth.map((s) => `${s.chrom}\t${s.pos}\t${s.ref}\t${s.alt}\t${s.genotype}\n`).join('')}`;
  return {
    options: o,
    referenceFasta: `${lines.join('\n')}\n`,
    // Level 1: level 6 takes 30 times longer on these reads for a quarter less size.
    reads1FastqGz: gzipSync(fastq[0], { level: 1 }),
    reads2FastqGz: gzipSync(fastq[1], { level: 1 }),
    truth,
    truthTsv,
  };
}
