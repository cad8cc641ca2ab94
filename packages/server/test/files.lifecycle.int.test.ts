import { Readable } from 'node:stream';
import { ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/lib/ids.js';
import { UploadGoneError } from '../src/storage/blob-store.js';
import {
  blobExists,
  downloadBytes,
  expectPutError,
  expectPutOk,
  fetchBytes,
  MIN_PART,
  md5,
  putPart,
  random,
  rawPut,
  sha256,
  uploadFile,
  waitUntil,
} from './data-helpers.js';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

async function s3UploadsInProgress(t: TestPlatform): Promise<string[]> {
  const options = t.platform.config.s3;
  if (!options) return [];
  const client = new S3Client({
    endpoint: options.endpoint,
    region: options.region,
    forcePathStyle: true,
    credentials: { accessKeyId: options.accessKeyId ?? 'test', secretAccessKey: options.secretAccessKey ?? 'test' },
  });
  const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: options.bucket }));
  client.destroy();
  return (listed.Uploads ?? []).map((upload) => upload.UploadId ?? '');
}

describe.each(BACKENDS)('moving and removing data on $name', (backend) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(backend);
  }, 60_000);
  afterAll(() => t?.close());

  const newProject = async (name: string) => (await t.admin.call('project/new', { name })).id;
  const blobGone = (fileId: string) => waitUntil(`the blob of ${fileId} is deleted`, async () => !(await blobExists(t.platform, fileId)));

  it('moves objects and folders, keeping ids and contents', async () => {
    const project = await newProject('move');
    await t.admin.call('project-xxxx/newFolder', project, { folder: '/src/sub', parents: true });
    const file = await uploadFile(t.admin, project, [Buffer.from('moved bytes')], { name: 'f', folder: '/src/sub' });
    const { id: record } = await t.admin.call('record/new', { project, name: 'r', folder: '/src' });
    await t.admin.call('project-xxxx/move', project, { objects: [record], destination: '/dest', parents: true });
    await t.admin.call('project-xxxx/move', project, { folders: ['/src/sub'], destination: '/dest' });
    expect((await t.admin.call('record-xxxx/describe', record, {})).folder).toBe('/dest');
    expect((await t.admin.call('file-xxxx/describe', file, {})).folder).toBe('/dest/sub');
    expect((await t.admin.call('project-xxxx/listFolder', project, { folder: '/dest' })).folders).toEqual(['/dest/sub']);
    expect((await t.admin.call('project-xxxx/listFolder', project, { folder: '/src' })).objects).toEqual([]);
    expect((await downloadBytes(t.admin, file)).toString()).toBe('moved bytes');
    const found = await t.admin.call('system/findDataObjects', { scope: { project, folder: '/dest', recurse: true } });
    expect(found.results.map((r) => r.id).sort()).toEqual([file, record].sort());
    await expectApiError(t.admin.call('project-xxxx/move', project, { objects: [record], destination: '/nowhere' }), 'ResourceNotFound');
  });

  it('answers a close with the state it reached (a Panx extension), and a second close with the state the file is in', async () => {
    const project = await newProject('close-state');
    const { id } = await t.admin.call('file/new', { project, name: 'c.txt' });
    await putPart(t.admin, id, 1, Buffer.from('closing bytes'));
    const answer = await t.admin.call('file-xxxx/close', id, {});
    expect(answer.id).toBe(id);
    // A one-part file closes within the wait on either store; whatever the answer, describe agrees once closed.
    if (answer.state !== 'closed') {
      expect(answer.state).toBe('closing');
      await waitUntil(`${id} is closed`, async () => (await t.admin.call('file-xxxx/describe', id, {})).state === 'closed');
    } else expect((await t.admin.call('file-xxxx/describe', id, {})).state).toBe('closed');
    expect(await t.admin.call('file-xxxx/close', id, {})).toEqual({ id, state: 'closed' });
  });

  it('deletes a blob only once no project holds the file', async () => {
    const a = await newProject('holder-a');
    const b = await newProject('holder-b');
    const bytes = random(4096);
    const file = await uploadFile(t.admin, a, [bytes], { name: 'shared' });
    expect(await blobExists(t.platform, file)).toBe(true);
    await t.admin.call('project-xxxx/clone', a, { objects: [file], project: b });
    expect(await t.admin.call('project-xxxx/removeObjects', a, { objects: [file] })).toEqual({ id: a });
    await expectApiError(t.admin.call('file-xxxx/describe', file, { project: a }), 'ResourceNotFound');
    expect(await t.admin.call('file-xxxx/listProjects', file, {})).toEqual({ [b]: 'ADMINISTER' });
    await t.platform.services.files.collectGarbage();
    expect(await blobExists(t.platform, file)).toBe(true);
    expect(sha256(await downloadBytes(t.admin, file, b))).toBe(sha256(bytes));

    await t.admin.call('project-xxxx/removeObjects', b, { objects: [file], force: true });
    await blobGone(file);
    await expectApiError(t.admin.call('file-xxxx/describe', file, {}), 'ResourceNotFound');
    await expectApiError(t.admin.call('project-xxxx/removeObjects', b, { objects: [file] }), 'ResourceNotFound');
    expect(await t.admin.call('project-xxxx/removeObjects', b, { objects: [file], force: true })).toEqual({ id: b });
  });

  it('deletes blobs queued while a garbage-collection pass is finishing', async () => {
    const project = await newProject('gc-late');
    const first = await uploadFile(t.admin, project, [random(10)], { name: 'first' });
    const late = await uploadFile(t.admin, project, [random(10)], { name: 'late' });
    const repository = t.platform.stores.objects;
    const list = repository.listBlobDeletions.bind(repository);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const atGate = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let held = false;
    // Hold the pass right after it found nothing more to delete, just before it ends.
    repository.listBlobDeletions = async (limit, after) => {
      const rows = await list(limit, after);
      if (!rows.length && !held) {
        held = true;
        reached();
        await gate;
      }
      return rows;
    };
    try {
      await t.admin.call('project-xxxx/removeObjects', project, { objects: [first] });
      await atGate;
      await t.admin.call('project-xxxx/removeObjects', project, { objects: [late] });
      release();
      await blobGone(first);
      await blobGone(late);
    } finally {
      repository.listBlobDeletions = list;
      release();
    }
  });

  it('aborts the upload of an open file when it is removed', async () => {
    const project = await newProject('open-removed');
    const { id } = await t.admin.call('file/new', { project, name: 'open' });
    const bytes = random(100);
    await expectPutOk(await putPart(t.admin, id, 1, bytes), bytes);
    const early = await t.admin.call('file-xxxx/upload', id, { index: 2, size: bytes.length, md5: md5(bytes) });
    const object = await t.platform.stores.objects.findObject(id);
    const uploadId = object?.uploadId as string;
    expect(uploadId).toBeTruthy();
    if (backend.blobs === 's3') expect(await s3UploadsInProgress(t)).toContain(uploadId);
    await t.admin.call('project-xxxx/removeObjects', project, { objects: [id] });
    expectPutError(await rawPut(early.url, early.headers, bytes), 404, 'ResourceNotFound');
    if (backend.blobs === 's3') {
      // (moto answers a 500 to a part sent to an aborted upload, so ask the bucket which uploads are in progress.)
      await waitUntil('the upload is aborted', async () => !(await s3UploadsInProgress(t)).includes(uploadId));
      return;
    }
    // The store itself no longer accepts parts for that upload.
    await waitUntil('the upload is aborted', async () => {
      try {
        await t.platform.blobs.putPart(`files/${id}`, uploadId, 3, Readable.from([Buffer.from('x')]), {});
        return false;
      } catch (error) {
        return error instanceof UploadGoneError;
      }
    });
  });

  it('leaves no blob behind when a file is removed right after its close (assembly racing with removal)', async () => {
    const project = await newProject('close-vs-remove');
    const { id } = await t.admin.call('file/new', { project, name: 'racing' });
    for (const [i, part] of [random(MIN_PART), random(MIN_PART)].entries()) await expectPutOk(await putPart(t.admin, id, i + 1, part), part);
    await t.admin.call('file-xxxx/close', id, {});
    await t.admin.call('project-xxxx/removeObjects', project, { objects: [id] });
    await t.platform.services.files.finishClosing(id);
    await t.platform.services.files.collectGarbage();
    await blobGone(id);
    await expectApiError(t.admin.call('file-xxxx/describe', id, {}), 'ResourceNotFound');
  });

  it('finishes files left closing and abandons day-old open uploads in the recovery sweep', async () => {
    const project = await newProject('recovery');
    const files = t.platform.services.files;
    const objects = t.platform.stores.objects;
    // A file whose close was interrupted: parts in, state closing, nothing assembled.
    const parts = [random(MIN_PART), random(4321)];
    const { id: interrupted } = await t.admin.call('file/new', { project, name: 'interrupted' });
    for (const [i, part] of parts.entries()) await expectPutOk(await putPart(t.admin, interrupted, i + 1, part), part);
    await objects.updateObject(interrupted, { state: 'closing' });
    // Open uploads: one idle for 25 hours, one for 23.
    const now = Date.now();
    const { id: stale } = await t.admin.call('file/new', { project, name: 'stale' });
    const { id: recent } = await t.admin.call('file/new', { project, name: 'recent' });
    const staleBytes = random(100);
    await expectPutOk(await putPart(t.admin, stale, 1, staleBytes), staleBytes);
    await objects.updateObject(stale, { stateChanged: now - 25 * 3600_000 });
    await objects.updateObject(recent, { stateChanged: now - 23 * 3600_000 });
    const staleUpload = (await objects.findObject(stale))?.uploadId as string;

    // The periodic sweep leaves a close that started in the last minute to whoever runs it.
    await objects.updateObject(interrupted, { stateChanged: now - 30_000 });
    await files.recover(now, { closingOlderThanMs: 60_000 });
    await files.drain();
    expect((await t.admin.call('file-xxxx/describe', interrupted, {})).state).toBe('closing');
    await files.recover(now);
    await files.drain();
    expect(await t.admin.call('file-xxxx/describe', interrupted, {})).toMatchObject({ state: 'closed', size: MIN_PART + 4321 });
    expect(sha256(await downloadBytes(t.admin, interrupted))).toBe(sha256(Buffer.concat(parts)));
    await expectApiError(t.admin.call('file-xxxx/describe', stale, {}), 'ResourceNotFound');
    expect((await t.admin.call('file-xxxx/describe', recent, {})).state).toBe('open');
    if (backend.blobs === 's3') expect(await s3UploadsInProgress(t)).not.toContain(staleUpload);
    // Running the sweep again changes nothing.
    await files.recover(now);
    await files.drain();
    expect(sha256(await downloadBytes(t.admin, interrupted))).toBe(sha256(Buffer.concat(parts)));
    expect((await t.admin.call('file-xxxx/describe', recent, {})).state).toBe('open');
  });

  it('removes folders: refuses a non-empty one without recurse, removes in batches with partial', async () => {
    const project = await newProject('rmdir');
    await t.admin.call('project-xxxx/newFolder', project, { folder: '/big/deep', parents: true });
    const file = await uploadFile(t.admin, project, [random(1000)], { name: 'inside', folder: '/big/deep' });
    const { id: keep } = await t.admin.call('record/new', { project, name: 'keep', folder: '/' });
    const now = Date.now();
    await t.platform.stores.transaction(async (tx) => {
      for (let i = 0; i < 1001; i++) {
        const id = newId('record');
        await tx.objects.insert(
          {
            id,
            class: 'record',
            state: 'closed',
            media: '',
            size: null,
            blobKey: null,
            uploadId: null,
            content: '{}',
            createdBy: '{}',
            created: now,
            stateChanged: now,
          },
          {
            projectId: project,
            objectId: id,
            class: 'record',
            name: `r${i}`,
            folder: '/big',
            hidden: 0,
            tags: '[]',
            types: '[]',
            properties: '{}',
            details: '{}',
            created: now,
            modified: now,
          },
        );
      }
    });
    await expectApiError(t.admin.call('project-xxxx/removeFolder', project, { folder: '/big' }), 'InvalidState');
    const first = await t.admin.call('project-xxxx/removeFolder', project, { folder: '/big', recurse: true, partial: true });
    expect(first).toEqual({ id: project, completed: false });
    let rounds = 1;
    for (;;) {
      const next = await t.admin.call('project-xxxx/removeFolder', project, { folder: '/big', recurse: true, partial: true });
      rounds++;
      if (next.completed) break;
      if (rounds > 5) throw new Error('removeFolder never completed');
    }
    expect(rounds).toBe(2);
    expect((await t.admin.call('project-xxxx/listFolder', project, {})).folders).toEqual([]);
    const left = await t.admin.call('system/findDataObjects', { scope: { project }, visibility: 'either' });
    expect(left.results.map((r) => r.id)).toEqual([keep]);
    await blobGone(file);
  });

  it('deletes the blobs of a destroyed project, except those another project still holds', async () => {
    const doomed = await newProject('doomed');
    const survivor = await newProject('survivor');
    const only = await uploadFile(t.admin, doomed, [random(2000)], { name: 'only-here' });
    const sharedBytes = random(3000);
    const shared = await uploadFile(t.admin, doomed, [sharedBytes], { name: 'shared' });
    const { id: open } = await t.admin.call('file/new', { project: doomed, name: 'open' });
    await t.admin.call('project-xxxx/clone', doomed, { objects: [shared], project: survivor });
    const { url } = await t.admin.call('file-xxxx/download', only, {});
    expect(await t.admin.call('project-xxxx/destroy', doomed, {})).toEqual({});
    await blobGone(only);
    await t.platform.services.files.collectGarbage();
    expect(await blobExists(t.platform, shared)).toBe(true);
    expect(sha256(await downloadBytes(t.admin, shared, survivor))).toBe(sha256(sharedBytes));
    await expectApiError(t.admin.call('file-xxxx/describe', open, {}), 'ResourceNotFound');
    // A URL handed out before the destroy no longer serves anything.
    // (S3 answers 403 rather than 404 for a missing key when the signer may not list the bucket.)
    expect(backend.blobs === 's3' ? [403, 404] : [404]).toContain((await fetchBytes(url)).status);
  });
});
