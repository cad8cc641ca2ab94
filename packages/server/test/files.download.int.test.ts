import { DOWNLOAD_URL_DURATION_S, ONE_TIME_URL_DURATION_S } from '@panx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadBytes, fetchBytes, MIN_PART, platformSigner, random, sha256, uploadFile } from './data-helpers.js';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

describe.each(BACKENDS)('file download on $name', (backend) => {
  let t: TestPlatform;
  let project: string;
  let fileId: string;
  let bytes: Buffer;
  beforeAll(async () => {
    t = await startTestPlatform(backend);
    ({ id: project } = await t.admin.call('project/new', { name: 'downloads' }));
    const parts = [random(MIN_PART), random(300_001)];
    bytes = Buffer.concat(parts);
    fileId = await uploadFile(t.admin, project, parts, { name: 'reads & more.bin', media: 'application/octet-stream' });
  }, 60_000);
  afterAll(() => t?.close());

  it('hands out a URL that needs no Authorization and serves the identical bytes', async () => {
    const asked = Date.now();
    const download = await t.admin.call('file-xxxx/download', fileId, { project, preauthenticated: false });
    expect(download.headers).toEqual({});
    // Valid for the shared duration of SPEC §9 by default: 86,400 s.
    expect(download.expires).toBeGreaterThanOrEqual(asked + DOWNLOAD_URL_DURATION_S * 1000);
    expect(download.expires).toBeLessThanOrEqual(Date.now() + DOWNLOAD_URL_DURATION_S * 1000);
    // The web app's one-time URLs (a download started at once) ask for 90 s.
    const oneTime = await t.admin.call('file-xxxx/download', fileId, { project, duration: ONE_TIME_URL_DURATION_S });
    expect(oneTime.expires - Date.now()).toBeGreaterThan((ONE_TIME_URL_DURATION_S - 5) * 1000);
    expect(oneTime.expires - Date.now()).toBeLessThanOrEqual(ONE_TIME_URL_DURATION_S * 1000);
    expect(sha256((await fetchBytes(oneTime.url)).bytes)).toBe(sha256(bytes));
    // Proxied by the server on local storage; presigned straight at the bucket (moto here) on S3.
    const origin = new URL(download.url).origin;
    if (backend.blobs === 's3') expect(origin).toBe(t.platform.config.s3?.endpoint);
    else expect(origin).toBe(t.url);
    const got = await fetchBytes(download.url);
    expect(got.status).toBe(200);
    expect(Number(got.headers.get('content-length'))).toBe(bytes.length);
    if (backend.blobs === 's3') {
      // moto ignores response-content-disposition; real S3 answers it: check that the URL asks for it.
      expect(new URL(download.url).searchParams.get('response-content-disposition')).toContain(encodeURIComponent('reads & more.bin'));
    } else {
      expect(got.headers.get('content-disposition')).toContain(encodeURIComponent('reads & more.bin'));
    }
    expect(sha256(got.bytes)).toBe(sha256(bytes));
  });

  it('honours Range: first bytes, a span across the part boundary, open-ended and suffix ranges', async () => {
    const { url } = await t.admin.call('file-xxxx/download', fileId, { project });
    const size = bytes.length;
    const cases: [string, number, number][] = [
      ['bytes=0-99', 0, 99],
      [`bytes=${MIN_PART - 10}-${MIN_PART + 9}`, MIN_PART - 10, MIN_PART + 9],
      [`bytes=${size - 1000}-`, size - 1000, size - 1],
      ['bytes=-777', size - 777, size - 1],
      [`bytes=${size - 5}-${size + 1000}`, size - 5, size - 1],
      [`bytes=${size - 1}-${size - 1}`, size - 1, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const got = await fetchBytes(url, { range });
      expect(got.status, range).toBe(206);
      expect(got.headers.get('content-range'), range).toBe(`bytes ${start}-${end}/${size}`);
      expect(got.bytes.length, range).toBe(end - start + 1);
      expect(Buffer.compare(got.bytes, bytes.subarray(start, end + 1)), range).toBe(0);
    }
    // dxpy's way: every part by range, checked against the part md5 of the describe.
    const described = await t.admin.call('file-xxxx/describe', fileId, { parts: true });
    const parts = described.parts as Record<string, { size: number; md5: string }>;
    let offset = 0;
    for (const index of Object.keys(parts).sort((a, b) => Number(a) - Number(b))) {
      const part = parts[index] as { size: number; md5: string };
      const got = await fetchBytes(url, { range: `bytes=${offset}-${offset + part.size - 1}` });
      expect(got.status).toBe(206);
      expect(Buffer.compare(got.bytes, bytes.subarray(offset, offset + part.size))).toBe(0);
      offset += part.size;
    }
    expect(offset).toBe(size);
  });

  it('answers 416 for an unsatisfiable range', async () => {
    const { url } = await t.admin.call('file-xxxx/download', fileId, { project });
    for (const range of [`bytes=${bytes.length}-`, `bytes=${bytes.length + 10}-${bytes.length + 20}`]) {
      const got = await fetchBytes(url, { range });
      expect(got.status, range).toBe(416);
      // (moto leaves out the Content-Range of a 416; the local proxy sends it.)
      if (backend.blobs === 'local') expect(got.headers.get('content-range'), range).toBe(`bytes */${bytes.length}`);
    }
  });

  it('sends the media type as Content-Type when it is a valid one', async () => {
    const text = await uploadFile(t.admin, project, [Buffer.from('hello')], { name: 'hello.txt', media: 'text/plain; charset=utf-8' });
    const odd = await uploadFile(t.admin, project, [Buffer.from('odd')], { name: 'odd', media: 'text/plain\r\nX-Injected: 1' });
    const { url } = await t.admin.call('file-xxxx/download', text, {});
    const { url: oddUrl } = await t.admin.call('file-xxxx/download', odd, {});
    if (backend.blobs === 's3') {
      // (moto ignores response-content-type; real S3 answers it.)
      expect(new URL(url).searchParams.get('response-content-type')).toBe('text/plain; charset=utf-8');
      expect(new URL(oddUrl).searchParams.get('response-content-type')).toBe('application/octet-stream');
    } else {
      expect((await fetchBytes(url)).headers.get('content-type')).toBe('text/plain; charset=utf-8');
      const got = await fetchBytes(oddUrl);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('application/octet-stream');
      expect(got.headers.get('x-injected')).toBeNull();
    }
    expect((await downloadBytes(t.admin, odd)).toString()).toBe('odd');
  });

  it('streams a file of many chunks through the server’s reused buffers, with CORS headers; HEAD has the headers only', async () => {
    // 6 parts of 5 MiB and a short one: more 1-MiB chunks than the buffers one response reuses.
    const parts = [...Array.from({ length: 6 }, () => random(MIN_PART)), random(12_345)];
    const whole = Buffer.concat(parts);
    const big = await uploadFile(t.admin, project, parts, { name: 'big.bin' });
    const { url } = await t.admin.call('file-xxxx/download', big, { project });
    const origin = 'https://portal.example.org';
    const got = await fetchBytes(url, { origin });
    expect(got.status).toBe(200);
    expect(sha256(got.bytes)).toBe(sha256(whole));
    if (backend.blobs === 'local') {
      expect(got.headers.get('access-control-allow-origin')).toBe(origin);
      expect(got.headers.get('access-control-expose-headers')).toContain('Content-Range');
      expect(got.headers.get('content-length')).toBe(String(whole.length));
      const head = await fetch(url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(whole.length));
      expect((await head.arrayBuffer()).byteLength).toBe(0);
      // A range deep inside: 206 with exactly those bytes.
      const ranged = await fetchBytes(url, { range: 'bytes=7340032-20000000' });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe(`bytes 7340032-20000000/${whole.length}`);
      expect(ranged.bytes.equals(whole.subarray(7_340_032, 20_000_001))).toBe(true);
    }
    // Clients that hang up after the first bytes leave the server serving others as before.
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      const response = await fetch(url, { signal: controller.signal });
      const reader = response.body?.getReader();
      await reader?.read();
      controller.abort();
      await reader?.cancel().catch(() => undefined);
    }
    expect(sha256((await fetchBytes(url)).bytes)).toBe(sha256(whole));
  });

  it('serves an empty file', async () => {
    const empty = await uploadFile(t.admin, project, [Buffer.alloc(0)], { name: 'empty' });
    const { url } = await t.admin.call('file-xxxx/download', empty, {});
    const got = await fetchBytes(url);
    expect(got.status).toBe(200);
    expect(got.bytes.length).toBe(0);
  });

  it('refuses to download an open file (InvalidState)', async () => {
    const { id } = await t.admin.call('file/new', { project, name: 'still-open' });
    await expectApiError(t.admin.call('file-xxxx/download', id, {}), 'InvalidState');
  });

  it('refuses downloads from a downloadRestricted project (PermissionDenied)', async () => {
    const { id: restricted } = await t.admin.call('project/new', { name: 'restricted', downloadRestricted: true });
    const id = await uploadFile(t.admin, restricted, [random(10)], { name: 'secret' });
    await expectApiError(t.admin.call('file-xxxx/download', id, { project: restricted }), 'PermissionDenied');
    await expectApiError(t.admin.call('file-xxxx/download', id, {}), 'PermissionDenied');
  });

  it('lets a VIEW member download and answers ResourceNotFound to a non-member', async () => {
    const viewer = await t.newUser();
    const stranger = await t.newUser();
    await t.admin.call('project-xxxx/invite', project, { invitee: viewer.id, level: 'VIEW' });
    expect(sha256(await downloadBytes(viewer.client, fileId, project))).toBe(sha256(bytes));
    expect(sha256(await downloadBytes(viewer.client, fileId))).toBe(sha256(bytes));
    await expectApiError(stranger.client.call('file-xxxx/download', fileId, {}), 'ResourceNotFound');
    await expectApiError(stranger.client.call('file-xxxx/download', fileId, { project }), 'ResourceNotFound');
    await expectApiError(stranger.client.call('file-xxxx/describe', fileId, {}), 'ResourceNotFound');
  });

  it('refuses tampered and expired download URLs, and URLs of removed files (proxied downloads)', async () => {
    if (backend.blobs === 's3') {
      // Presigned URLs are checked by the bucket itself (moto does not check them): they must be signed and expire.
      const { url, expires } = await t.admin.call('file-xxxx/download', fileId, { duration: 600 });
      const params = new URL(url).searchParams;
      expect(params.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
      expect(params.get('X-Amz-Expires')).toBe('600');
      expect(expires).toBeLessThanOrEqual(Date.now() + 600_000);
      return;
    }
    const { url } = await t.admin.call('file-xxxx/download', fileId, { filename: 'renamed.bin' });
    expect(new URL(url).pathname).toBe(`/download/${fileId}/renamed.bin`);
    for (const bad of [
      url.replace(/sig=[^&]+/, 'sig=AAAA'),
      url.replace(/expires=(\d+)/, (_, ms) => `expires=${Number(ms) + 1}`),
      url.replace(/project=[^&]+/, 'project=project-000000000000000000000000'),
    ]) {
      const got = await fetchBytes(bad);
      expect(got.status, bad).toBe(401);
      expect(JSON.parse(got.bytes.toString()).error.type).toBe('PermissionDenied');
    }
    const expires = Date.now() - 1;
    const sig = platformSigner(t.platform).sign(['download', fileId, project, expires]);
    const expired = await fetchBytes(`${t.url}/download/${fileId}/x?${new URLSearchParams({ project, expires: String(expires), sig })}`);
    expect(expired.status).toBe(401);

    const doomed = await uploadFile(t.admin, project, [random(10)], { name: 'doomed' });
    const early = await t.admin.call('file-xxxx/download', doomed, {});
    await t.admin.call('project-xxxx/removeObjects', project, { objects: [doomed] });
    const gone = await fetchBytes(early.url);
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.bytes.toString()).error.type).toBe('ResourceNotFound');
  });
});
