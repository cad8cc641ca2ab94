import net from 'node:net';
import { holdMd5Slot, type Md5Slot, returnMd5Slot } from '@panx/md5';
import type { Md5Stream } from './md5.js';
import { openPartFile, type PartFileWriter } from './part-file-writer.js';
import { TransferError } from './progress.js';

/**
 * A download's GET over a plain socket whose bytes the kernel reads straight into the md5 worker's
 * shared buffers (`net.connect`'s `onread`): from there they are written to the file and hashed in
 * place. node:http hands over each received piece as a new buffer from its parser, which px then
 * copied for the md5 worker: about 0.5 s of one core per GiB (a CPU profile of `px download`:
 * 0.23 s in the parser, 0.31 s copying), on a path where the writes alone cost as much as curl's.
 * Only for `http:` URLs and responses with a Content-Length (Panx's downloads); anything else
 * answers `RawGetUnsupported` and goes through node:http. How the bytes reach the file (through the
 * page cache, or around it once that is slow) is part-file-writer.ts's business.
 */

/** The response head must fit in this many bytes. */
const MAX_HEAD_BYTES = 64 * 1024;
/**
 * The most one read takes. Bytes read into the slot are passed on to the file at once, while they
 * are still in this core's cache; a read of several MiB (the socket's backlog, once the reader is
 * behind) is out of the cache by then, which makes the reader slower still: 1 GiB measured
 * 1.06–3.05 s uncapped (bimodal), 1.14–1.20 s with reads of at most 256 KiB, 1.26–1.38 s at 64 KiB.
 */
const READ_MAX_BYTES = 256 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
/** Of an error response's body, this much is kept for its message. */
const ERROR_TEXT_BYTES = 16 * 1024;

export class RawGetUnsupported extends Error {}

export interface RawGetTarget {
  url: string;
  headers: Record<string, string>;
  /** Bytes the `.part` file already has: asked for with `Range`. */
  have: number;
  /** The file's size: a response that would go past it is refused. */
  size: number;
  partPath: string;
  /**
   * The md5 check of the parts: `stream` for the bytes from `start` (after a 200 to a ranged request,
   * start is 0), `endStream` once the GET is over, whatever the outcome (what it completed counts).
   */
  checker?: { stream(start: number): Md5Stream; endStream(stream: Md5Stream): Promise<void> };
  /** The server sent the whole file again (200 to a ranged request): forget what was counted. */
  onRestart: () => void;
  onBytes: (bytes: number) => void;
  onBytesWritten?: (bytes: number) => void;
  signal?: AbortSignal;
  /** O_DIRECT (true), the page cache (false), or unset: part-file-writer.ts decides as it writes. */
  directWrites?: boolean;
}

interface Head {
  status: number;
  headers: Map<string, string>;
}

function parseHead(text: string): Head {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (!status) throw new Error(`not an HTTP response: ${JSON.stringify(statusLine.slice(0, 100))}`);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(status), headers };
}

/** The text of a chunked body (as far as it arrived): the chunks without their size lines. */
export function dechunk(body: Buffer): string {
  const chunks: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isSafeInteger(size) || size <= 0) break;
    chunks.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function requestText(target: URL, headers: Record<string, string>): string {
  const lines = [`GET ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`];
  for (const [name, value] of Object.entries(headers)) {
    if (/[\r\n]/.test(name + value)) throw new Error(`header ${name} holds a line break`);
    if (!['host', 'connection'].includes(name.toLowerCase())) lines.push(`${name}: ${value}`);
  }
  lines.push('Connection: close', '', '');
  return lines.join('\r\n');
}

/**
 * GETs from `have` to the end into the `.part` file, passing each read to the file's writer at once
 * and to the md5 stream without a copy; answers the `.part` file's new length. A connection that
 * ends early answers what was written, as node:http's path does, so that the caller resumes.
 */
export function rawGetInto(target: RawGetTarget): Promise<number> {
  const url = new URL(target.url);
  if (url.protocol !== 'http:') return Promise.reject(new RawGetUnsupported(`${url.protocol} URL`));
  const requestHeaders: Record<string, string> = { ...target.headers };
  if (target.have > 0) requestHeaders.range = `bytes=${target.have}-`;
  const request = requestText(url, requestHeaders);

  return new Promise<number>((resolve, reject) => {
    const head = Buffer.alloc(MAX_HEAD_BYTES);
    let headUsed = 0;
    /** head: reading the status and headers; body: the file's bytes; failed: an error status's text. */
    let phase: 'head' | 'body' | 'failed' = 'head';
    /** An error status, its body's bytes (the first ERROR_TEXT_BYTES) and whether they are chunked. */
    let failure: { status: number; body: Buffer[]; bytes: number; chunked: boolean } | undefined;
    let file: PartFileWriter | undefined;
    let position = target.have;
    let end = 0;
    let hashing: Md5Stream | undefined;
    /** The region of the file's slot that the socket reads into next. */
    let region: { slot: Md5Slot; offset: number } | undefined;
    let settled = false;
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      target.signal?.removeEventListener('abort', onAbort);
      // Everything received is written before the length is answered (an early end resumes from it).
      const written = file ? file.finish() : Promise.resolve(position);
      const ended = hashing && target.checker ? target.checker.endStream(hashing) : Promise.resolve();
      Promise.all([written, ended]).then(
        ([length]) => (error ? reject(error) : resolve(length)),
        (laterError: unknown) => reject(error ?? laterError),
      );
    };
    const onAbort = () => settle(target.signal?.reason instanceof Error ? target.signal.reason : new Error('the download was aborted'));

    /** The most the next body bytes may be: to the file's end, and within the part being hashed. */
    const bodyRoom = () => Math.min(READ_MAX_BYTES, end - position, hashing ? hashing.bytesLeftInPart() : Number.POSITIVE_INFINITY);

    /** Where the next read goes: the head buffer, then a region of the file's md5 slot that stays within one part. */
    const nextBuffer = (): Uint8Array => {
      // Node asks for a buffer after every read, even the one that settled: the file is closed by then.
      if (settled) return head;
      if (phase !== 'body' || !file) return head.subarray(headUsed);
      try {
        const next = file.region(bodyRoom());
        region = next;
        return next.bytes;
      } catch (error) {
        // Node calls this from its read callback, where a throw would be uncaught: end the GET instead.
        settle(error as Error);
        return head;
      }
    };

    /**
     * `length` bytes filled in `slot` from `offset`: committed to the file, then hashed in place. Only
     * committed bytes are hashed, so that no md5 vouches for bytes a failed write left out; the md5
     * stream's hold is taken first, as a commit may hand the slot back.
     */
    const take = (slot: Md5Slot, offset: number, length: number) => {
      if (hashing) holdMd5Slot(slot);
      try {
        (file as PartFileWriter).commit(length);
      } catch (error) {
        if (hashing) returnMd5Slot(slot);
        throw error;
      }
      hashing?.feedSlot(slot, offset, length, true);
      position += length;
      target.onBytes(length);
    };

    /** `length` bytes read into the region from `nextBuffer`. */
    const onRead = (length: number) => {
      if (position + length > end) throw new TransferError(`the server sent more than the ${target.size} bytes the file has`);
      const { slot, offset } = region as { slot: Md5Slot; offset: number };
      take(slot, offset, length);
    };

    /** Body bytes that came with the head: copied into the file's slots as reads would have filled them. */
    const onBodyCopy = (bytes: Uint8Array) => {
      if (position + bytes.length > end) throw new TransferError(`the server sent more than the ${target.size} bytes the file has`);
      for (let done = 0; done < bytes.length; ) {
        const { slot, offset, bytes: room } = (file as PartFileWriter).region(Math.min(bytes.length - done, bodyRoom()));
        const length = Math.min(room.length, bytes.length - done);
        room.set(bytes.subarray(done, done + length));
        take(slot, offset, length);
        done += length;
      }
    };

    const onHead = () => {
      const at = head.subarray(0, headUsed).indexOf(HEAD_END);
      if (at < 0) {
        if (headUsed === MAX_HEAD_BYTES) throw new Error(`the response head is longer than ${MAX_HEAD_BYTES} bytes`);
        return;
      }
      const { status, headers } = parseHead(head.subarray(0, at).toString('latin1'));
      const rest = head.subarray(at + HEAD_END.length, headUsed);
      if (status < 200 || status >= 300) {
        phase = 'failed';
        const chunked = /chunked/i.test(headers.get('transfer-encoding') ?? '');
        failure = { status, body: [Buffer.from(rest)], bytes: rest.length, chunked };
        headUsed = 0;
        return;
      }
      const length = Number(headers.get('content-length'));
      if (headers.has('transfer-encoding') || !Number.isSafeInteger(length) || length < 0) {
        throw new RawGetUnsupported('a response without a Content-Length');
      }
      let start = 0;
      if (target.have > 0 && status === 206) {
        start = Number(/^bytes (\d+)-/.exec(headers.get('content-range') ?? '')?.[1] ?? 0);
        if (start !== target.have) throw new Error(`asked for bytes from ${target.have}, the server sent from ${start}`);
      } else if (target.have > 0) {
        // 200: the whole file again. Start over rather than append.
        target.onRestart();
      }
      position = start;
      end = start + length;
      if (end > target.size) throw new TransferError(`the server sent more than the ${target.size} bytes the file has`);
      file = openPartFile(target.partPath, {
        start,
        expected: length,
        onWritten: target.onBytesWritten,
        direct: target.directWrites,
      });
      hashing = target.checker?.stream(start);
      phase = 'body';
      if (rest.length) onBodyCopy(rest);
      if (position === end) settle(undefined);
    };

    const socket = net.connect({
      host: url.hostname,
      port: Number(url.port || 80),
      onread: {
        buffer: nextBuffer,
        callback: (bytes: number, buffer: Uint8Array) => {
          if (settled) return false;
          try {
            if (phase === 'head') {
              headUsed += bytes;
              onHead();
            } else if (phase === 'failed') {
              if (failure && failure.bytes < ERROR_TEXT_BYTES) {
                failure.body.push(Buffer.from(buffer.subarray(0, bytes)));
                failure.bytes += bytes;
              }
            } else {
              onRead(bytes);
              if (position === end) settle(undefined);
              else if (file && !file.canTakeMore()) {
                // The disk is behind: stop reading (the kernel's window then slows the server) until a write is done.
                file.whenReady(() => {
                  if (!settled) socket.resume();
                });
                return false;
              }
            }
          } catch (error) {
            settle(error as Error);
            return false;
          }
          return true;
        },
      },
    });
    socket.setNoDelay(true);
    socket.once('connect', () => socket.write(request));
    socket.once('error', (error) => settle(error));
    socket.once('close', () => {
      if (failure) {
        const body = Buffer.concat(failure.body);
        const text = failure.chunked ? dechunk(body) : body.toString('utf8');
        const error = new Error(`GET failed with HTTP ${failure.status}: ${text.slice(0, 300)}`);
        settle(Object.assign(error, { status: failure.status }));
      } else if (phase === 'head') {
        settle(new Error('the server closed the connection before answering'));
      } else {
        // Ended early: what was written stays, and the caller resumes from it.
        settle(undefined);
      }
    });
    if (target.signal) {
      if (target.signal.aborted) onAbort();
      else target.signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}
