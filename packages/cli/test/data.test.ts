import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { type PxOptions, pxOk, runPx, tempDir } from './run-px.js';

describe.each(BACKENDS)('px data commands against a real server on $name', (backend) => {
  let t: TestPlatform;
  let home: string;
  let alpha: string;
  let beta: string;
  const opts = (extra: Partial<PxOptions> = {}): PxOptions => ({ configDir: home, ...extra });
  const px = (...args: string[]) => runPx(args, opts());
  const ok = (...args: string[]) => pxOk(args, opts());
  const json = async <T>(...args: string[]): Promise<T> => JSON.parse(await ok(...args, '--json')) as T;

  beforeAll(async () => {
    t = await startTestPlatform(backend);
    home = tempDir('px-data-home-');
    await ok('login', '--server', t.url, '--token', t.adminToken);
    alpha = (await ok('new', 'project', 'alpha', '--select')).trim();
    beta = (await t.admin.call('project/new', { name: 'beta' })).id;
    await t.admin.call('project-xxxx/newFolder', alpha, { folder: '/a/b/c', parents: true });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('makes, lists, moves, copies and removes folders and objects', async () => {
    const local = tempDir('local-', home);
    fs.writeFileSync(path.join(local, 'hello.txt'), 'hello world\n');
    fs.writeFileSync(path.join(local, 'notes.txt'), 'notes\n');
    await ok('mkdir', '/a/x');
    const hello = (await ok('upload', path.join(local, 'hello.txt'), '-d', '/a/', '--wait')).trim();
    const notes = (await ok('upload', path.join(local, 'notes.txt'), '-d', '/a/renamed-notes.txt', '--wait')).trim();
    expect(hello).toMatch(/^file-/);

    expect(await ok('ls')).toBe('a/\n');
    expect(await ok('ls', '/a')).toBe('b/\nx/\nhello.txt\nrenamed-notes.txt\n');
    const long = await ok('ls', '-l', 'a');
    expect(long).toMatch(new RegExp(`closed .*12 B +hello\\.txt \\(${hello}\\)`));
    const listing = await json<{ folders: string[]; objects: { id: string; name: string; size: number }[] }>('ls', 'alpha:/a');
    expect(listing.folders).toEqual(['/a/b', '/a/x']);
    expect(listing.objects.map((object) => [object.id, object.name, object.size])).toEqual([
      [hello, 'hello.txt', 12],
      [notes, 'renamed-notes.txt', 6],
    ]);
    expect(await ok('ls', '/a/*.txt')).toBe('hello.txt\nrenamed-notes.txt\n');

    // mv: into a folder, to a new name elsewhere, a folder into a folder, a folder to a new name.
    await ok('mv', '/a/hello.txt', '/a/x');
    expect(await t.admin.call('file-xxxx/describe', hello, { project: alpha })).toMatchObject({ folder: '/a/x', name: 'hello.txt' });
    await ok('mv', '/a/x/hello.txt', '/greeting.txt');
    expect(await t.admin.call('file-xxxx/describe', hello, { project: alpha })).toMatchObject({ folder: '/', name: 'greeting.txt' });
    await ok('mv', '/a/b', '/a/x');
    expect((await t.admin.call('project-xxxx/listFolder', alpha, { folder: '/a/x' })).folders).toEqual(['/a/x/b']);
    await ok('mv', '/a/x', '/y');
    expect((await t.admin.call('project-xxxx/listFolder', alpha, { folder: '/' })).folders).toEqual(['/a', '/y']);
    expect((await t.admin.call('project-xxxx/listFolder', alpha, { folder: '/y/b' })).folders).toEqual(['/y/b/c']);
    expect((await px('mv', '/greeting.txt', 'beta:/')).stderr).toMatch(/px mv moves within a project/);

    // cp: between projects only; objects keep their IDs; a folder goes with its contents.
    await ok('cp', '/greeting.txt', 'beta:/');
    await ok('cp', '/a', 'beta:/copied');
    const inBeta = await t.admin.call('system/findDataObjects', { scope: { project: beta }, describe: { fields: { name: true, folder: true } } });
    expect(inBeta.results.map((hit) => [hit.id, (hit.describe as { folder: string }).folder]).sort()).toEqual(
      [
        [hello, '/'],
        [notes, '/copied'],
      ].sort(),
    );
    const same = await px('cp', '/greeting.txt', '/y');
    expect(same.code).toBe(1);
    expect(same.stderr).toMatch(/copies between projects/);
    const again = await px('cp', '/greeting.txt', 'beta:/');
    expect(again.stderr).toContain(`${hello} is already in beta:/`);

    // rm and rmdir.
    await ok('rm', '/greeting.txt');
    await expectApiError(t.admin.call('file-xxxx/describe', hello, { project: alpha }), 'ResourceNotFound');
    expect(await t.admin.call('file-xxxx/describe', hello, { project: beta })).toMatchObject({ name: 'greeting.txt' });
    const folder = await px('rm', '/y');
    expect(folder).toMatchObject({ code: 1 });
    expect(folder.stderr).toMatch(/is a folder: use px rm -r/);
    await ok('rm', '-r', '/y');
    expect((await t.admin.call('project-xxxx/listFolder', alpha, { folder: '/' })).folders).toEqual(['/a']);
    await ok('mkdir', '/empty');
    await ok('rmdir', '/empty');
    expect((await px('rmdir', '/empty')).stderr).toMatch(/^error: ResourceNotFound: /);
    const nothing = await px('rm', '/a/no-such-thing');
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/^error: ResourceNotFound: no folder or data object/);
    fs.rmSync(local, { recursive: true, force: true });
  });

  it('shares a project with invite and uninvite', async () => {
    const dave = await t.newUser('dave');
    expect(await ok('invite', 'dave', 'VIEW')).toBe(`Invited user-dave to ${alpha} with VIEW access (ACCEPTED)\n`);
    expect((await dave.client.call('project-xxxx/describe', alpha, {})).level).toBe('VIEW');
    await ok('invite', 'user-dave', 'beta', 'contribute');
    expect((await dave.client.call('project-xxxx/describe', beta, {})).level).toBe('CONTRIBUTE');
    await ok('uninvite', 'dave');
    await expectApiError(dave.client.call('project-xxxx/describe', alpha, {}), 'ResourceNotFound');
    expect((await px('invite', 'dave', 'OWNER')).code).toBe(3);
  });
});
