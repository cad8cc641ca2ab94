import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bamRecordSpans, bgzfBlocks, inflateHead, parseBamHeader } from './bgzf';
import { detectFormat, formatBytes, looksBinary, nextPreviewRange, previewState } from './formats';
import { parseDelimited, summarizeFasta, summarizeFastq } from './genomics';

/** One BGZF block (gzip member with the BC extra field), as bgzip writes it. */
function bgzfBlock(data: Uint8Array): Uint8Array {
  const deflated = zlib.deflateRawSync(data);
  const header = Buffer.from([0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 66, 67, 2, 0, 0, 0]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(zlib.crc32(data), 0);
  trailer.writeUInt32LE(data.length, 4);
  const block = Buffer.concat([header, deflated, trailer]);
  block.writeUInt16LE(block.length - 1, 16);
  return block;
}
const bgzf = (...chunks: Uint8Array[]) => new Uint8Array(Buffer.concat([...chunks.map(bgzfBlock), bgzfBlock(new Uint8Array(0))]));

function bamBytes(reads: { name: string; pos: number; seq: string }[]): Uint8Array {
  const text = Buffer.from('@HD\tVN:1.6\tSO:coordinate\n@SQ\tSN:chrT\tLN:50000\n');
  const parts: Buffer[] = [];
  const head = Buffer.alloc(8);
  head.write('BAM\x01', 0, 'latin1');
  head.writeInt32LE(text.length, 4);
  parts.push(head, text);
  const refs = Buffer.alloc(4 + 4 + 5 + 4);
  refs.writeInt32LE(1, 0);
  refs.writeInt32LE(5, 4);
  refs.write('chrT\0', 8, 'latin1');
  refs.writeInt32LE(50_000, 13);
  parts.push(refs);
  for (const read of reads) {
    const name = Buffer.from(`${read.name}\0`, 'latin1');
    const seqBytes = Buffer.alloc(Math.ceil(read.seq.length / 2));
    const codes = '=ACMGRSVTWYHKDBN';
    for (let i = 0; i < read.seq.length; i++) seqBytes[i >> 1] = (seqBytes[i >> 1] ?? 0) | (codes.indexOf(read.seq[i] ?? 'N') << (i % 2 === 0 ? 4 : 0));
    const fixed = Buffer.alloc(36);
    const cigar = Buffer.alloc(4);
    cigar.writeUInt32LE((read.seq.length << 4) | 0, 0);
    const qual = Buffer.alloc(read.seq.length, 30);
    const blockSize = 32 + name.length + cigar.length + seqBytes.length + qual.length;
    fixed.writeInt32LE(blockSize, 0);
    fixed.writeInt32LE(0, 4); // ref id
    fixed.writeInt32LE(read.pos, 8);
    fixed.writeUInt8(name.length, 12);
    fixed.writeUInt8(60, 13);
    fixed.writeUInt16LE(4680, 14);
    fixed.writeUInt16LE(1, 16); // n_cigar_op
    fixed.writeUInt16LE(0, 18); // flags
    fixed.writeInt32LE(read.seq.length, 20);
    fixed.writeInt32LE(-1, 24);
    fixed.writeInt32LE(-1, 28);
    fixed.writeInt32LE(0, 32);
    parts.push(fixed, name, cigar, seqBytes, qual);
  }
  return new Uint8Array(Buffer.concat(parts));
}

describe('preview ranges (SPEC §9)', () => {
  it('reads 5,120-byte chunks up to 102,400 bytes', () => {
    expect(nextPreviewRange(0, 100)).toEqual({ start: 0, end: 100 });
    expect(nextPreviewRange(0, 1_000_000)).toEqual({ start: 0, end: 5120 });
    expect(nextPreviewRange(5120, 1_000_000)).toEqual({ start: 5120, end: 10_240 });
    expect(nextPreviewRange(102_400, 1_000_000)).toBeUndefined();
    expect(nextPreviewRange(100, 100)).toBeUndefined();
    expect(previewState(102_400, 1_000_000)).toEqual({ canLoadMore: false, capped: true });
    expect(previewState(5120, 6000)).toEqual({ canLoadMore: true, capped: false });
  });

  it('detects formats by name and media type', () => {
    expect(detectFormat('sample.vcf.gz')).toEqual({ kind: 'vcf', gzip: true });
    expect(detectFormat('reads_R1.fastq.gz')).toEqual({ kind: 'fastq', gzip: true });
    expect(detectFormat('aln.bam')).toEqual({ kind: 'bam', gzip: true });
    expect(detectFormat('table.CSV')).toEqual({ kind: 'tabular', gzip: false, delimiter: ',' });
    expect(detectFormat('x.bed')).toMatchObject({ kind: 'tabular', delimiter: '\t' });
    expect(detectFormat('report', 'application/pdf').kind).toBe('pdf');
    expect(detectFormat('photo', 'image/png').kind).toBe('image');
    expect(detectFormat('index.html').kind).toBe('html');
    expect(detectFormat('archive.tar.gz').kind).toBe('binary');
    expect(looksBinary(new Uint8Array([104, 105, 0, 1]))).toBe(true);
    expect(looksBinary(new TextEncoder().encode('ACGT\n'))).toBe(false);
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(30 * 1024 * 1024)).toBe('30.0 MB');
  });
});

describe('genomics summaries', () => {
  it('summarises FASTQ records, ignoring a truncated last record', () => {
    const text = '@r1 extra\nACGT\n+\nIIII\n@r2\nGGCCAA\n+\n######\n@r3\nAC';
    const summary = summarizeFastq(text, false);
    expect(summary).toMatchObject({ format: 'fastq', records: 2, bases: 10, minLength: 4, maxLength: 6, names: ['r1', 'r2'], partial: true });
    expect(summary.gc).toBeCloseTo(6 / 10);
    expect(summary.meanQuality).toBeCloseTo((4 * 40 + 6 * 2) / 10);
  });

  it('summarises FASTA sequences over several lines', () => {
    const summary = summarizeFasta('>chr1 desc\nACGT\nAC\n>chr2\nGG\n', true);
    expect(summary).toMatchObject({ records: 2, bases: 8, minLength: 2, maxLength: 6, names: ['chr1', 'chr2'], partial: false });
  });

  it('parses CSV with quotes and TSV', () => {
    expect(parseDelimited('a,"b,c","say ""hi"""\n1,2,3\n', ',', true)).toEqual([
      ['a', 'b,c', 'say "hi"'],
      ['1', '2', '3'],
    ]);
    expect(parseDelimited('x\ty\nz', '\t', false)).toEqual([['x', 'y']]);
  });
});

describe('BGZF and BAM heads', () => {
  it('splits complete blocks, inflates them and stops at a truncated one', async () => {
    const file = bgzf(new TextEncoder().encode('##fileformat=VCFv4.2\n'), new TextEncoder().encode('chrT\t1000\t.\tA\tG\n'));
    expect(bgzfBlocks(file)).toHaveLength(3);
    const whole = await inflateHead(file, true);
    expect(new TextDecoder().decode(whole.data)).toBe('##fileformat=VCFv4.2\nchrT\t1000\t.\tA\tG\n');
    expect(whole.complete).toBe(true);
    const cut = await inflateHead(file.subarray(0, file.length - 40), false);
    expect(new TextDecoder().decode(cut.data)).toBe('##fileformat=VCFv4.2\n');
    expect(cut.complete).toBe(false);
  });

  it('inflates what a truncated plain gzip stream yields', async () => {
    const text = 'line\n'.repeat(20_000);
    const gz = new Uint8Array(zlib.gzipSync(text));
    const head = await inflateHead(gz.subarray(0, Math.floor(gz.length / 2)), false);
    expect(head.complete).toBe(false);
    expect(text.startsWith(new TextDecoder().decode(head.data))).toBe(true);
  });

  it('reads the BAM header and first records', async () => {
    const raw = bamBytes([
      { name: 'read1', pos: 999, seq: 'ACGTACGT' },
      { name: 'read2', pos: 1999, seq: 'GGGCCC' },
    ]);
    const { data } = await inflateHead(bgzf(raw.subarray(0, 50), raw.subarray(50)), true);
    const header = parseBamHeader(data);
    expect(header?.text).toContain('@SQ\tSN:chrT');
    expect(header?.references).toEqual([{ name: 'chrT', length: 50_000 }]);
    const spans = bamRecordSpans(data, header?.dataStart ?? 0, 10);
    expect(spans).toHaveLength(2);
    const { BamRecord } = await import('@gmod/bam');
    const first = spans[0] ?? { start: 0, end: 0 };
    const record = new BamRecord({ bytes: { byteArray: data, start: first.start, end: first.end }, fileOffset: 0 });
    expect(record.name).toBe('read1');
    expect(record.start).toBe(999);
    expect(record.CIGAR).toBe('8M');
    expect(record.seq).toBe('ACGTACGT');
    expect(() => parseBamHeader(new TextEncoder().encode('not a bam file'))).toThrow(/Not a BAM/);
  });
});
