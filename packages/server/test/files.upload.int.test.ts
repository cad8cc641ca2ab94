import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chunked,
  downloadBytes,
  expectPutError,
  expectPutOk,
  MIN_PART,
  md5,
  platformSigner,
  putPart,
  random,
  rawPut,
  sha256,
  sleep,
  uploadFile,
  waitForState,
} from './data-helpers.js';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

const partsAndState = { fields: { parts: true, state: true } };

describe.each(BACKENDS)('file upload on $name', (backend) => {
  let t: TestPlatform;
  let project: string;
  beforeAll(async () => {
    t = await startTestPlatform(backend);
    ({ id: project } = await t.admin.call('project/new', { name: 'uploads' }));
  }, 60_000);
  afterAll(() => t?.close());

  it('dedupes file/new by nonce and refuses a reused nonce with another body', async () => {
    const nonce = `${'a'.repeat(64)}${Date.now() / 1000}`;
    const first = await t.admin.call('file/new', { project, name: 'n.txt', nonce });
    const again = await t.admin.call('file/new', { project, name: 'n.txt', nonce });
    expect(again.id).toBe(first.id);
    await expectApiError(t.admin.call('file/new', { project, name: 'other.txt', nonce }), 'InvalidInput');
    const listed = await t.admin.call('system/findDataObjects', { scope: { project }, name: 'n.txt' });
    expect(listed.results.map((r) => r.id)).toEqual([first.id]);
  });

  it('gives the upload parameters dxpy needs in the project describe', async () => {
    const described = await t.admin.call('project-xxxx/describe', project, { fields: { fileUploadParameters: true } });
    expect(described.fileUploadParameters).toEqual({
      minimumPartSize: 5242880,
      maximumPartSize: 5368709120,
      emptyLastPartAllowed: true,
      maximumNumParts: 10000,
      maximumFileSize: 5497558138880,
    });
  });

  it('uploads several parts, each complete right after its PUT, then closes to the assembled bytes', async () => {
    const parts = [random(MIN_PART), random(MIN_PART + 17), random(123_457)];
    const { id } = await t.admin.call('file/new', { project, name: 'multi.bin', folder: '/in', parents: true, media: 'application/x-test' });
    const fresh = await t.admin.call('file-xxxx/describe', id, { project, ...partsAndState });
    expect(fresh).toEqual({ id, state: 'open', parts: {} });
    for (const [i, bytes] of parts.entries()) {
      const upload = await t.admin.call('file-xxxx/upload', id, { index: i + 1, size: bytes.length, md5: md5(bytes) });
      expect(upload.url).toMatch(new RegExp(`^${t.url}/upload/${id}/${i + 1}\\?`));
      expect(upload.expires).toBeGreaterThan(Date.now());
      await expectPutOk(await rawPut(upload.url, upload.headers, bytes), bytes);
      const described = await t.admin.call('file-xxxx/describe', id, { project, ...partsAndState });
      expect(Object.keys(described).sort()).toEqual(['id', 'parts', 'state']);
      expect(described.state).toBe('open');
      expect(Object.keys(described.parts as object)).toHaveLength(i + 1);
      expect((described.parts as Record<string, unknown>)[String(i + 1)]).toEqual({ state: 'complete', md5: md5(bytes), size: bytes.length });
    }
    const total = parts.reduce((sum, part) => sum + part.length, 0);
    expect((await t.admin.call('file-xxxx/describe', id, {})).size).toBe(total);

    const answer = await t.admin.call('file-xxxx/close', id, {});
    expect(answer.id).toBe(id);
    const right = await t.admin.call('file-xxxx/describe', id, { fields: { state: true } });
    expect(['closing', 'closed']).toContain(right.state);
    // The answer's state (a Panx extension) is never ahead of the file's.
    if (answer.state === 'closed') expect(right.state).toBe('closed');
    else expect(answer.state).toBe('closing');
    const closed = await waitForState(t.admin, id, 'closed');
    expect(closed).toMatchObject({ size: total, media: 'application/x-test', folder: '/in', name: 'multi.bin' });
    // Parts stay described after close (dx download checks each against its md5).
    const afterClose = await t.admin.call('file-xxxx/describe', id, { parts: true, size: true, drive: true, md5: true, checksumType: true, project });
    expect(Object.keys(afterClose.parts as object)).toEqual(['1', '2', '3']);
    expect(sha256(await downloadBytes(t.admin, id))).toBe(sha256(Buffer.concat(parts)));
    // Closing again is harmless, and says the file is closed.
    expect(await t.admin.call('file-xxxx/close', id, {})).toEqual({ id, state: 'closed' });
  });

  it('accepts an empty last part, and a file of no bytes made of one empty part', async () => {
    const first = random(MIN_PART);
    const withEmptyLast = await uploadFile(t.admin, project, [first, Buffer.alloc(0)], { name: 'empty-last.bin' });
    const described = await t.admin.call('file-xxxx/describe', withEmptyLast, { fields: { parts: true, size: true } });
    expect(described.size).toBe(MIN_PART);
    expect((described.parts as Record<string, unknown>)['2']).toEqual({ state: 'complete', size: 0, md5: md5(Buffer.alloc(0)) });
    expect(sha256(await downloadBytes(t.admin, withEmptyLast))).toBe(sha256(first));

    const empty = await uploadFile(t.admin, project, [Buffer.alloc(0)], { name: 'empty.bin' });
    expect(await t.admin.call('file-xxxx/describe', empty, {})).toMatchObject({ state: 'closed', size: 0 });
    expect((await downloadBytes(t.admin, empty)).length).toBe(0);
  });

  it('closes a file that never got a part as an empty file', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'no-parts' });
    await t.admin.call('file-xxxx/close', id, {});
    expect(await waitForState(t.admin, id, 'closed')).toMatchObject({ size: 0 });
    expect((await downloadBytes(t.admin, id)).length).toBe(0);
  });

  it('refuses a PUT whose md5 or size does not match, and keeps nothing of it', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'integrity' });
    const good = random(1000);
    await expectPutOk(await putPart(t.admin, id, 1, good), good);

    // md5 mismatch: same size, other bytes (also on an index that already holds a good part).
    const declared = random(1000);
    for (const index of [1, 2]) {
      const upload = await t.admin.call('file-xxxx/upload', id, { index, size: 1000, md5: md5(declared) });
      expectPutError(await rawPut(upload.url, upload.headers, random(1000)), 422, 'InvalidInput');
    }
    // Size mismatch, with a truthful Content-Length and with none at all (chunked): too long and too short.
    const sizeUrl = await t.admin.call('file-xxxx/upload', id, { index: 3, size: 1000 });
    const { 'content-length': _, ...noLength } = sizeUrl.headers;
    expectPutError(await rawPut(sizeUrl.url, noLength, random(1001)), 422, 'InvalidInput');
    expectPutError(await rawPut(sizeUrl.url, noLength, chunked(random(1001))), 422, 'InvalidInput');
    expectPutError(await rawPut(sizeUrl.url, noLength, chunked(random(999))), 422, 'InvalidInput');
    expectPutError(await rawPut(sizeUrl.url, noLength, chunked(Buffer.alloc(0))), 422, 'InvalidInput');

    const described = await t.admin.call('file-xxxx/describe', id, partsAndState);
    expect(described.parts).toEqual({ '1': { state: 'complete', size: 1000, md5: md5(good) } });
    await t.admin.call('file-xxxx/close', id, {});
    await waitForState(t.admin, id, 'closed');
    expect(sha256(await downloadBytes(t.admin, id))).toBe(sha256(good));
  });

  it('checks the size of a chunked PUT without a declared size, and stores the part when it is right', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'undeclared' });
    const bytes = random(70_000);
    const upload = await t.admin.call('file-xxxx/upload', id, { index: 1 });
    const put = await rawPut(upload.url, upload.headers, chunked(bytes));
    expect(put).toMatchObject({ status: 200, body: { size: bytes.length, md5: md5(bytes) } });
    const wrongMd5 = await t.admin.call('file-xxxx/upload', id, { index: 2, md5: md5(random(10)) });
    expectPutError(await rawPut(wrongMd5.url, wrongMd5.headers, chunked(random(10))), 422, 'InvalidInput');
    expect(Object.keys((await t.admin.call('file-xxxx/describe', id, partsAndState)).parts as object)).toEqual(['1']);
  });

  it('keeps the bytes of a part sent with a JSON content type exactly', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'binary-as-json.bin' });
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22, 0xc3, 0x28, 0x0a, 0x80]);
    const upload = await t.admin.call('file-xxxx/upload', id, { index: 1, size: bytes.length, md5: md5(bytes) });
    await expectPutOk(await rawPut(upload.url, { ...upload.headers, 'content-type': 'application/json' }, bytes), bytes);
    await t.admin.call('file-xxxx/close', id, {});
    await waitForState(t.admin, id, 'closed');
    expect(Buffer.compare(await downloadBytes(t.admin, id), bytes)).toBe(0);
  });

  it('refuses tampered, expired and misdirected upload URLs with PermissionDenied', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'signed' });
    const { id: other } = await t.admin.call('file/new', { project, name: 'other' });
    const bytes = random(100);
    const upload = await t.admin.call('file-xxxx/upload', id, { index: 1, size: bytes.length, md5: md5(bytes) });
    const tampered = [
      upload.url.replace('size=100', 'size=101'),
      upload.url.replace(/sig=[^&]+/, 'sig=AAAA'),
      upload.url.replace(/sig=[^&]+/, ''),
      upload.url.replace(/expires=(\d+)/, (_, ms) => `expires=${Number(ms) + 1000}`),
      upload.url.replace(`/upload/${id}/1`, `/upload/${id}/2`),
      upload.url.replace(`/upload/${id}/`, `/upload/${other}/`),
    ];
    for (const url of tampered) expectPutError(await rawPut(url, upload.headers, bytes), 401, 'PermissionDenied');

    const expires = Date.now() - 1000;
    const sig = platformSigner(t.platform).sign(['upload', id, 1, 100, md5(bytes), expires]);
    const expired = `${t.url}/upload/${id}/1?${new URLSearchParams({ size: '100', md5: md5(bytes), expires: String(expires), sig })}`;
    const refused = await rawPut(expired, upload.headers, bytes);
    expectPutError(refused, 401, 'PermissionDenied');
    expect(JSON.stringify(refused.body)).toContain('expired');

    expect((await t.admin.call('file-xxxx/describe', id, partsAndState)).parts).toEqual({});
    await expectPutOk(await rawPut(upload.url, upload.headers, bytes), bytes);
  });

  it('refuses to close with a non-last part under 5 MiB (InvalidState) and leaves the file open', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'small-parts' });
    const small = random(1024);
    await expectPutOk(await putPart(t.admin, id, 1, small), small);
    await expectPutOk(await putPart(t.admin, id, 2, small), small);
    await expectApiError(t.admin.call('file-xxxx/close', id, {}), 'InvalidState', 'at least 5242880');
    expect((await t.admin.call('file-xxxx/describe', id, {})).state).toBe('open');
    // Still open: the parts can be sent again, and then it closes.
    const big = random(MIN_PART);
    await expectPutOk(await putPart(t.admin, id, 1, big), big);
    await t.admin.call('file-xxxx/close', id, {});
    await waitForState(t.admin, id, 'closed');
    expect(sha256(await downloadBytes(t.admin, id))).toBe(sha256(Buffer.concat([big, small])));
  });

  it('refuses uploads to a closed file, by upload URL and by a PUT of an earlier URL', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'closed-then-put' });
    const bytes = random(10);
    const early = await t.admin.call('file-xxxx/upload', id, { index: 2, size: bytes.length, md5: md5(bytes) });
    await expectPutOk(await putPart(t.admin, id, 1, bytes), bytes);
    await t.admin.call('file-xxxx/close', id, {});
    await waitForState(t.admin, id, 'closed');
    await expectApiError(t.admin.call('file-xxxx/upload', id, { index: 2 }), 'InvalidState');
    expectPutError(await rawPut(early.url, early.headers, bytes), 422, 'InvalidState');
    expect(Object.keys((await t.admin.call('file-xxxx/describe', id, partsAndState)).parts as object)).toEqual(['1']);
    expect(sha256(await downloadBytes(t.admin, id))).toBe(sha256(bytes));
  });

  it('takes parts in parallel, as dxpy sends up to 8 at once', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'parallel' });
    const parts = Array.from({ length: 8 }, (_, i) => random(1000 + i));
    const results = await Promise.all(parts.map((bytes, i) => putPart(t.admin, id, i + 1, bytes)));
    for (const [i, result] of results.entries()) await expectPutOk(result, parts[i] as Buffer);
    const described = await t.admin.call('file-xxxx/describe', id, partsAndState);
    expect(Object.keys(described.parts as object).sort((a, b) => Number(a) - Number(b))).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    for (const [i, bytes] of parts.entries()) {
      expect((described.parts as Record<string, unknown>)[String(i + 1)]).toEqual({ state: 'complete', size: bytes.length, md5: md5(bytes) });
    }
  });

  it('refuses a part whose PUT ends after the file was closed, and leaves it out of the file', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'put-vs-close' });
    const first = random(2000);
    await expectPutOk(await putPart(t.admin, id, 1, first), first);
    const late = random(300_000);
    const upload = await t.admin.call('file-xxxx/upload', id, { index: 2, size: late.length, md5: md5(late) });
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        c.enqueue(new Uint8Array(late.subarray(0, 100_000)));
      },
    });
    const put = rawPut(upload.url, upload.headers, body);
    await sleep(100);
    await t.admin.call('file-xxxx/close', id, {});
    await waitForState(t.admin, id, 'closed');
    controller.enqueue(new Uint8Array(late.subarray(100_000)));
    controller.close();
    expectPutError(await put, 422, 'InvalidState');
    const described = await t.admin.call('file-xxxx/describe', id, { fields: { parts: true, size: true } });
    expect(described).toEqual({ id, size: first.length, parts: { '1': { state: 'complete', size: first.length, md5: md5(first) } } });
    expect(sha256(await downloadBytes(t.admin, id))).toBe(sha256(first));
  });

  it('always describes media as a string', async () => {
    const { id: plain } = await t.admin.call('file/new', { project, name: 'plain' });
    const { id: typed } = await t.admin.call('file/new', { project, name: 'typed', media: 'text/plain' });
    expect((await t.admin.call('file-xxxx/describe', plain, {})).media).toBe('');
    expect((await t.admin.call('file-xxxx/describe', typed, {})).media).toBe('text/plain');
    const found = await t.admin.call('system/findDataObjects', { scope: { project }, id: [plain, typed], describe: true });
    for (const result of found.results) expect(typeof (result.describe as { media?: unknown }).media).toBe('string');
    const listed = await t.admin.call('project-xxxx/listFolder', project, { describe: true });
    for (const entry of listed.objects) if (entry.id.startsWith('file-')) expect(typeof (entry.describe as { media?: unknown }).media).toBe('string');
  });

  it('enforces levels: VIEW cannot upload or close, UPLOAD can', async () => {
    const viewer = await t.newUser();
    const uploader = await t.newUser();
    await t.admin.call('project-xxxx/invite', project, { invitee: viewer.id, level: 'VIEW' });
    await t.admin.call('project-xxxx/invite', project, { invitee: uploader.id, level: 'UPLOAD' });
    await expectApiError(viewer.client.call('file/new', { project, name: 'nope' }), 'PermissionDenied');
    const { id } = await uploader.client.call('file/new', { project, name: 'by-uploader' });
    await expectApiError(viewer.client.call('file-xxxx/upload', id, { index: 1 }), 'PermissionDenied');
    const bytes = random(64);
    await expectPutOk(await putPart(uploader.client, id, 1, bytes), bytes);
    await expectApiError(viewer.client.call('file-xxxx/close', id, {}), 'PermissionDenied');
    const stranger = await t.newUser();
    await expectApiError(stranger.client.call('file-xxxx/upload', id, { index: 1 }), 'ResourceNotFound');
    await uploader.client.call('file-xxxx/close', id, {});
    await waitForState(uploader.client, id, 'closed');
  });

  it('rejects part indexes outside 1..10000', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'indexes' });
    await expectApiError(t.admin.call('file-xxxx/upload', id, { index: 0 }), 'InvalidInput');
    await expectApiError(t.admin.call('file-xxxx/upload', id, { index: 10_001 }), 'InvalidInput');
  });

  it('refuses a part declared over the 5 GiB maximum, by upload URL and by a PUT announcing more', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'huge-part' });
    await expectApiError(t.admin.call('file-xxxx/upload', id, { index: 1, size: 5 * 1024 ** 3 + 1 }), 'InvalidInput', 'exceeds the maximum of 5368709120');
    // A URL asked without a size, then a PUT whose Content-Length says more than 5 GiB: refused before any byte is read.
    const { url } = await t.admin.call('file-xxxx/upload', id, { index: 1 });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(url, { method: 'PUT', headers: { 'content-length': String(5 * 1024 ** 3 + 1) } }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', reject);
      request.write(Buffer.alloc(1024));
      // Not the 5 GiB: the server must answer from the headers.
    });
    expect(answer.status).toBe(422);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { type: 'InvalidInput', message: expect.stringContaining('exceeds the maximum') } });
    expect((await t.admin.call('file-xxxx/describe', id, { fields: { parts: true } })).parts).toEqual({});
  });
});
