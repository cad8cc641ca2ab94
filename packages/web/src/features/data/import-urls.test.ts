import { describe, expect, it } from 'vitest';
import { displayUrl, expectedName, MAX_IMPORT_URLS, parseUrlList, textWithoutStarted } from './import-urls';

describe('parseUrlList', () => {
  it('keeps http, https and ftp URLs once each, skipping blank and comment lines', () => {
    const text = ' https://example.org/a.vcf.gz \n\n# a comment\nftp://ftp.example.org/b.bam\r\nhttps://example.org/a.vcf.gz\nHTTP://EXAMPLE.org/c';
    expect(parseUrlList(text)).toEqual({
      urls: ['https://example.org/a.vcf.gz', 'ftp://ftp.example.org/b.bam', 'http://example.org/c'],
      problems: [],
    });
  });

  it('names the lines it rejects and why', () => {
    expect(parseUrlList('file:///etc/passwd\nnot a url\nhttps://ok.example/x')).toEqual({
      urls: ['https://ok.example/x'],
      problems: ['Line 1: only http, https and ftp URLs can be imported (not file)', 'Line 2: not a URL'],
    });
  });

  it(`refuses more than ${MAX_IMPORT_URLS} URLs`, () => {
    const text = Array.from({ length: MAX_IMPORT_URLS + 1 }, (_, i) => `https://example.org/${i}`).join('\n');
    expect(parseUrlList(text).problems).toEqual([`At most ${MAX_IMPORT_URLS} URLs at a time (${MAX_IMPORT_URLS + 1} given)`]);
  });
});

describe('names and display', () => {
  it('expects the decoded last path segment, or the host when there is none', () => {
    expect(expectedName('https://example.org/data/sample%201.vcf?x=1')).toBe('sample 1.vcf');
    expect(expectedName('https://example.org/')).toBe('example.org');
  });

  it('never shows credentials', () => {
    expect(displayUrl('https://reader:s3cret@example.org/a')).toBe('https://example.org/a');
  });
});

describe('textWithoutStarted', () => {
  it('removes the lines of started URLs however they were written, and keeps the rest as typed', () => {
    const text = 'HTTP://EXAMPLE.org/c\n# keep this note\nhttps://example.org\n https://example.org/a.vcf.gz \nnot a url\nhttps://example.org/b';
    const started = parseUrlList(text).urls.slice(0, 3);
    expect(started).toEqual(['http://example.org/c', 'https://example.org/', 'https://example.org/a.vcf.gz']);
    expect(textWithoutStarted(text, started)).toBe('# keep this note\nnot a url\nhttps://example.org/b');
  });

  it('removes every line of a URL given twice', () => {
    expect(textWithoutStarted('https://example.org/a\r\nhttps://example.org/b\r\nhttps://example.org/a', ['https://example.org/a'])).toBe(
      'https://example.org/b',
    );
  });
});
