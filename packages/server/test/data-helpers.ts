import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PanxClient } from '@panx/client';
import { expect } from 'vitest';
import type { Platform } from '../src/app.js';
import { UrlSigner } from '../src/lib/signing.js';
import { blobKeyOf } from '../src/modules/files/files.service.js';
import { BlobNotFoundError } from '../src/storage/blob-store.js';

export const MiB = 1024 * 1024;
/** The smallest part but the last (DNAnexus and S3). */
export const MIN_PART = 5 * MiB;

export const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');
export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
export const random = (size: number) => randomBytes(size);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PutResult {
  status: number;
  body: unknown;
}

/** Asks for an upload URL (declaring size and md5, as dxpy does) and PUTs the bytes with exactly the returned headers. */
export async function putPart(client: PanxClient, fileId: string, index: number, bytes: Buffer): Promise<PutResult> {
  const { url, headers } = await client.call('file-xxxx/upload', fileId, { index, size: bytes.length, md5: md5(bytes) });
  expect(Object.keys(headers).map((name) => name.toLowerCase())).not.toContain('authorization');
  return rawPut(url, headers, bytes);
}

export async function rawPut(url: string, headers: Record<string, string>, bytes: Buffer | ReadableStream<Uint8Array>): Promise<PutResult> {
  // A Buffer is a Uint8Array (a BodyInit under the DOM lib too, which the web app's e2e suites type-check with).
  const init: RequestInit & { duplex?: 'half' } = { method: 'PUT', headers, body: Buffer.isBuffer(bytes) ? new Uint8Array(bytes) : bytes };
  if (!Buffer.isBuffer(bytes)) init.duplex = 'half';
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body };
}

/** A body sent without Content-Length (chunked), so that only the server's own count can catch a wrong size. */
export function chunked(bytes: Buffer): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new Uint8Array(bytes));
      controller.close();
    },
  });
}

export async function expectPutOk(result: PutResult, bytes: Buffer): Promise<void> {
  expect(result, JSON.stringify(result.body)).toMatchObject({ status: 200, body: { md5: md5(bytes), size: bytes.length } });
}

export function expectPutError(result: PutResult, status: number, type: string): void {
  expect(result.status, JSON.stringify(result.body)).toBe(status);
  expect((result.body as { error?: { type?: string } }).error?.type).toBe(type);
}

export async function waitForState(client: PanxClient, fileId: string, state: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const described = (await client.call('file-xxxx/describe', fileId, {})) as Record<string, unknown>;
    if (described.state === state) return described;
    if (Date.now() > deadline) throw new Error(`${fileId} stayed ${String(described.state)}, expected ${state}`);
    await sleep(25);
  }
}

/** file/new, one PUT per part, close, and (by default) wait until closed. */
export async function uploadFile(
  client: PanxClient,
  project: string,
  parts: Buffer[],
  options: { name?: string; folder?: string; media?: string; parents?: boolean; tags?: string[]; close?: boolean } = {},
): Promise<string> {
  const { close = true, ...rest } = options;
  const { id } = await client.call('file/new', { project, ...rest });
  for (const [i, bytes] of parts.entries()) await expectPutOk(await putPart(client, id, i + 1, bytes), bytes);
  if (close) {
    await client.call('file-xxxx/close', id, {});
    await waitForState(client, id, 'closed');
  }
  return id;
}

export async function fetchBytes(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

export async function downloadBytes(client: PanxClient, fileId: string, project?: string): Promise<Buffer> {
  const { url, headers } = await client.call('file-xxxx/download', fileId, project ? { project } : {});
  const got = await fetchBytes(url, headers);
  expect(got.status).toBe(200);
  return got.bytes;
}

/** Whether the blob store holds the assembled bytes of the file. */
export async function blobExists(platform: Platform, fileId: string): Promise<boolean> {
  try {
    const stream = await platform.blobs.read(blobKeyOf(fileId));
    stream.destroy();
    return true;
  } catch (error) {
    if (error instanceof BlobNotFoundError) return false;
    throw error;
  }
}

export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(25);
  }
}

/** A signer with the platform's own secret, to make validly signed URLs that have already expired. */
export function platformSigner(platform: Platform): UrlSigner {
  const secret = platform.config.signingSecret ?? fs.readFileSync(path.join(platform.config.dataDir, 'signing.key'), 'utf8').trim();
  return new UrlSigner(secret);
}
