/**
 * Reading the start of gzip/BGZF files in the browser without WebAssembly (the app's
 * Content-Security-Policy allows none): complete BGZF blocks are inflated with the platform's
 * DecompressionStream, and the BAM header and first alignments are decoded from them (records through
 * @gmod/bam's BamRecord). Only the bytes given are used: callers pass a Range read of the file's head.
 */

export interface BgzfBlock {
  start: number;
  /** Exclusive. */
  end: number;
}

/**
 * The complete BGZF blocks at the start of `bytes` (a block's size is in its BC extra field). Stops at
 * the first incomplete block or at bytes that are not BGZF; an empty list means "not BGZF".
 */
export function bgzfBlocks(bytes: Uint8Array): BgzfBlock[] {
  const blocks: BgzfBlock[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  while (offset + 18 <= bytes.length) {
    if (bytes[offset] !== 0x1f || bytes[offset + 1] !== 0x8b || bytes[offset + 2] !== 8 || ((bytes[offset + 3] ?? 0) & 4) === 0) break;
    const extraLength = view.getUint16(offset + 10, true);
    let size: number | undefined;
    for (let p = offset + 12; p + 4 <= offset + 12 + extraLength; ) {
      const length = view.getUint16(p + 2, true);
      if (bytes[p] === 66 && bytes[p + 1] === 67 && length === 2) size = view.getUint16(p + 4, true) + 1;
      p += 4 + length;
    }
    if (size === undefined || offset + size > bytes.length) break;
    blocks.push({ start: offset, end: offset + size });
    offset += size;
  }
  return blocks;
}

async function inflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/**
 * Inflates the head of a gzip or BGZF file. BGZF: every complete block. Plain gzip (one member): as much
 * as the truncated stream yields. `complete` tells whether the whole file was inflated.
 */
export async function inflateHead(bytes: Uint8Array, wholeFile: boolean): Promise<{ data: Uint8Array; complete: boolean }> {
  const blocks = bgzfBlocks(bytes);
  if (blocks.length > 0) {
    const parts: Uint8Array[] = [];
    for (const block of blocks) parts.push(await inflate(bytes.subarray(block.start, block.end)));
    const last = blocks[blocks.length - 1];
    return { data: concat(parts), complete: wholeFile && last !== undefined && last.end === bytes.length };
  }
  // Plain gzip: collect what the decompressor emits before it reaches the truncation.
  const chunks: Uint8Array[] = [];
  const reader = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  let complete = wholeFile;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
  } catch {
    complete = false;
  }
  return { data: concat(chunks), complete };
}

export interface BamReference {
  name: string;
  length: number;
}

export interface BamHeader {
  text: string;
  references: BamReference[];
  /** Offset of the first alignment in the inflated bytes. */
  dataStart: number;
}

const BAM_MAGIC = 0x014d4142; // "BAM\1" little-endian

/** The BAM header from inflated bytes, or undefined when they end before it does. Throws for non-BAM. */
export function parseBamHeader(data: Uint8Array): BamHeader | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length < 12) return undefined;
  if (view.getUint32(0, true) !== BAM_MAGIC) throw new Error('Not a BAM file (no BAM magic after decompression)');
  const textLength = view.getInt32(4, true);
  if (8 + textLength + 4 > data.length) return undefined;
  const decoder = new TextDecoder();
  const text = decoder.decode(data.subarray(8, 8 + textLength)).replace(/\0+$/, '');
  let offset = 8 + textLength;
  const count = view.getInt32(offset, true);
  offset += 4;
  const references: BamReference[] = [];
  for (let index = 0; index < count; index++) {
    if (offset + 4 > data.length) return undefined;
    const nameLength = view.getInt32(offset, true);
    if (offset + 4 + nameLength + 4 > data.length) return undefined;
    const name = decoder.decode(data.subarray(offset + 4, offset + 4 + nameLength - 1));
    const length = view.getInt32(offset + 4 + nameLength, true);
    references.push({ name, length });
    offset += 4 + nameLength + 4;
  }
  return { text, references, dataStart: offset };
}

/** [start, end) of each complete alignment record after the header (block_size-prefixed), at most `max`. */
export function bamRecordSpans(data: Uint8Array, dataStart: number, max: number): { start: number; end: number }[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const spans: { start: number; end: number }[] = [];
  let offset = dataStart;
  while (spans.length < max && offset + 4 <= data.length) {
    const blockSize = view.getInt32(offset, true);
    if (blockSize < 32 || offset + 4 + blockSize > data.length) break;
    spans.push({ start: offset, end: offset + 4 + blockSize });
    offset += 4 + blockSize;
  }
  return spans;
}
