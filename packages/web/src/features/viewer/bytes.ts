/**
 * Byte reads of a file for previews: a short-lived signed URL from file-xxxx/download, then HTTP Range
 * requests on it, so a preview never downloads a large file whole. This is the one place outside the
 * API client that fetches: signed URLs are not API calls (they carry their own credential).
 */
import { api } from '../../lib/api';

const urls = new Map<string, { url: string; expires: number }>();

export async function signedUrl(fileId: string, project: string, filename?: string): Promise<string> {
  const key = `${project}/${fileId}`;
  const cached = urls.get(key);
  if (cached && cached.expires - Date.now() > 60_000) return cached.url;
  const result = await api().call('file-xxxx/download', fileId, { project, duration: 900, ...(filename ? { filename } : {}) });
  urls.set(key, { url: result.url, expires: result.expires || Date.now() + 900_000 });
  return result.url;
}

/** Bytes [start, end) of the file (end exclusive); fewer when the file is shorter. */
export async function readRange(url: string, start: number, end: number, signal?: AbortSignal): Promise<Uint8Array> {
  if (end <= start) return new Uint8Array(0);
  const response = await fetch(url, { headers: { range: `bytes=${start}-${end - 1}` }, signal, credentials: 'omit' });
  if (response.status === 416) return new Uint8Array(0);
  if (!response.ok) throw new Error(`Could not read the file (HTTP ${response.status})`);
  const buffer = new Uint8Array(await response.arrayBuffer());
  // A server that ignores Range answers 200 with everything: keep only what was asked for.
  return response.status === 200 ? buffer.subarray(start, end) : buffer;
}

export async function readFileRange(fileId: string, project: string, start: number, end: number, signal?: AbortSignal): Promise<Uint8Array> {
  return readRange(await signedUrl(fileId, project), start, end, signal);
}
