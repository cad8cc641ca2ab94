import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Services } from '../app.js';
import type { Caller } from '../modules/auth/caller.js';
import { type SyntheticGenome, type SyntheticGenomeOptions, syntheticGenome } from './synthetic-genome.js';

/** One file the demo project gets. */
export interface DemoFile {
  folder: string;
  name: string;
  media: string;
  bytes: Buffer;
  types?: string[];
}

/**
 * The demo data set's files, as they land in the demo project: the reference and the planted SNPs in
 * /reference, the gzipped read pairs in /reads. Names follow the conventions the bundled apps read
 * (sample1_R1/_R2 → sample "sample1").
 */
export function demoFiles(genome: SyntheticGenome): DemoFile[] {
  const { contig, sample } = genome.options;
  return [
    { folder: '/reference', name: `${contig}.fa`, media: 'text/x-fasta', bytes: Buffer.from(genome.referenceFasta), types: ['Reference'] },
    { folder: '/reference', name: `${contig}.planted_snps.tsv`, media: 'text/tab-separated-values', bytes: Buffer.from(genome.truthTsv) },
    { folder: '/reads', name: `${sample}_R1.fastq.gz`, media: 'application/gzip', bytes: genome.reads1FastqGz, types: ['Reads'] },
    { folder: '/reads', name: `${sample}_R2.fastq.gz`, media: 'application/gzip', bytes: genome.reads2FastqGz, types: ['Reads'] },
  ];
}

export interface DemoDataResult {
  genome: SyntheticGenome;
  /** `<folder>/<name>` → file ID. */
  files: Record<string, string>;
}

/**
 * Generates the synthetic data set and uploads it into `project` through the service layer (file/new,
 * one part, close), as the given caller, and waits until every file is closed. About 50 ms for the
 * default data set (250 KB of reads). Files are tagged `synthetic` and carry the generator's options
 * in their details, so that anyone can make the same data again.
 */
export async function loadDemoData(
  services: Pick<Services, 'files' | 'folders'>,
  caller: Caller,
  project: string,
  options: SyntheticGenomeOptions = {},
  now: number = Date.now(),
): Promise<DemoDataResult> {
  const genome = syntheticGenome(options);
  const details = { generator: 'panx synthetic-genome', ...genome.options, plantedSnps: genome.truth.length };
  const files: Record<string, string> = {};
  for (const folder of new Set(demoFiles(genome).map((file) => file.folder))) await services.folders.newFolder(caller, project, { folder, parents: true });
  for (const file of demoFiles(genome)) {
    const { id } = await services.files.create(
      caller,
      { project, folder: file.folder, name: file.name, media: file.media, tags: ['synthetic'], types: file.types, details },
      now,
    );
    const md5 = createHash('md5').update(file.bytes).digest('hex');
    const { url } = await services.files.uploadUrl(caller, id, { index: 1, size: file.bytes.length, md5 }, now);
    const query = Object.fromEntries(new URL(url).searchParams);
    await services.files.receivePart({ id, index: 1, query, body: Readable.from([file.bytes]), contentLength: file.bytes.length }, now);
    await services.files.close(caller, id, now);
    await services.files.finishClosing(id);
    files[`${file.folder}/${file.name}`] = id;
  }
  return { genome, files };
}
