/**
 * Readable summaries of genomics text formats from the first bytes of a file (never the whole file):
 * FASTA and FASTQ statistics and delimited tables. Pure; a last incomplete line or record is ignored.
 */

export interface FastxSummary {
  format: 'fasta' | 'fastq';
  records: number;
  bases: number;
  minLength: number;
  maxLength: number;
  meanLength: number;
  /** 0..1 over A/C/G/T bases. */
  gc: number;
  /** Mean Phred quality (Sanger offset 33); FASTQ only. */
  meanQuality?: number;
  /** First record names, at most 20. */
  names: string[];
  /** The summary covers only the bytes read. */
  partial: boolean;
}

function completeLines(text: string, complete: boolean): string[] {
  const lines = text.split(/\r?\n/);
  if (!complete) lines.pop();
  return lines;
}

export function summarizeFastq(text: string, complete: boolean): FastxSummary {
  const lines = completeLines(text, complete);
  const lengths: number[] = [];
  const names: string[] = [];
  let gc = 0;
  let acgt = 0;
  let qualitySum = 0;
  let qualityCount = 0;
  for (let index = 0; index + 3 < lines.length; index += 4) {
    const header = lines[index] ?? '';
    const sequence = lines[index + 1] ?? '';
    const quality = lines[index + 3] ?? '';
    if (!header.startsWith('@')) break;
    if (quality.length !== sequence.length) break;
    lengths.push(sequence.length);
    if (names.length < 20) names.push(header.slice(1).split(/\s/)[0] ?? '');
    for (const base of sequence.toUpperCase()) {
      if (base === 'G' || base === 'C') gc++;
      if (base === 'A' || base === 'C' || base === 'G' || base === 'T') acgt++;
    }
    for (let i = 0; i < quality.length; i++) qualitySum += quality.charCodeAt(i) - 33;
    qualityCount += quality.length;
  }
  return summary('fastq', lengths, names, gc, acgt, !complete, qualityCount ? qualitySum / qualityCount : undefined);
}

export function summarizeFasta(text: string, complete: boolean): FastxSummary {
  const lines = completeLines(text, complete);
  const lengths: number[] = [];
  const names: string[] = [];
  let gc = 0;
  let acgt = 0;
  let current = -1;
  for (const line of lines) {
    if (line.startsWith('>')) {
      lengths.push(0);
      current = lengths.length - 1;
      if (names.length < 20) names.push(line.slice(1).split(/\s/)[0] ?? '');
      continue;
    }
    if (current < 0) continue;
    const sequence = line.trim();
    lengths[current] = (lengths[current] ?? 0) + sequence.length;
    for (const base of sequence.toUpperCase()) {
      if (base === 'G' || base === 'C') gc++;
      if (base === 'A' || base === 'C' || base === 'G' || base === 'T') acgt++;
    }
  }
  return summary('fasta', lengths, names, gc, acgt, !complete);
}

function summary(
  format: 'fasta' | 'fastq',
  lengths: number[],
  names: string[],
  gc: number,
  acgt: number,
  partial: boolean,
  meanQuality?: number,
): FastxSummary {
  const bases = lengths.reduce((sum, length) => sum + length, 0);
  return {
    format,
    records: lengths.length,
    bases,
    minLength: lengths.length ? Math.min(...lengths) : 0,
    maxLength: lengths.length ? Math.max(...lengths) : 0,
    meanLength: lengths.length ? bases / lengths.length : 0,
    gc: acgt ? gc / acgt : 0,
    ...(meanQuality !== undefined ? { meanQuality } : {}),
    names,
    partial,
  };
}

/** Rows of a CSV or TSV text (quoted CSV fields with doubled quotes); at most `maxRows`. */
export function parseDelimited(text: string, delimiter: ',' | '\t', complete: boolean, maxRows = 500): string[][] {
  const lines = completeLines(text, complete).filter((line) => line !== '');
  const rows: string[][] = [];
  for (const line of lines) {
    if (rows.length >= maxRows) break;
    if (delimiter === '\t') {
      rows.push(line.split('\t'));
      continue;
    }
    const cells: string[] = [];
    let cell = '';
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const char = line[i];
      if (quoted) {
        if (char === '"' && line[i + 1] === '"') {
          cell += '"';
          i++;
        } else if (char === '"') quoted = false;
        else cell += char;
      } else if (char === '"' && cell === '') quoted = true;
      else if (char === ',') {
        cells.push(cell);
        cell = '';
      } else cell += char;
    }
    cells.push(cell);
    rows.push(cells);
  }
  return rows;
}
