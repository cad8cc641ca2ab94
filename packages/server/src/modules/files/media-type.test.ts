import { describe, expect, it } from 'vitest';
import { sniffMediaType } from './media-type.js';

describe('sniffMediaType', () => {
  it.each([
    ['gzip (also BAM, VCF.gz)', Buffer.from([0x1f, 0x8b, 0x08, 0x04]), 'application/x-gzip'],
    ['FASTA text', Buffer.from('>chr1\nACGT\n'), 'text/plain'],
    ['PDF', Buffer.from('%PDF-1.7'), 'application/pdf'],
    ['PNG', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]), 'image/png'],
    ['HTML', Buffer.from('<!DOCTYPE html><html>'), 'text/html'],
    ['binary', Buffer.from([0x00, 0x01, 0x02, 0x03]), 'application/octet-stream'],
    ['empty', Buffer.alloc(0), 'application/x-empty'],
  ])('%s', (_name, head, expected) => {
    expect(sniffMediaType(head)).toBe(expected);
  });
});
