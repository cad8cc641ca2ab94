import fs from 'node:fs';
import path from 'node:path';
import { createClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../server/src/modules/auth/totp.js';
import { expectApiError, startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { buildProgram } from '../src/program.js';
import { type PxOptions, pxOk, runPx, tempDir } from './run-px.js';

describe('px sessions, projects, api and administration against a real server', () => {
  let t: TestPlatform;
  let home: string;
  let alpha: string;
  let beta: string;
  const opts = (extra: Partial<PxOptions> = {}): PxOptions => ({ configDir: home, ...extra });
  const px = (...args: string[]) => runPx(args, opts());
  const ok = (...args: string[]) => pxOk(args, opts());
  const json = async <T>(...args: string[]): Promise<T> => JSON.parse(await ok(...args, '--json')) as T;

  beforeAll(async () => {
    t = await startTestPlatform();
    home = tempDir('px-home-');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('logs in with a token, keeps it in a mode-600 file and says who is signed in', async () => {
    const notYet = await px('whoami');
    expect(notYet.code).toBe(1);
    expect(notYet.stderr).toMatch(/^error: not logged in/);

    expect(await ok('login', '--server', `${t.url}/`, '--token', t.adminToken)).toBe(`Logged in to ${t.url} as admin\n`);
    const file = path.join(home, 'config.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ server: t.url, token: t.adminToken, userId: 'user-admin' });
    expect(await ok('whoami')).toBe('admin\n');
    expect(await ok('whoami', '--id')).toBe('user-admin\n');
    expect(await json('env')).toMatchObject({ server: t.url, user: 'admin', configFile: file });

    const bad = await runPx(['login', '--server', t.url, '--token', 'not-a-token-at-all'], opts({ configDir: tempDir('bad-', home) }));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: InvalidAuthentication: /);
  });

  it('logs in with a password (given or on stdin) and logout revokes that session token', async () => {
    const { id } = await t.admin.call('user/new', { username: 'carol', email: 'carol@example.org', first: 'Carol', last: 'C', password: 'carol-password' });
    const other = tempDir('carol-', home);
    const asCarol = (args: string[], input?: string) => runPx(args, { configDir: other, input });
    expect((await asCarol(['login', '--server', t.url, '--username', 'carol', '--password', 'carol-password'])).stdout).toBe(
      `Logged in to ${t.url} as carol\n`,
    );
    expect((await asCarol(['whoami', '--id'])).stdout).toBe(`${id}\n`);
    const saved = JSON.parse(fs.readFileSync(path.join(other, 'config.json'), 'utf8')) as { token: string; tokenKind: string };
    expect(saved.tokenKind).toBe('session');

    expect((await asCarol(['logout'])).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(other, 'config.json'), 'utf8'))).toEqual({ server: t.url });
    await expectApiError(createClient({ baseUrl: t.url, token: saved.token, retries: 0 }).call('system/whoami', {}), 'InvalidAuthentication');

    const piped = await asCarol(['login', '--username', 'carol'], 'carol-password\n');
    expect(piped.code).toBe(0);
    expect((await asCarol(['whoami'])).stdout).toBe('carol\n');
    const wrong = await asCarol(['login', '--username', 'carol', '--password', 'nope-nope']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe('error: InvalidAuthentication: Incorrect username or password\n');
  });

  it('asks for the one-time code of a two-factor account (or takes --otp), and refuses a wrong one', async () => {
    await t.admin.call('user/new', { username: 'dave', email: 'dave@example.org', first: 'Dave', last: 'D', password: 'dave-password' });
    const dave = createClient({
      baseUrl: t.url,
      token: (await createClient({ baseUrl: t.url, retries: 0 }).call('system/newAuthToken', { username: 'dave', password: 'dave-password' })).access_token,
      retries: 0,
    });
    const { secret } = await dave.call('system/startTwoFactorEnrolment', {});
    const { backupCodes } = await dave.call('system/confirmTwoFactorEnrolment', { code: totpCode(secret, Date.now()) });
    const dir = tempDir('dave-', home);
    const asDave = (args: string[], input?: string) => runPx(['login', '--server', t.url, '--username', 'dave', ...args], { configDir: dir, input });

    // Password and code on stdin, one per line, as a script would pipe them.
    const code = totpCode(secret, Date.now());
    const piped = await asDave([], `dave-password\n${code}\n`);
    expect(piped).toMatchObject({ code: 0, stdout: `Logged in to ${t.url} as dave\n` });
    expect((await runPx(['whoami'], { configDir: dir })).stdout).toBe('dave\n');

    // A code signs in once; a backup code does too.
    const again = await asDave(['--password', 'dave-password', '--otp', code]);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('already been used') });
    expect((await asDave(['--password', 'dave-password', '--otp', backupCodes[0] as string])).code).toBe(0);
    const wrong = await asDave(['--password', 'dave-password', '--otp', totpCode(secret, Date.now()) === '000000' ? '111111' : '000000']);
    expect(wrong).toMatchObject({ code: 1, stderr: 'error: InvalidAuthentication: The one-time code is not valid\n' });
    const none = await asDave(['--password', 'dave-password'], '\n');
    expect(none).toMatchObject({ code: 3 });
    expect(none.stderr).toContain('no one-time code given');
  });

  it('creates and selects projects, and changes folder', async () => {
    alpha = (await ok('new', 'project', 'alpha', '--select')).trim();
    expect(alpha).toMatch(/^project-[0-9A-Za-z]{24}$/);
    beta = (await json<{ id: string }>('new', 'project', 'beta')).id;
    const saved = () => JSON.parse(fs.readFileSync(path.join(home, 'config.json'), 'utf8')) as { project?: string; projectName?: string; cwd?: string };
    expect(await ok('pwd')).toBe('alpha:/\n');
    expect(await ok('select', 'beta')).toBe(`Selected project beta (${beta})\n`);
    expect(saved()).toMatchObject({ project: beta, projectName: 'beta', cwd: '/' });
    const listed = await ok('select');
    expect(listed).toMatch(new RegExp(`1  alpha +${alpha}  ADMINISTER|1  beta +${beta}  ADMINISTER`));
    expect(listed).toContain(alpha);
    expect(listed).toContain(beta);
    await ok('select', alpha);

    await ok('mkdir', '-p', '/a/b/c');
    await ok('cd', 'a/b');
    expect(saved()).toMatchObject({ project: alpha, cwd: '/a/b' });
    await ok('cd', '..');
    expect(await ok('pwd')).toBe('alpha:/a\n');
    const missing = await px('cd', '/nope');
    expect(missing).toMatchObject({ code: 1, stderr: 'error: ResourceNotFound: no folder alpha:/nope\n' });
    await ok('cd', 'beta:/');
    expect(saved()).toMatchObject({ project: beta, projectName: 'beta', cwd: '/' });
    await ok('cd', 'alpha:');
    expect(saved()).toMatchObject({ project: alpha, projectName: 'alpha', cwd: '/' });
  });

  it('calls any route with px api, the input as an argument or on stdin', async () => {
    expect(JSON.parse(await ok('api', 'system', 'whoami'))).toEqual({ id: 'user-admin' });
    expect(JSON.parse(await ok('api', alpha, 'describe', '{"fields":{"name":true}}'))).toEqual({ id: alpha, name: 'alpha' });
    await t.admin.call('project-xxxx/addTags', alpha, { tags: ['ptag'] });
    const fromStdin = await pxOk(['api', alpha, 'describe', '-'], opts({ input: '{"fields":{"tags":true}}' }));
    expect(JSON.parse(fromStdin)).toEqual({ id: alpha, tags: ['ptag'] });
    expect(await px('api', 'system', 'whoami', '{oops')).toMatchObject({ code: 3 });
    const unknown = await px('api', 'system', 'noSuchMethod');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('error: ResourceNotFound: The route /system/noSuchMethod does not exist\n');
  });

  it('administers user accounts and API tokens', async () => {
    const created = await ok(
      'admin',
      'user',
      'new',
      '--username',
      'erin',
      '--email',
      'erin@example.org',
      '--first',
      'Erin',
      '--last',
      'E',
      '--password',
      'erin-password',
    );
    expect(created).toBe('user-erin\n');
    type UserRow = { id: string; disabled?: boolean; email?: string };
    expect((await json<UserRow[]>('admin', 'user', 'list')).find((user) => user.id === 'user-erin')).toMatchObject({ email: 'erin@example.org' });
    await ok('admin', 'user', 'disable', 'erin');
    expect((await json<UserRow[]>('admin', 'user', 'list')).map((user) => user.id)).not.toContain('user-erin');
    expect((await json<UserRow[]>('admin', 'user', 'list', '--all')).find((user) => user.id === 'user-erin')).toMatchObject({ disabled: true });
    await expectApiError(
      createClient({ baseUrl: t.url, retries: 0 }).call('system/newAuthToken', { username: 'erin', password: 'erin-password' }),
      'InvalidAuthentication',
    );
    await ok('admin', 'user', 'enable', 'user-erin');
    await createClient({ baseUrl: t.url, retries: 0 }).call('system/newAuthToken', { username: 'erin', password: 'erin-password' });

    const token = (await ok('admin', 'token', 'new', '--label', 'ci', '--project', 'alpha', '--level', 'VIEW')).trim();
    const scoped = tempDir('scoped-', home);
    const asToken = (...args: string[]) => runPx(args, { configDir: scoped, env: { PANX_SERVER: t.url, PANX_TOKEN: token, PANX_PROJECT: alpha } });
    expect((await asToken('ls', '/a')).stdout).toBe('b/\n');
    const denied = await asToken('mkdir', '/z');
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/^error: PermissionDenied: /);
    const tokens = await json<{ id: string; label: string; scope: unknown }[]>('admin', 'token', 'list');
    const ci = tokens.find((entry) => entry.label === 'ci');
    expect(ci?.scope).toEqual({ projects: { [alpha]: 'VIEW' } });
    await ok('admin', 'token', 'revoke', ci?.id ?? '');
    expect((await asToken('whoami')).stderr).toMatch(/^error: InvalidAuthentication: /);
  });

  it('exits 3 on usage errors and prints help for every command', async () => {
    expect(await px('ls', '--bogus')).toMatchObject({ code: 3 });
    expect(await px('frobnicate')).toMatchObject({ code: 3 });
    expect((await px('mv', 'only-one')).stderr).toBe('error: give at least one source and a destination\n');
    const help = await px('upload', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: px upload \[options\] <paths\.\.\.>/);

    // Every command of the tree documents itself.
    const program = buildProgram();
    const walk = (command: typeof program, trail: string[]): string[][] =>
      command.commands.flatMap((sub) => [[...trail, sub.name()], ...walk(sub, [...trail, sub.name()])]);
    const all = walk(program, []);
    for (const name of ['login', 'logout', 'whoami', 'select', 'pwd', 'cd', 'env', 'ls', 'mkdir', 'rmdir', 'rm', 'mv', 'cp', 'describe', 'cat']) {
      expect(all.map((trail) => trail.join(' '))).toContain(name);
    }
    for (const name of ['tag', 'untag', 'set_properties', 'unset_properties', 'rename', 'find data', 'find projects', 'new project', 'invite', 'uninvite']) {
      expect(all.map((trail) => trail.join(' '))).toContain(name);
    }
    for (const name of ['api', 'upload', 'download', 'admin user new', 'admin user list', 'admin user disable', 'admin token new', 'admin token revoke']) {
      expect(all.map((trail) => trail.join(' '))).toContain(name);
    }
    const find = (trail: string[]) => trail.reduce((command, name) => command.commands.find((sub) => sub.name() === name) ?? command, program);
    for (const trail of all) {
      const command = find(trail);
      expect(command.description(), trail.join(' ')).not.toBe('');
      expect(command.helpInformation()).toContain(`Usage: px ${trail.join(' ')}`);
    }
  });
});
