/**
 * A media type for a closed file whose uploader named none, from its first bytes (as DNAnexus
 * sniffs content). BAM, bgzipped VCF and FASTQ.gz are all gzip streams, so they read as gzip.
 */
export function sniffMediaType(head: Buffer): string {
  if (head.length === 0) return 'application/x-empty';
  const starts = (...bytes: number[]) => bytes.every((byte, i) => head[i] === byte);
  if (starts(0x1f, 0x8b)) return 'application/x-gzip';
  if (starts(0x42, 0x5a, 0x68)) return 'application/x-bzip2';
  if (starts(0x50, 0x4b, 0x03, 0x04)) return 'application/zip';
  if (starts(0x25, 0x50, 0x44, 0x46)) return 'application/pdf';
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x43, 0x52, 0x41, 0x4d)) return 'application/octet-stream'; // CRAM
  const text = head.toString('utf8');
  if (text.includes('\uFFFD') || hasControlBytes(head)) return 'application/octet-stream';
  if (/^\s*<(!doctype html|html)/i.test(text)) return 'text/html';
  return 'text/plain';
}

/** Bytes below 0x20 other than tab, newline, vertical tab, form feed and carriage return mark binary data. */
function hasControlBytes(head: Buffer): boolean {
  return head.some((byte) => byte < 0x20 && (byte < 0x09 || byte > 0x0d));
}
