/**
 * Secrets never reach the log: passwords, session and API tokens, the administrator's token and the
 * credentials of signed upload and download URLs, at the most verbose level, through sign-in, API
 * calls, uploads, downloads and failed authentications.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@panx/client';
import { fetchBytes, uploadFile } from './data-helpers.js';
import { expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

describe('the server log', () => {
  let t: TestPlatform;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await startTestPlatform(undefined, { log: { level: 'trace', stream: { write: (line: string) => lines.push(line) } } });
  }, 60_000);
  afterAll(() => t?.close());

  it('holds no password, token or URL signature, though it logs every request', async () => {
    const password = 'correct-horse-battery-staple-42';
    await t.admin.call('user/new', { username: 'carol', email: 'carol@example.org', first: 'Carol', last: 'Log', password });
    const anonymous = createClient({ baseUrl: t.url, retries: 0 });
    const { access_token: session } = await anonymous.call('system/newAuthToken', { username: 'carol', password });
    await expectApiError(anonymous.call('system/newAuthToken', { username: 'carol', password: `${password}-wrong` }), 'InvalidAuthentication');
    const carol = createClient({ baseUrl: t.url, token: session, retries: 0 });
    const { access_token: apiToken } = await carol.call('system/newAuthToken', { label: 'scripts' });
    const scripted = createClient({ baseUrl: t.url, token: apiToken, retries: 0 });
    const { id: project } = await scripted.call('project/new', { name: 'logged' });
    const file = await uploadFile(scripted, project, [Buffer.from('secret-free bytes\n')], { name: 'a.txt' });
    const upload = await scripted.call('file/new', { project, name: 'b.txt' });
    const { url: uploadUrl } = await scripted.call('file-xxxx/upload', upload.id, { index: 1 });
    const { url: downloadUrl } = await scripted.call('file-xxxx/download', file, { project });
    expect((await fetchBytes(downloadUrl)).status).toBe(200);
    const badToken = 'not-a-real-token-0123456789abcdef';
    await expectApiError(createClient({ baseUrl: t.url, token: badToken, retries: 0 }).call('system/whoami', {}), 'InvalidAuthentication');

    const log = lines.join('');
    // It is the server's log at work: requests are there.
    expect(log).toContain('/system/newAuthToken');
    expect(log).toContain(`/${file}/download`);
    const signatures = [uploadUrl, downloadUrl].map((url) => new URL(url).searchParams.get('sig')).filter((sig): sig is string => Boolean(sig));
    expect(signatures.length).toBeGreaterThan(0);
    for (const secret of [password, session, apiToken, t.adminToken, badToken, ...signatures]) expect(log).not.toContain(secret);
  });
});
