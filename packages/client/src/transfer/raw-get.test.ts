import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { lentMd5Slots } from '@panx/md5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountSmall } from '../../../../test-support/mounts.js';
import { Md5Stream } from './md5.js';
import { TransferError } from './progress.js';
import { dechunk, RawGetUnsupported, type RawGetTarget, rawGetInto } from './raw-get.js';

const MiB = 1024 * 1024;
// Parts of 5 MiB and a short last one: slots (4 MiB) and reads cross neither a part's end nor the file's.
const PART_SIZES = [5 * MiB, 5 * MiB, 5 * MiB, 1234];
const data = randomBytes(PART_SIZES.reduce((sum, size) => sum + size, 0));
const parts = PART_SIZES.map((size, index) => ({ index: index + 1, size, offset: PART_SIZES.slice(0, index).reduce((sum, s) => sum + s, 0) }));
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** How the test server answers the next GET. */
let mode: 'normal' | 'ignore-range' | 'forbidden' | 'chunked' | 'cut' | 'too-long' = 'normal';
let server: http.Server;
let base: string;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-raw-get-'));
  server = http.createServer((request, response) => {
    const from = Number(/^bytes=(\d+)-$/.exec(request.headers.range ?? '')?.[1] ?? 0);
    if (request.headers['x-check'] !== 'yes') return response.writeHead(400).end('the URL headers were not sent');
    if (mode === 'forbidden')
      return response.writeHead(403, { 'content-type': 'application/json' }).end('{"error":{"type":"PermissionDenied","message":"expired"}}');
    if (mode === 'chunked') {
      response.writeHead(200, { 'transfer-encoding': 'chunked' });
      return response.end(data);
    }
    if (mode === 'too-long') {
      response.writeHead(200, { 'content-length': String(data.length + 10) });
      return response.end(Buffer.concat([data, Buffer.alloc(10)]));
    }
    const ranged = from > 0 && mode !== 'ignore-range';
    const body = ranged ? data.subarray(from) : data;
    if (mode === 'cut') {
      // Announces the whole body, sends half of it, and hangs up.
      response.writeHead(200, { 'content-length': String(body.length) });
      response.write(body.subarray(0, 7 * MiB), () => response.socket?.end());
      return response;
    }
    response.writeHead(ranged ? 206 : 200, {
      'content-length': String(body.length),
      ...(ranged ? { 'content-range': `bytes ${from}-${data.length - 1}/${data.length}` } : {}),
    });
    return response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/file`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A GET into a fresh `.part` file (or one holding the first `have` bytes), with the parts' md5s collected. */
function targetFor(name: string, have = 0, directWrites = false) {
  const partPath = path.join(dir, name);
  fs.writeFileSync(partPath, data.subarray(0, have));
  const md5s = new Map<number, string>();
  const events: string[] = [];
  let counted = have;
  let written = 0;
  const options: RawGetTarget = {
    url: base,
    headers: { 'x-check': 'yes' },
    have,
    size: data.length,
    partPath,
    checker: {
      // As download.ts's PartChecker does: the parts not over before `start`.
      stream: (start) =>
        new Md5Stream(
          partPath,
          parts.filter((part) => part.offset + part.size > start),
          start,
        ),
      endStream: async (stream) => {
        await stream.end();
        for (const [index, value] of stream.results) md5s.set(index, value);
      },
    },
    onRestart: () => {
      events.push('restart');
      counted = 0;
    },
    onBytes: (bytes) => {
      counted += bytes;
    },
    onBytesWritten: (bytes) => {
      written += bytes;
    },
    directWrites,
  };
  return { options, partPath, md5s, events, counted: () => counted, written: () => written };
}

const expectedMd5s = new Map(parts.map((part) => [part.index, md5(data.subarray(part.offset, part.offset + part.size))]));

describe.each([
  ['through the page cache', false],
  ['with O_DIRECT', true],
])('rawGetInto: a download read straight into the md5 worker’s buffers, written %s', (_how, direct) => {
  const target = (name: string, have = 0) => targetFor(`${direct ? 'direct' : 'buffered'}-${name}`, have, direct);

  it('writes every byte and hashes every part in place', async () => {
    mode = 'normal';
    const get = target('whole.part');
    await expect(rawGetInto(get.options)).resolves.toBe(data.length);
    expect(fs.readFileSync(get.partPath).equals(data)).toBe(true);
    expect(get.md5s).toEqual(expectedMd5s);
    expect(get.counted()).toBe(data.length);
  });

  it('resumes with Range from the bytes already there; the part they began is hashed from the file', async () => {
    mode = 'normal';
    const have = 6 * MiB + 17;
    const get = target('resumed.part', have);
    await expect(rawGetInto(get.options)).resolves.toBe(data.length);
    expect(fs.readFileSync(get.partPath).equals(data)).toBe(true);
    expect(get.written()).toBe(data.length - have);
    // Part 1 ended before the resume point: the caller hashes it from the file, not this stream.
    expect(get.md5s).toEqual(new Map([...expectedMd5s].filter(([index]) => index !== 1)));
    expect(get.events).toEqual([]);
  });

  it('starts over when the server answers a ranged request with the whole file', async () => {
    mode = 'ignore-range';
    const get = target('restarted.part', 3 * MiB);
    await expect(rawGetInto(get.options)).resolves.toBe(data.length);
    expect(get.events).toEqual(['restart']);
    expect(fs.readFileSync(get.partPath).equals(data)).toBe(true);
    expect(get.md5s).toEqual(expectedMd5s);
    expect(get.counted()).toBe(data.length);
  });

  it('answers an error status with its text and status, for the caller to ask for a new URL', async () => {
    mode = 'forbidden';
    const get = target('forbidden.part');
    const error = (await rawGetInto(get.options).catch((caught: unknown) => caught)) as Error & { status?: number };
    expect(error.message).toBe('GET failed with HTTP 403: {"error":{"type":"PermissionDenied","message":"expired"}}');
    expect(error.status).toBe(403);
  });

  it('leaves a chunked response to node:http, with nothing written', async () => {
    mode = 'chunked';
    const get = target('chunked.part');
    await expect(rawGetInto(get.options)).rejects.toBeInstanceOf(RawGetUnsupported);
    expect(fs.statSync(get.partPath).size).toBe(0);
    await expect(rawGetInto({ ...get.options, url: 'https://127.0.0.1:1/file' })).rejects.toBeInstanceOf(RawGetUnsupported);
  });

  it('keeps what arrived before the connection broke, with the md5s of the parts it completed', async () => {
    mode = 'cut';
    const get = target('cut.part');
    const reached = await rawGetInto(get.options);
    expect(reached).toBe(7 * MiB);
    expect(fs.readFileSync(get.partPath).equals(data.subarray(0, 7 * MiB))).toBe(true);
    expect(get.md5s).toEqual(new Map([[1, expectedMd5s.get(1)]]));
  });

  it('refuses a body longer than the file', async () => {
    mode = 'too-long';
    const get = target('long.part');
    const error = await rawGetInto(get.options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransferError);
    expect((error as Error).message).toBe(`the server sent more than the ${data.length} bytes the file has`);
  });

  it('stops when aborted, keeping the file', async () => {
    mode = 'normal';
    const get = target('aborted.part');
    const controller = new AbortController();
    controller.abort(new Error('stopped by the test'));
    await expect(rawGetInto({ ...get.options, signal: controller.signal })).rejects.toThrow('stopped by the test');
    expect(fs.existsSync(get.partPath)).toBe(true);
  });
});

describe('rawGetInto when things go wrong', () => {
  it('gives every md5 slot back, GET after GET, whatever the writer', async () => {
    mode = 'normal';
    const before = lentMd5Slots();
    for (const [index, direct] of [false, true, false, true].entries()) {
      const get = targetFor(`slots-${index}.part`, 0, direct);
      await expect(rawGetInto(get.options)).resolves.toBe(data.length);
      // And without a check of the parts (no md5 stream).
      const plain = targetFor(`slots-plain-${index}.part`, 0, direct);
      await expect(rawGetInto({ ...plain.options, checker: undefined })).resolves.toBe(data.length);
    }
    // The md5 worker hands its slots back by message: wait for the last ones.
    for (let waited = 0; lentMd5Slots() > before && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lentMd5Slots()).toBe(before);
  });

  const small = mountSmall(6);
  afterAll(() => small?.unmount());
  // Without root (mount refused) there is no small file system to fill.
  it.runIf(small).each([
    ['through the page cache', false],
    ['with O_DIRECT', true],
  ])('fails with the disk-full error, leaving an unbroken prefix and no md5 past it, writing %s', async (_how, direct) => {
    mode = 'normal';
    const partPath = path.join((small as { dir: string }).dir, `full-${direct}.part`);
    const md5s = new Map<number, string>();
    const error = (await rawGetInto({
      url: base,
      headers: { 'x-check': 'yes' },
      have: 0,
      size: data.length,
      partPath,
      checker: {
        stream: (start) => new Md5Stream(partPath, parts, start),
        endStream: async (stream) => {
          await stream.end();
          for (const [index, value] of stream.results) md5s.set(index, value);
        },
      },
      onRestart: () => undefined,
      onBytes: () => undefined,
      directWrites: direct,
    }).catch((caught: unknown) => caught)) as NodeJS.ErrnoException;
    expect(error.code).toBe('ENOSPC');
    const kept = fs.readFileSync(partPath);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(6 * MiB);
    expect(kept.equals(data.subarray(0, kept.length))).toBe(true);
    // Part 1 (5 MiB) may be whole on disk; part 2 cannot be, and no md5 says otherwise.
    expect([...md5s.keys()].every((index) => index === 1)).toBe(true);
    if (md5s.has(1)) expect(md5s.get(1)).toBe(expectedMd5s.get(1));
    fs.rmSync(partPath);
  });
});

describe('dechunk', () => {
  it('joins the chunks of a chunked body and stops at the last or at what is missing', () => {
    expect(dechunk(Buffer.from('5\r\nhello\r\n1\r\n!\r\n0\r\n\r\n'))).toBe('hello!');
    expect(dechunk(Buffer.from('5\r\nhello\r\n3\r\nab'))).toBe('helloab');
    expect(dechunk(Buffer.from(''))).toBe('');
  });
});
