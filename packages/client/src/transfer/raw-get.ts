import fs from 'node:fs';
import net from 'node:net';
import { MD5_SLOT_BYTES, type Md5Slot, returnMd5Slot, takeMd5Slot } from '@panx/md5';
import type { Md5Stream } from './md5.js';
import { TransferError } from './progress.js';

/**
 * A download's GET over a plain socket whose bytes the kernel reads straight into the md5 worker's
 * shared buffers (`net.connect`'s `onread`): from there they are written to the file and hashed in
 * place. node:http hands over each received piece as a new buffer from its parser, which px then
 * copied for the md5 worker: about 0.5 s of one core per GiB (a CPU profile of `px download`:
 * 0.23 s in the parser, 0.31 s copying), on a path where the writes alone cost as much as curl's.
 * Only for `http:` URLs and responses with a Content-Length (Panx's downloads); anything else
 * answers `RawGetUnsupported` and goes through node:http.
 */

/** The response head must fit in this many bytes. */
const MAX_HEAD_BYTES = 64 * 1024;
/**
 * The most one read takes. Bytes read into the slot are written to the file at once, while they are
 * still in this core's cache; a read of several MiB (the socket's backlog, once the reader is behind)
 * is out of the cache by the time it is written, which makes the reader slower still: 1 GiB measured
 * 1.06–3.05 s uncapped (bimodal), 1.14–1.20 s with reads of at most 256 KiB, 1.26–1.38 s at 64 KiB.
 */
const READ_MAX_BYTES = 256 * 1024;
/** Without md5s to check, bytes go through one reused buffer of this size. */
const PLAIN_BUFFER_BYTES = READ_MAX_BYTES;
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
 * GETs from `have` to the end into the `.part` file, writing each read at once (synchronously) and
 * handing it to the md5 stream without a copy; answers the `.part` file's new length. A connection
 * that ends early answers what was written, as node:http's path does, so that the caller resumes.
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
    let fd: number | undefined;
    let position = target.have;
    let end = 0;
    let hashing: Md5Stream | undefined;
    let plain: Buffer | undefined;
    let slot: Md5Slot | undefined;
    let slotUsed = 0;
    let settled = false;

    const letSlotGo = () => {
      if (!slot) return;
      if (hashing) hashing.feedSlot(slot, slotUsed, 0, true);
      else returnMd5Slot(slot);
      slot = undefined;
    };
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      letSlotGo();
      if (fd !== undefined) fs.closeSync(fd);
      target.signal?.removeEventListener('abort', onAbort);
      const ended = hashing && target.checker ? target.checker.endStream(hashing) : Promise.resolve();
      ended.then(
        () => (error ? reject(error) : resolve(position)),
        (hashError: unknown) => reject(error ?? hashError),
      );
    };
    const onAbort = () => settle(target.signal?.reason instanceof Error ? target.signal.reason : new Error('the download was aborted'));

    /** Where the next read goes: the head buffer, then a region of one md5 slot that stays within one part. */
    const nextBuffer = (): Uint8Array => {
      if (phase !== 'body') return head.subarray(headUsed);
      if (!hashing) {
        plain ??= Buffer.allocUnsafe(PLAIN_BUFFER_BYTES);
        return plain.subarray(0, Math.max(1, Math.min(PLAIN_BUFFER_BYTES, end - position)));
      }
      if (!slot) {
        slot = takeMd5Slot();
        slotUsed = 0;
      }
      const room = Math.min(MD5_SLOT_BYTES - slotUsed, hashing.bytesLeftInPart(), end - position, READ_MAX_BYTES);
      return slot.bytes.subarray(slotUsed, slotUsed + Math.max(1, room));
    };

    const writeAll = (bytes: Uint8Array) => {
      for (let done = 0; done < bytes.length; ) done += fs.writeSync(fd as number, bytes, done, bytes.length - done);
    };

    /** The body's bytes in `bytes` (a region from `nextBuffer`, or what came with the head): written, counted, hashed. */
    const onBody = (bytes: Uint8Array, inSlot: boolean) => {
      if (position + bytes.length > end) throw new TransferError(`the server sent more than the ${target.size} bytes the file has`);
      writeAll(bytes);
      position += bytes.length;
      target.onBytes(bytes.length);
      target.onBytesWritten?.(bytes.length);
      if (!hashing) return;
      if (!inSlot) {
        hashing.feed([Buffer.from(bytes)]);
        return;
      }
      const current = slot as Md5Slot;
      const partEnds = bytes.length === hashing.bytesLeftInPart();
      slotUsed += bytes.length;
      const release = partEnds || slotUsed === MD5_SLOT_BYTES || position === end;
      hashing.feedSlot(current, slotUsed - bytes.length, bytes.length, release);
      if (release) slot = undefined;
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
      fd = fs.openSync(target.partPath, start > 0 ? 'a' : 'w');
      hashing = target.checker?.stream(start);
      phase = 'body';
      if (rest.length) onBody(rest, false);
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
              onBody(buffer.subarray(0, bytes), !!hashing);
              if (position === end) settle(undefined);
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
