/** The first bytes of a file, decompressed when it is gzip/BGZF: what every genomics view starts from. */
import { inflateHead } from './bgzf';
import { readFileRange } from './bytes';

export const VIEWER_HEAD_BYTES = 1024 * 1024;

export interface Head {
  /** Decompressed (or raw) bytes. */
  data: Uint8Array;
  /** Everything the file holds was read (and decompressed). */
  complete: boolean;
  /** Compressed bytes read. */
  read: number;
}

export async function readHead(fileId: string, project: string, size: number, gzip: boolean, bytes = VIEWER_HEAD_BYTES): Promise<Head> {
  const end = Math.min(size, bytes);
  const raw = await readFileRange(fileId, project, 0, end);
  const whole = end >= size;
  if (!gzip) return { data: raw, complete: whole, read: raw.length };
  const inflated = await inflateHead(raw, whole);
  return { data: inflated.data, complete: inflated.complete, read: raw.length };
}

/** Text lines of a head: the last line is dropped unless the head is complete (it may be cut). */
export function headLines(head: Head): string[] {
  const lines = new TextDecoder().decode(head.data).split(/\r?\n/);
  if (!head.complete) lines.pop();
  else if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
