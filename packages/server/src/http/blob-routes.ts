import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ApiError, invalidInput } from '../errors.js';
import { contentTypeFor, type FilesService } from '../modules/files/files.service.js';
import { BlobNotFoundError } from '../storage/blob-store.js';
import { sendFromReader } from './send-blob.js';

/** Parses `bytes=a-b`, `bytes=a-` and `bytes=-n`; undefined when absent, 'invalid' when unsatisfiable. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | undefined | 'invalid' {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return 'invalid';
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'invalid';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) return 'invalid';
  return { start, end };
}

/** The signed upload (PUT) and download (GET) URLs: no Authorization header, the URL is the credential. */
export function registerBlobRoutes(app: FastifyInstance, files: FilesService): void {
  // Own scope: whatever Content-Type a client declares, a part's body stays the raw byte stream
  // (the API's JSON parser would otherwise turn an "application/json" part into text).
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.put<{ Params: { fileId: string; index: string }; Querystring: Record<string, string | undefined> }>(
      '/upload/:fileId/:index',
      { bodyLimit: 5 * 1024 * 1024 * 1024 + 1 },
      async (request, reply) => {
        const index = Number(request.params.index);
        if (!/^\d+$/.test(request.params.index) || index < 1 || index > 10_000) throw invalidInput('Part indexes are integers from 1 to 10000');
        const lengthHeader = request.headers['content-length'];
        const body = request.body as Readable | string | Buffer | undefined;
        const stream = typeof body === 'string' || Buffer.isBuffer(body) || body === undefined ? Readable.from([Buffer.from(body ?? '')]) : body;
        const result = await files.receivePart(
          { id: request.params.fileId, index, query: request.query, body: stream, contentLength: lengthHeader ? Number(lengthHeader) : undefined },
          Date.now(),
        );
        void reply.header('content-type', 'application/json');
        return result;
      },
    );
  });

  app.get<{ Params: { fileId: string; filename: string }; Querystring: Record<string, string | undefined> }>(
    '/download/:fileId/:filename',
    async (request, reply) => {
      const download = await files.openDownload({ id: request.params.fileId, query: request.query }, Date.now());
      const range = parseRange(request.headers.range, download.size);
      void reply
        .header('accept-ranges', 'bytes')
        .header('content-type', contentTypeFor(download.object.media))
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(request.params.filename)}`)
        .header('cache-control', 'private, max-age=0');
      if (range === 'invalid') {
        return reply
          .code(416)
          .header('content-range', `bytes */${download.size}`)
          .header('content-type', 'application/json')
          .send({ error: { type: 'InvalidInput', message: `The range ${request.headers.range} is not satisfiable for ${download.size} bytes` } });
      }
      if (download.size === 0) return reply.header('content-length', '0').send('');
      if (range) {
        void reply
          .code(206)
          .header('content-range', `bytes ${range.start}-${range.end}/${download.size}`)
          .header('content-length', String(range.end - range.start + 1));
      } else {
        void reply.header('content-length', String(download.size));
      }
      const { openReader } = download;
      if (openReader && request.method === 'GET') {
        const reader = await missingBytesAreOurs(() => openReader(range));
        return sendFromReader(reply, range ? 206 : 200, reader);
      }
      return reply.send(await missingBytesAreOurs(() => download.read(range)));
    },
  );
}

async function missingBytesAreOurs<T>(open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    // A closed file whose bytes are missing is the store's fault, not the client's: say so plainly.
    if (error instanceof BlobNotFoundError) throw new ApiError('InternalError', 'The bytes of this file are missing from the blob store');
    throw error;
  }
}
