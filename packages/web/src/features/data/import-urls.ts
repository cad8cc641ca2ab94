/**
 * "Import from URLs": the text the user pastes, one URL per line, checked before any job starts.
 * Each URL becomes one run of the url_fetcher app (the server fetches it into the project).
 */

/** At most this many URLs per import: each is a job, and a paste of thousands is more likely a mistake. */
export const MAX_IMPORT_URLS = 100;
export const URL_FETCHER_APP = 'app-url_fetcher';
const SCHEMES = new Set(['http:', 'https:', 'ftp:']);

export interface ParsedUrlList {
  urls: string[];
  /** One message per rejected line, with its 1-based line number. */
  problems: string[];
}

/** Blank lines and lines starting with # are skipped; duplicates are kept once. */
export function parseUrlList(text: string): ParsedUrlList {
  const urls: string[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    let parsed: URL;
    try {
      parsed = new URL(line);
    } catch {
      problems.push(`Line ${index + 1}: not a URL`);
      return;
    }
    if (!SCHEMES.has(parsed.protocol)) {
      problems.push(`Line ${index + 1}: only http, https and ftp URLs can be imported (not ${parsed.protocol.replace(/:$/, '')})`);
      return;
    }
    if (seen.has(parsed.href)) return;
    seen.add(parsed.href);
    urls.push(parsed.href);
  });
  if (urls.length > MAX_IMPORT_URLS) problems.push(`At most ${MAX_IMPORT_URLS} URLs at a time (${urls.length} given)`);
  return { urls, problems };
}

/** A line's URL as parseUrlList keeps it (`HTTP://Example.org` → `http://example.org/`), or undefined. */
function normalisedUrl(line: string): string | undefined {
  try {
    return new URL(line.trim()).href;
  } catch {
    return undefined;
  }
}

/**
 * The pasted text without the lines whose URL has already started an import (compared as parseUrlList
 * compares them, so `HTTP://EXAMPLE.org/c` goes with `http://example.org/c`): what is left to try again
 * after a failure part-way, so that nothing is imported twice.
 */
export function textWithoutStarted(text: string, startedUrls: readonly string[]): string {
  const started = new Set(startedUrls);
  return text
    .split(/\r?\n/)
    .filter((line) => {
      const url = normalisedUrl(line);
      return url === undefined || !started.has(url);
    })
    .join('\n');
}

/** The file name the import will most likely get: the URL's last path segment (the job may learn a better one). */
export function expectedName(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').pop() ?? '';
    return decodeURIComponent(last) || new URL(url).hostname;
  } catch {
    return url;
  }
}

/** The URL as shown to people: user and password removed. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}
