import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticGenome } from '../src/demo/synthetic-genome.js';
import { requireBioTools, run, truthCalls, vcfCalls, writeGenome } from './apps-helpers.js';

/**
 * The germline pipeline of the bundled apps, run directly with the Debian tools (no platform) on the
 * synthetic data set: it must call exactly the planted SNPs, with their genotypes. This pins the data
 * set and the commands the apps use; the apps themselves are tested in apps.jobs.int.test.ts.
 */

const PIPELINE = String.raw`
set -euo pipefail
samtools faidx ref.fa
bwa index ref.fa 2>/dev/null
fastp --in1 sample1_R1.fastq.gz --in2 sample1_R2.fastq.gz --out1 t1.fastq.gz --out2 t2.fastq.gz \
  --detect_adapter_for_pe --thread 2 --html fastp.html --json fastp.json 2>/dev/null
bwa mem -t 2 -R '@RG\tID:sample1\tSM:sample1\tPL:ILLUMINA' ref.fa t1.fastq.gz t2.fastq.gz 2>/dev/null | samtools view -b -o aln.bam -
samtools sort -@ 2 -o aln.sorted.bam aln.bam 2>/dev/null
samtools index aln.sorted.bam
bcftools mpileup -f ref.fa -a AD,DP -Ou aln.sorted.bam 2>/dev/null | bcftools call -m -v -Ov 2>/dev/null | bgzip > calls.vcf.gz
tabix -p vcf calls.vcf.gz
minimap2 -a -x sr -t 2 -R '@RG\tID:sample1\tSM:sample1' ref.fa sample1_R1.fastq.gz sample1_R2.fastq.gz 2>/dev/null | samtools sort -o mm2.bam - 2>/dev/null
samtools index mm2.bam
bcftools mpileup -f ref.fa -Ou mm2.bam 2>/dev/null | bcftools call -m -v -Oz -o mm2.vcf.gz 2>/dev/null
seqtk sample -s 11 sample1_R1.fastq.gz 500 | gzip > sub1.fastq.gz
seqtk sample -s 11 sample1_R2.fastq.gz 500 | gzip > sub2.fastq.gz
samtools view -c -F 0x904 aln.sorted.bam > mapped.txt
`;

describe('germline pipeline on the synthetic data, with the Debian tools', () => {
  const genome = syntheticGenome();
  let dir: string;

  beforeAll(() => {
    requireBioTools();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-pipeline-'));
    writeGenome(dir, genome);
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('calls exactly the planted SNPs (POS, REF, ALT, genotype) with bwa mem and with minimap2', async () => {
    const result = await run('bash', ['-c', PIPELINE], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const expected = truthCalls(genome.truth);
    expect(expected).toHaveLength(10);
    expect(vcfCalls(fs.readFileSync(path.join(dir, 'calls.vcf.gz')))).toEqual(expected);
    expect(vcfCalls(fs.readFileSync(path.join(dir, 'mm2.vcf.gz')))).toEqual(expected);
    expect(fs.existsSync(path.join(dir, 'calls.vcf.gz.tbi'))).toBe(true);
    // Every read maps (the reference is random, so no read has a second home).
    expect(Number(fs.readFileSync(path.join(dir, 'mapped.txt'), 'utf8'))).toBe(4000);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'fastp.json'), 'utf8')) as { summary: { after_filtering: { total_reads: number } } };
    expect(report.summary.after_filtering.total_reads).toBe(4000);
    // seqtk with one seed keeps the mates in step.
    const names = async (file: string) =>
      (await run('bash', ['-c', `gzip -dc ${file} | awk 'NR % 4 == 1 { sub(/\\/[12]$/, ""); print }'`], { cwd: dir })).stdout;
    const [first, second] = await Promise.all([names('sub1.fastq.gz'), names('sub2.fastq.gz')]);
    expect(first.trim().split('\n')).toHaveLength(500);
    expect(second).toBe(first);
  });
});
