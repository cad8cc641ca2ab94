/**
 * What kind of file an object is, for the preview and the file viewer, and the byte ranges a preview
 * reads (SPEC §9: chunks of 5,120 bytes, at most 102,400). Pure.
 */
import { FILE_PREVIEW_CHUNK_BYTES, FILE_PREVIEW_MAX_BYTES } from '@panx/contract';

export type FileKind = 'text' | 'image' | 'pdf' | 'html' | 'tabular' | 'fasta' | 'fastq' | 'vcf' | 'bam' | 'cram' | 'binary';

export interface FileFormat {
  kind: FileKind;
  /** gzip or BGZF compressed (`.gz`, `.bgz`). */
  gzip: boolean;
  /** Column separator of tabular files. */
  delimiter?: ',' | '\t';
}

const EXTENSIONS: Record<string, FileKind> = {
  txt: 'text',
  log: 'text',
  md: 'text',
  json: 'text',
  yaml: 'text',
  yml: 'text',
  sh: 'text',
  py: 'text',
  r: 'text',
  wdl: 'text',
  nf: 'text',
  cwl: 'text',
  xml: 'text',
  sam: 'tabular',
  bed: 'tabular',
  gff: 'tabular',
  gff3: 'tabular',
  gtf: 'tabular',
  csv: 'tabular',
  tsv: 'tabular',
  tab: 'tabular',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  svg: 'image',
  bmp: 'image',
  pdf: 'pdf',
  html: 'html',
  htm: 'html',
  fa: 'fasta',
  fasta: 'fasta',
  fna: 'fasta',
  faa: 'fasta',
  fq: 'fastq',
  fastq: 'fastq',
  vcf: 'vcf',
  bcf: 'binary',
  bam: 'bam',
  cram: 'cram',
};

export function detectFormat(name: string, media?: string): FileFormat {
  const lower = name.toLowerCase();
  const gzip = /\.(gz|bgz|bgzf)$/.test(lower);
  const base = gzip ? lower.replace(/\.(gz|bgz|bgzf)$/, '') : lower;
  const extension = base.includes('.') ? base.slice(base.lastIndexOf('.') + 1) : '';
  let kind: FileKind | undefined = EXTENSIONS[extension];
  if (!kind && media) {
    if (media.startsWith('image/')) kind = 'image';
    else if (media === 'application/pdf') kind = 'pdf';
    else if (media === 'text/html') kind = 'html';
    else if (media === 'text/csv') kind = 'tabular';
    else if (media.startsWith('text/') || media === 'application/json') kind = 'text';
  }
  kind ??= gzip ? 'binary' : 'text';
  // A BAM is BGZF inside; its name has no .gz. Everything else gzipped is decompressed for a preview.
  const delimiter = kind === 'tabular' ? (extension === 'csv' ? ',' : '\t') : undefined;
  return { kind, gzip: gzip || kind === 'bam', ...(delimiter ? { delimiter } : {}) };
}

/** The next byte range of a preview (end exclusive), or undefined when done or at the 102,400-byte cap. */
export function nextPreviewRange(loaded: number, size: number): { start: number; end: number } | undefined {
  const limit = Math.min(size, FILE_PREVIEW_MAX_BYTES);
  if (loaded >= limit) return undefined;
  return { start: loaded, end: Math.min(limit, loaded + FILE_PREVIEW_CHUNK_BYTES) };
}

export function previewState(loaded: number, size: number): { canLoadMore: boolean; capped: boolean } {
  return { canLoadMore: nextPreviewRange(loaded, size) !== undefined, capped: loaded >= FILE_PREVIEW_MAX_BYTES && size > FILE_PREVIEW_MAX_BYTES };
}

/** Text or binary: NUL bytes or mostly control characters in the first bytes mean binary. */
export function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 4096);
  if (sample.length === 0) return false;
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 9 || (byte > 13 && byte < 32)) control++;
  }
  return control / sample.length > 0.1;
}

/** Readable size: `0 B`, `5.0 KB`, `1.2 GB` (1024-based, as the CLI prints). */
export function formatBytes(size: number | undefined): string {
  if (size === undefined || !Number.isFinite(size)) return '--';
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let value = size;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}
