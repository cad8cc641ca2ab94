/**
 * Bad input never gets a 5xx. Every route of the contract's endpoint table is sent arbitrary bodies
 * (shaped by its input schema, with type confusion, nasty strings, malformed JSON and odd content
 * types mixed in) by an authenticated user, on ids that exist, ids that do not and ids that are not
 * ids. Every answer must be JSON, below 500, and an error must carry the DNAnexus envelope with a
 * known type and that type's status.
 *
 * PANX_FUZZ_RUNS sets the samples per route (default 30); PANX_FUZZ_SEED replays a run.
 */
import http from 'node:http';
import { ERROR_STATUS, type ErrorType, endpoints, errorEnvelopeSchema, type RouteSpec } from '@panx/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_ROUTES } from '../src/http/handler.js';
import { uploadFile } from './data-helpers.js';
import { asNode, BAD_IDS, bodyText, contentType, fromSchema, type Pools, UNKNOWN_IDS } from './fuzz.arbitraries.js';
import { BACKENDS, startTestPlatform, type TestPlatform } from './harness.js';

const RUNS = Number(process.env.PANX_FUZZ_RUNS ?? 30);
/** PANX_FUZZ_STATS=1 prints how the samples of each route were answered (to see how deep the fuzzing reaches). */
const STATS = process.env.PANX_FUZZ_STATS === '1';
const SEED = process.env.PANX_FUZZ_SEED ? Number(process.env.PANX_FUZZ_SEED) : undefined;
const ROUTES = Object.entries(endpoints as Record<string, RouteSpec>);
/** Errors a deterministic bad request may get: everything but InternalError and ServiceUnavailable. */
const CLIENT_ERRORS = new Set(Object.keys(ERROR_STATUS).filter((type) => type !== 'InternalError' && type !== 'ServiceUnavailable'));

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

async function post(url: string, options: { token?: string; body: string; type?: string; authorization?: string }): Promise<Answer> {
  const headers: Record<string, string> = {};
  const authorization = options.authorization ?? (options.token ? `Bearer ${options.token}` : undefined);
  if (authorization) headers.authorization = authorization;
  if (options.type) headers['content-type'] = options.type;
  // A Uint8Array body goes without any Content-Type; a string one would get text/plain.
  const body = options.type ? options.body : new TextEncoder().encode(options.body);
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** Sends over a connection of its own that is dropped afterwards (for bodies the server stops reading). */
function postOnce(url: string, body: Buffer, type: string, token: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': type, 'content-length': body.length, authorization: `Bearer ${token}`, connection: 'close' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          });
          request.destroy();
        });
      },
    );
    // The server may answer and stop reading before the body is sent: that is not a failure here.
    request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    request.end(body);
  });
}

/** The invariants every answer keeps; returns the error type (or 'ok'). */
function checkAnswer(answer: Answer, what: string): string {
  const context = `${what} → ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, context).toBeLessThan(500);
  expect(answer.contentType, context).toMatch(/^application\/json\b/);
  const parsed: unknown = JSON.parse(answer.text);
  if (answer.status < 400) {
    expect(answer.status, context).toBe(200);
    return 'ok';
  }
  const envelope = errorEnvelopeSchema.safeParse(parsed);
  expect(envelope.success, context).toBe(true);
  const type = envelope.data?.error.type ?? '';
  expect(CLIENT_ERRORS.has(type), context).toBe(true);
  const status = ERROR_STATUS[type as ErrorType];
  if (!(answer.status === 413 && type === 'InvalidInput')) expect(answer.status, context).toBe(status);
  return type;
}

describe.each(BACKENDS)('fuzzing every route on $name', (backend) => {
  let t: TestPlatform;
  let fuzzer: { id: string; token: string };
  let otherUser: string;
  let org: string;
  let base: { project: string; closedFile: string };

  beforeAll(async () => {
    t = await startTestPlatform(backend);
    const user = await t.newUser();
    fuzzer = { id: user.id, token: user.token };
    otherUser = (await t.newUser()).id;
    org = (await user.client.call('org/new', { handle: `fuzz${Date.now().toString(36)}`, name: 'Fuzz org' })).id;
    const { id: project } = await user.client.call('project/new', { name: 'fuzz base' });
    const closedFile = await uploadFile(user.client, project, [Buffer.from('fuzz')], { name: 'closed.txt' });
    base = { project, closedFile };
  }, 120_000);
  afterAll(() => t?.close());

  /** A fresh API token for the fuzzer (routes may revoke the one they use). */
  async function freshToken(): Promise<{ token: string; tokenId: string }> {
    const issued = await t.platform.services.auth.issue(
      fuzzer.id,
      { kind: 'api', label: 'fuzz', expires: Date.now() + 3_600_000, securityLevel: null, scope: null },
      Date.now(),
    );
    return { token: issued.access_token, tokenId: issued.token_id };
  }

  /** A project of the fuzzer's with folders and objects of each state, so that calls can reach the services. */
  async function freshWorld() {
    const { token, tokenId } = await freshToken();
    const call = (subject: string, method: string, body: object) =>
      post(`${t.url}/${subject}/${method}`, { token, body: JSON.stringify(body), type: 'application/json' }).then(
        (answer) => JSON.parse(answer.text) as { id: string },
      );
    const { id: project } = await call('project', 'new', { name: 'fuzz' });
    await call(project, 'newFolder', { folder: '/data/sub', parents: true });
    const { id: closedRecord } = await call('record', 'new', { project, folder: '/data', name: 'closed', close: true, details: { a: 1 } });
    const { id: openRecord } = await call('record', 'new', { project, folder: '/data', name: 'open' });
    const { id: openFile } = await call('file', 'new', { project, folder: '/data', name: 'open.txt' });
    await call(base.project, 'clone', { objects: [base.closedFile], project, destination: '/data' });
    const ids: Record<string, string[]> = {
      project: [project, base.project],
      container: [],
      file: [openFile, base.closedFile],
      record: [closedRecord, openRecord],
      user: [fuzzer.id, otherUser],
      org: [org],
    };
    const pools: Pools = { realIds: [...Object.values(ids).flat(), tokenId] };
    return { token, ids, pools };
  }

  function subjectsFor(route: RouteSpec, ids: Record<string, string[]>): string[] {
    if (route.kind === 'system') return ['system'];
    const cls = route.entityClass ?? '';
    if (route.kind === 'class') return [cls];
    const unknown = UNKNOWN_IDS.filter((id) => id.startsWith(`${cls}-`));
    const bad = BAD_IDS.filter((id) => id.startsWith(`${cls}-`)).concat(`${cls}-\u0000${'B'.repeat(23)}`, `${cls}-%2e%2e`);
    return [...(ids[cls] ?? []), ...unknown, ...bad];
  }

  /** Mostly ids that exist (so that bodies reach the services), then unknown ones, then malformed ones. */
  function subjectArbitrary(route: RouteSpec, ids: Record<string, string[]>): fc.Arbitrary<string> {
    const all = subjectsFor(route, ids);
    const real = ids[route.entityClass ?? ''] ?? [];
    if (route.kind !== 'instance' || !real.length) return fc.constantFrom(...all);
    return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...real) }, { weight: 1, arbitrary: fc.constantFrom(...all) });
  }

  for (const [path, route] of ROUTES) {
    it(`${path}: arbitrary bodies get JSON answers below 500`, async () => {
      const world = await freshWorld();
      let token = world.token;
      const seen = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(subjectArbitrary(route, world.ids), bodyText(asNode(route.input), world.pools), contentType(), async (subject, body, type) => {
          const answer = await post(`${t.url}/${encodeURIComponent(subject)}/${route.method}`, { token, body, type });
          const outcome = checkAnswer(answer, `${subject}/${route.method} ${type ?? '(no content-type)'} ${body.slice(0, 300)}`);
          seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
          // The body may have revoked the token it came with (destroyAuthToken): carry on with a new one.
          if (outcome === 'InvalidAuthentication') token = (await freshToken()).token;
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      if (STATS) console.log(path, Object.fromEntries(seen));
    });
  }

  it('answers unknown ids of every class with ResourceNotFound, and malformed ids with InvalidInput', async () => {
    const world = await freshWorld();
    for (const [path, route] of ROUTES.filter(([, r]) => r.kind === 'instance')) {
      const cls = route.entityClass ?? '';
      // A body that passes the route's validation, so that the id is what the call stumbles on.
      const valid =
        fc
          .sample(fromSchema(asNode(route.input), world.pools, { wild: false }), { numRuns: 500, seed: 7 })
          .find((value) => route.input.safeParse(value).success) ?? {};
      for (const id of UNKNOWN_IDS.filter((unknown) => unknown.startsWith(`${cls}-`))) {
        const answer = await post(`${t.url}/${id}/${route.method}`, { token: world.token, body: JSON.stringify(valid), type: 'application/json' });
        expect(checkAnswer(answer, `${path} on ${id} with ${JSON.stringify(valid)}`), `${path} on ${id}`).toBe('ResourceNotFound');
      }
      if (cls === 'user' || cls === 'org') continue; // handles: any text is a well-formed (unknown) handle
      for (const id of [`${cls}-123`, `${cls}-${'B'.repeat(25)}`, `${cls}-${'B'.repeat(23)}!`]) {
        const answer = await post(`${t.url}/${encodeURIComponent(id)}/${route.method}`, { token: world.token, body: '{}', type: 'application/json' });
        expect(checkAnswer(answer, `${path} on ${id}`), `${path} on ${id}`).toBe('InvalidInput');
      }
    }
  });

  it('answers every route without a valid token with InvalidAuthentication (public routes aside)', async () => {
    const world = await freshWorld();
    const publicRoutes = new Set<string>(PUBLIC_ROUTES);
    const authorizations = [undefined, 'Bearer', 'Bearer nope', `Basic ${Buffer.from('a:b').toString('base64')}`, `Bearer ${world.token} extra`, 'PUBLIC'];
    for (const [path, route] of ROUTES) {
      if (publicRoutes.has(path)) continue;
      const subject = subjectsFor(route, world.ids)[0] ?? 'system';
      for (const authorization of authorizations) {
        const answer = await post(`${t.url}/${subject}/${route.method}`, { authorization: authorization ?? '', body: '{}', type: 'application/json' });
        expect(checkAnswer(answer, `${path} with ${authorization}`), `${path} with ${authorization}`).toBe('InvalidAuthentication');
      }
    }
  });

  it('answers routes and methods that do not exist with ResourceNotFound', async () => {
    const { token } = await freshToken();
    const attempts: [string, string][] = [
      ['POST', '/system/noSuchMethod'],
      ['POST', '/nosuchclass/new'],
      ['POST', `/${base.project}/noSuchMethod`],
      ['POST', '/app-nobody/1.0.0/describe'],
      ['POST', '/system'],
      ['POST', '/'],
      ['GET', '/system/whoami'],
      ['PUT', '/system/whoami'],
      ['DELETE', `/${base.project}/destroy`],
    ];
    for (const [method, path] of attempts) {
      const response = await fetch(`${t.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : '{}',
      });
      const answer = { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
      expect(checkAnswer(answer, `${method} ${path}`), `${method} ${path}`).toBe('ResourceNotFound');
    }
  });

  it('answers a body over the size limit with InvalidInput (413), whatever its content type', async () => {
    const { token } = await freshToken();
    const limit = t.platform.config.bodyLimitBytes;
    const json = Buffer.from(`{"name":"${'x'.repeat(limit)}"}`);
    const asJson = await postOnce(`${t.url}/project/new`, json, 'application/json', token);
    expect(checkAnswer(asJson, 'oversized JSON')).toBe('InvalidInput');
    expect(asJson.status).toBe(413);
    const asText = await postOnce(`${t.url}/project/new`, json, 'text/plain', token);
    expect(checkAnswer(asText, 'oversized text/plain')).toBe('InvalidInput');
    // The server still answers afterwards.
    const after = await post(`${t.url}/system/whoami`, { token, body: '{}', type: 'application/json' });
    expect(checkAnswer(after, 'whoami after')).toBe('ok');
  });

  it('answers deep nesting, huge strings, NUL characters and lone surrogates without a 5xx', async () => {
    const world = await freshWorld();
    const [project] = world.ids.project as [string];
    const deep = (depth: number, inner = '"x"') => '['.repeat(depth) + inner + ']'.repeat(depth);
    const deepTags = (depth: number) => `${'{"$and":['.repeat(depth)}"x"${']}'.repeat(depth)}`;
    const cases: [string, string][] = [
      ['record/new', `{"project":"${project}","details":${deep(100_000)}}`],
      ['record/new', `{"project":"${project}","details":${deep(5_000)}}`],
      ['system/findDataObjects', `{"tags":${deepTags(5_000)}}`],
      ['system/findProjects', `{"properties":{"$or":${deep(3_000, '{}')}}}`],
      ['system/whoami', `{"a":${deep(100_000)}}`],
      ['system/whoami', deep(100_000)],
      ['project/new', JSON.stringify({ name: 'x'.repeat(10 * 1024 * 1024) })],
      ['project/new', JSON.stringify({ name: 'nul\u0000name' })],
      [`${project}/newFolder`, JSON.stringify({ folder: '/a\u0000b' })],
      ['system/newAuthToken', JSON.stringify({ username: 'nul\u0000user', password: 'whatever-password' })],
      [`${world.ids.file?.[0]}/describe`, JSON.stringify({ project: 'project-\u0000' })],
      ['user-nul%00handle/describe', '{}'],
      // A lone surrogate is valid JSON but not Unicode (the fuzzer once found a 500 with it as a download file name).
      [`${world.ids.file?.[0]}/download`, '{"filename":"\\ud800"}'],
      ['project/new', '{"name":"a\\udc00b"}'],
      ['record/new', `{"project":"${project}","details":{"\\ud83d":1}}`],
      ['system/findUsers', JSON.stringify({ name: { regexp: '(a+)+$' } })],
      ['system/findUsers', JSON.stringify({ name: { regexp: '[' } })],
    ];
    for (const [path, body] of cases) {
      const answer = await post(`${t.url}/${path}`, { token: world.token, body, type: 'application/json' });
      checkAnswer(answer, `${path} ${body.slice(0, 120)}`);
    }
  });
});
