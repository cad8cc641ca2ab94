import type { OutgoingHttpHeaders } from 'node:http';
import { pageAlignedBuffer } from '@panx/md5';
import type { FastifyReply } from 'fastify';
import type { BlobReader } from '../storage/blob-store.js';

/** Bytes per read, and per write to the socket. */
const CHUNK_BYTES = 1024 * 1024;
/** Buffers per response: those being read into (BlobReader.readsAtOnce) and those with the socket. */
const IN_FLIGHT = 8;
/** Free buffers kept for the next download. */
const SPARE_KEPT = 16;
const spare: Buffer[] = [];

/**
 * Sends a blob's bytes from a reader through a few buffers that go round: each is read into again
 * once the socket has taken it (the write's callback). A stream of new buffers, one per chunk, cost
 * the server about 0.75 s of garbage collection per GiB sent (V8 collects on external memory
 * pressure), more than reading and sending the bytes. The headers are those set on `reply`; the
 * status is `statusCode`. Fastify's own sending (and its onSend hooks, of which the server has none)
 * is skipped. A read that fails ends the response early, so the client sees it short of its
 * Content-Length and can resume with Range.
 */
export async function sendFromReader(reply: FastifyReply, statusCode: number, reader: BlobReader): Promise<void> {
  const res = reply.raw;
  reply.hijack();
  res.writeHead(statusCode, reply.getHeaders() as OutgoingHttpHeaders);
  const free: Buffer[] = [];
  let owned = 0;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  res.once('close', wakeUp);
  // Reads asked for and not yet written, in the order of the blob; several at once where the reader
  // allows it (the local store: four, which keeps the disk busy).
  const reading: Promise<{ buffer: Buffer; bytes: number }>[] = [];
  const readsAtOnce = Math.max(1, Math.min(reader.readsAtOnce ?? 1, IN_FLIGHT - 1));
  let ended = false;
  try {
    for (;;) {
      if (res.destroyed) return;
      while (!ended && reading.length < readsAtOnce) {
        let buffer = free.pop();
        if (!buffer && owned < IN_FLIGHT) {
          // Page-aligned, so that the local store can read into it with O_DIRECT.
          buffer = spare.pop() ?? pageAlignedBuffer(CHUNK_BYTES) ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
          owned++;
        }
        if (!buffer) break;
        const into = buffer;
        const read = reader.readInto(into).then((bytes) => ({ buffer: into, bytes }));
        // Should an earlier read fail, this one's outcome is not waited for: no unhandled rejection.
        read.catch(() => undefined);
        reading.push(read);
      }
      const next = reading.shift();
      if (!next) {
        if (ended) break;
        // All buffers are with the socket: wait for a write to finish (or the client to go away).
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      const { buffer, bytes } = await next;
      if (bytes === 0) {
        ended = true;
        free.push(buffer);
        continue;
      }
      res.write(bytes < buffer.length ? buffer.subarray(0, bytes) : buffer, () => {
        free.push(buffer);
        wakeUp();
      });
    }
    res.end();
  } catch (error) {
    res.destroy(error as Error);
  } finally {
    res.off('close', wakeUp);
    await reader.close().catch(() => undefined);
    // Buffers still with the socket are left to the garbage collector.
    while (free.length && spare.length < SPARE_KEPT) spare.push(free.pop() as Buffer);
  }
}
