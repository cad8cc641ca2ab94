import { describe, expect, it } from 'vitest';
import { boot, CONFIG_ERROR, errorPageUrl, MANIFEST_ERROR } from './boot';
import { apiBaseUrl, defaultConfig, mergeConfig } from './config';

type Answer = { status: number; body?: unknown; text?: string } | Error;

interface Call {
  url: string;
  init: RequestInit | undefined;
}

/** A fetch that answers by URL suffix and records every call. */
function fakeFetch(answers: Record<string, Answer>) {
  const calls: Call[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = String(input);
    calls.push({ url, init });
    const key = Object.keys(answers).find((suffix) => url.endsWith(suffix));
    const answer = key ? answers[key] : { status: 404, body: { error: { type: 'ResourceNotFound' } } };
    if (!answer) throw new Error('unreachable');
    if (answer instanceof Error) throw answer;
    const text = answer.text ?? JSON.stringify(answer.body ?? {});
    return new Response(text, { status: answer.status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

const headersOf = (call: Call | undefined): Record<string, string> => (call?.init?.headers ?? {}) as Record<string, string>;

const origin = 'http://panx.test:8080';
const manifest = { configFile: 'panx', version: '1.2.3', apiServer: origin };
const localConfig = {
  apiServer: { proto: 'http', host: 'panx.test', port: 8080, hostName: 'panx.test:8080' },
  heartbeat: 120_000,
  featuredProjects: ['project-local'],
  flags: { enableTREManagement: true },
};

describe('boot (SPEC §7 start-up sequence)', () => {
  it('fetches manifest, then config, then getUIConfig with the bearer token and merges it over the local config', async () => {
    const { fetch, calls } = fakeFetch({
      '/deployManifest.json': { status: 200, body: manifest },
      '/asset/panx/config.json': { status: 200, body: localConfig },
      '/system/getUIConfig': { status: 200, body: { featuredProjects: ['project-remote'], flags: { rstudioEnabled: true } } },
    });
    const result = await boot({ fetch, origin, host: 'panx.test:8080', token: 'secret-token' });
    expect(calls.map((call) => call.url)).toEqual([
      `${origin}/deployManifest.json`,
      `${origin}/asset/panx/config.json`,
      'http://panx.test:8080/system/getUIConfig',
    ]);
    const uiCall = calls[2];
    expect(uiCall?.init?.method).toBe('POST');
    expect(uiCall?.init?.credentials).toBe('include');
    expect(headersOf(uiCall).authorization).toBe('Bearer secret-token');
    expect(JSON.parse(String(uiCall?.init?.body))).toEqual({ host: 'panx.test:8080' });
    expect(result.kind).toBe('ready');
    if (result.kind !== 'ready') return;
    expect(result.remoteConfigLoaded).toBe(true);
    expect(result.config.featuredProjects).toEqual(['project-remote']);
    // flags merge: local on, remote on, everything else defaults to off
    expect(result.config.flags.enableTREManagement).toBe(true);
    expect(result.config.flags.rstudioEnabled).toBe(true);
    expect(result.config.flags.enablePanxOmicsDataDiscoverySearch).toBe(false);
    expect(result.apiBaseUrl).toBe('http://panx.test:8080');
  });

  it('sends no authorization header without a stored token', async () => {
    const { fetch, calls } = fakeFetch({
      '/deployManifest.json': { status: 200, body: manifest },
      '/asset/panx/config.json': { status: 200, body: localConfig },
      '/system/getUIConfig': { status: 200, body: {} },
    });
    await boot({ fetch, origin, host: 'panx.test', token: undefined });
    expect(headersOf(calls[2]).authorization).toBeUndefined();
  });

  it.each<[string, Answer]>([
    ['an HTTP error', { status: 500, body: { error: { type: 'InternalError' } } }],
    ['a network error', new TypeError('Failed to fetch')],
  ])('falls back to the local config alone when getUIConfig fails with %s', async (_name, answer) => {
    const { fetch } = fakeFetch({
      '/deployManifest.json': { status: 200, body: manifest },
      '/asset/panx/config.json': { status: 200, body: localConfig },
      '/system/getUIConfig': answer,
    });
    const result = await boot({ fetch, origin, host: 'panx.test', token: 't' });
    expect(result.kind).toBe('ready');
    if (result.kind !== 'ready') return;
    expect(result.remoteConfigLoaded).toBe(false);
    expect(result.config.featuredProjects).toEqual(['project-local']);
  });

  it.each<[string, Record<string, Answer>, number, string]>([
    ['manifest 404', { '/deployManifest.json': { status: 404 } }, 404, MANIFEST_ERROR],
    ['manifest 503', { '/deployManifest.json': { status: 503 } }, 503, MANIFEST_ERROR],
    ['manifest not JSON', { '/deployManifest.json': { status: 200, text: '<html>' } }, 200, MANIFEST_ERROR],
    ['manifest without configFile', { '/deployManifest.json': { status: 200, body: { version: '1' } } }, 200, MANIFEST_ERROR],
    ['manifest network error', { '/deployManifest.json': new TypeError('Failed to fetch') }, 0, 'Failed to fetch'],
    ['config 500', { '/deployManifest.json': { status: 200, body: manifest }, '/asset/panx/config.json': { status: 500 } }, 500, CONFIG_ERROR],
    [
      'config not JSON',
      { '/deployManifest.json': { status: 200, body: manifest }, '/asset/panx/config.json': { status: 200, text: '{"apiServer":' } },
      200,
      CONFIG_ERROR,
    ],
    [
      'config network error',
      { '/deployManifest.json': { status: 200, body: manifest }, '/asset/panx/config.json': new TypeError('NetworkError when attempting to fetch resource.') },
      0,
      'NetworkError when attempting to fetch resource.',
    ],
  ])('%s sends the browser to the error page', async (_name, answers, status, message) => {
    const { fetch, calls } = fakeFetch(answers);
    const result = await boot({ fetch, origin, host: 'panx.test', token: undefined });
    expect(result).toEqual({ kind: 'error-page', status, message, url: errorPageUrl(status, message) });
    expect(calls.some((call) => call.url.endsWith('/system/getUIConfig'))).toBe(false);
  });

  it('builds the error page URL with status and message query parameters', () => {
    const url = new URL(errorPageUrl(500, CONFIG_ERROR), 'http://x');
    expect(url.pathname).toBe('/error/error.html');
    expect(url.searchParams.get('status')).toBe('500');
    expect(url.searchParams.get('message')).toBe("Couldn't load config");
  });

  it('goes to maintenance when the merged config has maintenanceWindow.active', async () => {
    const { fetch } = fakeFetch({
      '/deployManifest.json': { status: 200, body: manifest },
      '/asset/panx/config.json': { status: 200, body: localConfig },
      '/system/getUIConfig': { status: 200, body: { maintenanceWindow: { active: true, message: 'Upgrading' } } },
    });
    const result = await boot({ fetch, origin, host: 'panx.test', token: undefined });
    expect(result.kind).toBe('maintenance');
  });
});

describe('mergeConfig', () => {
  it('defaults every flag to off and ignores non-boolean flag values', () => {
    const config = mergeConfig(defaultConfig(origin), { flags: { rstudioEnabled: 'yes', enableCohortCombine: true } });
    expect(config.flags.rstudioEnabled).toBe(false);
    expect(config.flags.enableCohortCombine).toBe(true);
    expect(config.maintenanceWindow.active).toBe(false);
  });

  it('merges nested objects one level deep', () => {
    const config = mergeConfig(defaultConfig(origin), { sessionTimeout: { highSecurity: 60_000 } });
    expect(config.sessionTimeout.highSecurity).toBe(60_000);
    expect(config.sessionTimeout.normalSecurity).toBe(3_600_000);
    expect(config.sessionTimeout.gracePeriod).toBe(120_000);
  });
});

describe('apiBaseUrl', () => {
  it.each([
    [{ proto: 'https', host: 'api.example.org', port: 443, hostName: '' }, 'https://api.example.org'],
    [{ proto: 'http', host: 'localhost', port: 8080, hostName: '' }, 'http://localhost:8080'],
    [{ proto: 'https:', host: 'x', port: 1, hostName: 'api.example.org:8443' }, 'https://api.example.org:8443'],
  ])('%j → %s', (apiServer, expected) => {
    expect(apiBaseUrl({ ...defaultConfig(origin), apiServer })).toBe(expected);
  });
});
