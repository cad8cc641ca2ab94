import fs from 'node:fs';
import path from 'node:path';
import cors from '@fastify/cors';
import { buildOpenApiDocument } from '@panx/contract';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { ApiError } from '../errors.js';

export function createHttpServer(log: Logger, bodyLimit: number): FastifyInstance {
  const app: FastifyInstance = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    bodyLimit,
    trustProxy: true,
    routerOptions: { maxParamLength: 2048 },
  });

  // JSON bodies arrive as text and are parsed by the API router (so bad JSON gets the DNAnexus error);
  // anything else (upload parts) stays a stream.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  void app.register(cors, {
    origin: true,
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Content-MD5', 'Content-Length', 'Range', 'DNAnexus-API', 'X-Requested-With'],
    exposedHeaders: ['Content-Length', 'Content-Range', 'Accept-Ranges', 'ETag'],
    maxAge: 86_400,
  });

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      return reply
        .code(error.status)
        .header('content-type', 'application/json')
        .send({
          error: { type: error.type, message: error.message, ...(error.details === undefined ? {} : { details: error.details }) },
        });
    }
    const status = (error as FastifyError).statusCode ?? 500;
    if (status === 413) {
      return reply.code(413).send({ error: { type: 'InvalidInput', message: `The request body is larger than the limit of ${bodyLimit} bytes` } });
    }
    if (status >= 400 && status < 500) {
      const type = (error as FastifyError).code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? 'MalformedJSON' : 'InvalidInput';
      return reply.code(status === 400 ? 400 : 422).send({ error: { type, message: error.message } });
    }
    if (isStorageFull(error)) {
      // Not the client's fault and not for ever: clients retry 503s, and nothing was stored (a part
      // is answered only once it is on disk; a close that fails is retried).
      request.log.error({ err: error }, 'storage full');
      return reply
        .code(503)
        .header('retry-after', '60')
        .send({ error: { type: 'ServiceUnavailable', message: "The server's storage is full: try again once space is freed" } });
    }
    request.log.error({ err: error }, 'internal error');
    return reply.code(500).send({ error: { type: 'InternalError', message: 'An internal error occurred; it has been logged' } });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: { type: 'ResourceNotFound', message: `No route ${request.method} ${request.url.split('?')[0]}` } }),
  );
  return app;
}

/**
 * A write refused for want of space: the disk (ENOSPC), a quota (EDQUOT), SQLite's file (SQLITE_FULL)
 * or PostgreSQL's disk (SQLSTATE 53100, disk_full).
 */
export function isStorageFull(error: unknown): boolean {
  // Also when a library wrapped the system's error in one of its own (as `cause`).
  for (let cause = error, depth = 0; typeof cause === 'object' && cause !== null && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL' || code === '53100') return true;
  }
  return false;
}

/** /api-docs (OpenAPI from the contract), /deployManifest.json and /asset/{config}/config.json for the web app, and the web build under /panx. */
export function registerStaticRoutes(
  app: FastifyInstance,
  options: {
    publicUrl: string;
    webDir?: string;
    manifest: () => unknown;
    runtimeConfig: () => unknown;
    /** Where the browser reads file bytes when they do not come from the API server (presigned S3 URLs). */
    downloadOrigin?: string;
  },
): void {
  const openapi = buildOpenApiDocument(options.publicUrl);
  app.get('/api-docs/openapi.json', async () => openapi);
  app.get('/api-docs', async (_request, reply) =>
    reply.type('text/html').send(
      `<!doctype html><html><head><meta charset="utf-8"><title>Panx API</title></head><body style="font-family:sans-serif;max-width:70em;margin:2em auto">` +
        `<h1>Panx API (DNAnexus API v1 compatible)</h1><p>Every call is <code>POST /&lt;subject&gt;/&lt;method&gt;</code> with a JSON body and a bearer token. ` +
        `Machine-readable description: <a href="/api-docs/openapi.json">openapi.json</a>.</p><table border="1" cellpadding="4" style="border-collapse:collapse">` +
        Object.entries((openapi.paths ?? {}) as Record<string, { post: { summary: string; description?: string } }>)
          .map(
            ([route, item]) =>
              `<tr><td><code>${escapeHtml(route)}</code></td><td>${escapeHtml(item.post.summary)}${item.post.description ? `<br><em>${escapeHtml(item.post.description)}</em>` : ''}</td></tr>`,
          )
          .join('') +
        `</table></body></html>`,
    ),
  );
  app.get('/deployManifest.json', async () => options.manifest());
  app.get<{ Params: { config: string } }>('/asset/:config/config.json', async () => options.runtimeConfig());
  app.get('/', async (_request, reply) => reply.redirect('/panx/'));

  const webDir = options.webDir && fs.existsSync(path.join(options.webDir, 'index.html')) ? path.resolve(options.webDir) : undefined;
  app.get('/panx', async (_request, reply) => reply.redirect('/panx/'));
  app.get<{ Params: { '*': string } }>('/panx/*', async (request, reply) => {
    if (!webDir) {
      return reply
        .type('text/html')
        .send(
          '<!doctype html><meta charset="utf-8"><title>Panx</title><body style="font-family:sans-serif;margin:3em">' +
            '<h1>Panx</h1><p>The API server is running. The web app has not been built into this installation yet; ' +
            'use the <code>px</code> command-line client or the API (<a href="/api-docs">/api-docs</a>).</p></body>',
        );
    }
    const wanted = path.resolve(webDir, `.${path.posix.normalize(`/${request.params['*']}`)}`);
    const file = wanted.startsWith(webDir) && fs.existsSync(wanted) && fs.statSync(wanted).isFile() ? wanted : path.join(webDir, 'index.html');
    return sendWebFile(reply, file, options.publicUrl, options.downloadOrigin);
  });

  // The web app's error page (SPEC §8) sits outside /panx: /error/error.html?status=..&message=.., served from the build's error/ folder.
  app.get<{ Params: { '*': string } }>('/error/*', async (request, reply) => {
    const errorDir = webDir ? path.join(webDir, 'error') : undefined;
    const wanted = errorDir ? path.resolve(errorDir, `.${path.posix.normalize(`/${request.params['*']}`)}`) : undefined;
    if (!errorDir || !wanted?.startsWith(`${errorDir}${path.sep}`) || !fs.existsSync(wanted) || !fs.statSync(wanted).isFile()) {
      return reply.code(404).type('text/plain').send('Not found');
    }
    return sendWebFile(reply, wanted, options.publicUrl, options.downloadOrigin);
  });
}

/**
 * Files of the web build. HTML gets a Content-Security-Policy that allows only this origin (and the API
 * server's, when it is published elsewhere); hashed assets are cached for a year, HTML never.
 */
function sendWebFile(reply: FastifyReply, file: string, publicUrl: string, downloadOrigin?: string) {
  const type = contentTypeOf(file);
  if (type === 'text/html') {
    const api = new URL(publicUrl).origin;
    void reply
      .header('content-security-policy', webContentSecurityPolicy(api, downloadOrigin))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-cache');
  } else if (/[/\\]assets[/\\]/.test(file)) {
    void reply.header('cache-control', 'public, max-age=31536000, immutable');
  }
  return reply.type(type).send(fs.createReadStream(file));
}

export function webContentSecurityPolicy(apiOrigin: string, downloadOrigin?: string): string {
  const bytes = downloadOrigin ? ` ${downloadOrigin}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Mantine sets CSS variables in a <style> element and inline style attributes.
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob:${bytes}`,
    "font-src 'self'",
    `connect-src 'self' ${apiOrigin}${bytes}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

function contentTypeOf(file: string): string {
  const types: Record<string, string> = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    // PDF.js's worker is an ES module (.mjs): browsers refuse a module script served as octet-stream.
    '.mjs': 'text/javascript',
    '.wasm': 'application/wasm',
    '.css': 'text/css',
    '.svg': 'image/svg+xml',
    '.png': 'image/png',
    '.json': 'application/json',
    '.woff2': 'font/woff2',
    '.ico': 'image/x-icon',
    '.map': 'application/json',
  };
  return types[path.extname(file)] ?? 'application/octet-stream';
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char] ?? char);
}
