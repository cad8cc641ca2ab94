import type { Readable } from 'node:stream';
import { describeZodError, endpoints, type RouteSpec } from '@panx/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, invalidInput, notFound } from '../errors.js';
import type { AuthService } from '../modules/auth/auth.service.js';
import type { Caller } from '../modules/auth/caller.js';
import type { NoncesService } from '../modules/nonces/nonces.service.js';
import { type Handler, PUBLIC_ROUTES } from './handler.js';

const HASH_ID = /^[0-9A-Za-z]{24}$/;
const HANDLE_CLASSES = new Set(['user', 'org', 'app', 'globalworkflow']);

/** `system`, `file`, `file-xxxx`, `user-alice` → the route key of the contract, and the entity id. */
export function routeKeyOf(subject: string, method: string): { key: string; id: string } {
  if (subject === 'system') return { key: `system/${method}`, id: '' };
  const dash = subject.indexOf('-');
  if (dash < 0) return { key: `${subject}/${method}`, id: '' };
  const cls = subject.slice(0, dash);
  const rest = subject.slice(dash + 1);
  if (!HANDLE_CLASSES.has(cls) && !HASH_ID.test(rest)) throw invalidInput(`"${subject}" is not a valid ID: expected ${cls}- followed by 24 letters and digits`);
  return { key: `${cls}-xxxx/${method}`, id: subject };
}

/** Deeper than this no route's input makes sense, and validating or storing it could run out of stack. */
export const MAX_JSON_DEPTH = 100;

/**
 * Rejects what no route accepts and some would fail on with a 500: NUL characters (PostgreSQL text
 * cannot hold them) and nesting deeper than MAX_JSON_DEPTH. Iterative, so the check cannot overflow.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function assertStorableJson(value: unknown): void {
  const stack: [unknown, number][] = [[value, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [item, depth] = entry;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) throw invalidInput('The request contains a NUL character (\\u0000), which no field accepts');
      // Valid JSON (an escape such as "\ud800") but not Unicode: PostgreSQL cannot store it, and URLs and
      // headers cannot carry it.
      if (LONE_SURROGATE.test(item)) throw invalidInput('The request contains a lone UTF-16 surrogate (such as \\ud800), which is not valid Unicode');
    } else if (item !== null && typeof item === 'object') {
      if (depth >= MAX_JSON_DEPTH) throw invalidInput(`The request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
      for (const [key, child] of Object.entries(item)) stack.push([key, depth + 1], [child, depth + 1]);
    }
  }
}

/**
 * The body of a request whose content type is not JSON arrives as a stream (see http/server.ts).
 * An oversized one answers 413 and the connection is closed rather than drained.
 */
async function readBody(request: FastifyRequest, reply: FastifyReply, limit: number): Promise<string> {
  const body = request.body;
  if (typeof body === 'string') return body;
  if (body === undefined || body === null) return '';
  const tooLarge = () => {
    void reply.header('connection', 'close');
    return new ApiError('InvalidInput', `The request body is larger than the limit of ${limit} bytes`, undefined, 413);
  };
  if (Number(request.headers['content-length'] ?? 0) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as Readable) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface ApiRouterOptions {
  handlers: Record<string, Handler<never>>;
  auth: AuthService;
  nonces: NoncesService;
  bodyLimit: number;
  validateResponses: boolean;
}

/** Checks at start-up that every route of the contract has exactly one handler and no handler lacks a route. */
export function assertHandlersComplete(handlers: Record<string, unknown>): void {
  const routes = Object.keys(endpoints);
  const missing = routes.filter((route) => !(route in handlers));
  const extra = Object.keys(handlers).filter((route) => !(route in endpoints));
  if (missing.length || extra.length) {
    throw new Error(`Route wiring is wrong. Without handler: ${missing.join(', ') || 'none'}. Without route: ${extra.join(', ') || 'none'}`);
  }
}

/** `POST /<subject>/<method>`: parse, authenticate, validate against the contract, dedupe by nonce, call the handler. */
export function registerApiRoutes(app: FastifyInstance, options: ApiRouterOptions): void {
  const table = endpoints as Record<string, RouteSpec>;
  const publicRoutes = new Set<string>(PUBLIC_ROUTES);

  async function dispatch(request: FastifyRequest, reply: FastifyReply, subject: string, method: string) {
    const { key, id } = routeKeyOf(subject, method);
    const route = table[key];
    const handler = options.handlers[key];
    if (!route || !handler) throw notFound(`The route /${subject}/${method} does not exist`);

    const text = await readBody(request, reply, options.bodyLimit);
    let body: unknown = {};
    if (text.trim().length) {
      try {
        body = JSON.parse(text);
      } catch (error) {
        throw new ApiError('MalformedJSON', `The request body is not valid JSON: ${(error as Error).message}`);
      }
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('The request body must be a JSON object');
    assertStorableJson([id, body]);

    const now = Date.now();
    let caller: Caller | undefined;
    if (publicRoutes.has(key)) {
      if (request.headers.authorization) caller = await options.auth.authenticate(request.headers.authorization, now);
    } else {
      caller = await options.auth.authenticate(request.headers.authorization, now);
    }

    const parsed = route.input.safeParse(body);
    if (!parsed.success) throw invalidInput(describeZodError(parsed.error), { issues: parsed.error.issues.slice(0, 10) });

    const run = () => (handler as unknown as (ctx: unknown, input: unknown, id: string) => Promise<unknown>)({ caller, now }, parsed.data, id);
    const nonce = (body as { nonce?: unknown }).nonce;
    const result = route.nonce && typeof nonce === 'string' && caller ? await options.nonces.once(key, caller.userId, nonce, body, now, run) : await run();

    if (options.validateResponses) {
      const checked = route.output.safeParse(result);
      if (!checked.success) throw new Error(`Response of ${key} breaks the contract: ${describeZodError(checked.error, 'output')}`);
    }
    void reply.header('content-type', 'application/json');
    return result ?? {};
  }

  app.post<{ Params: { subject: string; method: string } }>('/:subject/:method', (request, reply) =>
    dispatch(request, reply, request.params.subject, request.params.method),
  );
  // Apps addressed by version or tag: /app-name/1.0.0/describe.
  app.post<{ Params: { subject: string; version: string; method: string } }>('/:subject/:version/:method', (request, reply) =>
    dispatch(request, reply, `${request.params.subject}/${request.params.version}`, request.params.method),
  );
}
