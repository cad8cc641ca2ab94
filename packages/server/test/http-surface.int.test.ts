/**
 * What the server answers besides the API routes' bodies: CORS for browser clients on other origins,
 * the MalformedJSON and oversized-body errors, the OpenAPI reference, the web app's start-up files,
 * health and readiness.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from './harness.js';

describe('the HTTP surface of the server', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform();
  }, 60_000);
  afterAll(() => t?.close());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${t.url}${path}`, { method: 'POST', body, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json', ...headers } });

  it('answers CORS preflights and echoes the Origin on calls, with credentials', async () => {
    const origin = 'https://notebook.example.org';
    const preflight = await fetch(`${t.url}/system/whoami`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const call = await post('/system/whoami', '{}', { origin });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBe(origin);
    expect(await call.json()).toEqual({ id: 'user-admin' });
  });

  it('answers a body that is not JSON with MalformedJSON (400), and one over the limit with InvalidInput (413)', async () => {
    const broken = await post('/system/whoami', '{"oops": ');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { type: string } }).error.type).toBe('MalformedJSON');
    const huge = await post('/system/whoami', JSON.stringify({ padding: 'x'.repeat(t.platform.config.bodyLimitBytes + 1) }));
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { error: { type: string } }).error.type).toBe('InvalidInput');
  });

  it('serves the OpenAPI reference generated from the contract', async () => {
    const document = (await (await fetch(`${t.url}/api-docs/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\./);
    const paths = Object.keys(document.paths);
    expect(paths).toEqual(expect.arrayContaining(['/system/findProjects', '/file/new']));
    expect(paths.some((route) => route.endsWith('/listFolder'))).toBe(true);
    const page = await fetch(`${t.url}/api-docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('/system/findProjects');
    expect(html).toContain('href="/api-docs/openapi.json"');
  });

  it('serves the start-up files of the web app, and health and readiness', async () => {
    const manifest = await fetch(`${t.url}/deployManifest.json`);
    expect(manifest.status).toBe(200);
    expect(await manifest.json()).toEqual({ configFile: 'panx', version: expect.any(String), apiServer: t.url });
    const config = await fetch(`${t.url}/asset/panx/config.json`);
    expect(config.status).toBe(200);
    // The runtime configuration, as system/getUIConfig answers it.
    expect(await config.json()).toEqual(await t.admin.post('system', 'getUIConfig', {}));
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
    const ready = await fetch(`${t.url}/ready`);
    expect(ready.status).toBe(200);
    // Free space of the local folders written to (SQLite's and the blob store's), for monitoring.
    const free = ((await ready.json()) as { freeBytes: Record<string, number> }).freeBytes;
    const expected = [...(t.platform.config.databaseUrl ? [] : ['database']), ...(t.platform.config.s3 ? [] : ['blobs'])];
    expect(Object.keys(free).sort()).toEqual(expected.sort());
    for (const bytes of Object.values(free)) expect(bytes).toBeGreaterThan(0);
  });
});
