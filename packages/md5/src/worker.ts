import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { type Md5Lane, md5Lanes } from './lanes.js';
import type { FromWorker, ToWorker } from './protocol.js';

/**
 * The hashing thread of WorkerMd5. Messages only queue bytes; a pump, run once the messages that
 * arrived together are in, hashes the streams that have bytes side by side, STEP bytes of each at a
 * time. Streams advance together only over bytes they all have, so a stream's bytes wait a little
 * for the others': the pump hashes when GROUP streams have bytes, or every open stream does, or
 * one is wanted now (its digest is asked for, or it reads a file), or one holds EAGER_MAX_BYTES, or
 * all hold TOTAL_MAX_BYTES. A lazy stream (a download's parts, which arrive one after another) does
 * not count as open while it waits, and never holds too much alone: it waits for GROUP.
 */

const STEP = 1024 * 1024;
const GROUP = 8;
const EAGER_MAX_BYTES = 8 * 1024 * 1024;
const TOTAL_MAX_BYTES = 128 * 1024 * 1024;
const FILE_CHUNK = 4 * 1024 * 1024;
const BLOCK = 64;

type Pending = { file: string; offset: number; length: number } | { bytes: Uint8Array; release: (() => void) | undefined };

interface Stream {
  lane: Md5Lane;
  lazy: boolean;
  /**
   * What the lane gets once the file range at its head is read (in order): more file ranges, and
   * bytes sent after a file range. Empty when bytes go straight to the lane.
   */
  pending: Pending[];
  digestWanted: boolean;
  error?: string;
}

const port = parentPort;
if (!port) throw new Error('md5 worker: not started as a worker thread');

const streams = new Map<number, Stream>();
let scheduled = false;
/** Pool buffers whose bytes are hashed (or dropped), to be handed back after this pump. */
let released: number[] = [];

function releaser(slot: number): () => void {
  return () => released.push(slot);
}

function handBack(): void {
  if (!released.length) return;
  port?.postMessage({ released } satisfies FromWorker);
  released = [];
}

port.on('message', (message: ToWorker) => {
  if (message.kind === 'open') {
    streams.set(message.stream, { lane: md5Lanes.open(), lazy: message.lazy, pending: [], digestWanted: false });
  } else {
    const stream = streams.get(message.stream);
    if (!stream) return;
    if (message.kind === 'data') {
      for (const view of message.views) {
        const release = view.slot === undefined ? undefined : releaser(view.slot);
        const bytes = new Uint8Array(view.buffer, view.offset, view.length);
        if (stream.pending.length) stream.pending.push({ bytes, release });
        else stream.lane.update(bytes, release);
      }
    } else if (message.kind === 'file') {
      stream.pending.push({ file: message.file, offset: message.offset, length: message.length });
    } else if (message.kind === 'digest') {
      stream.digestWanted = true;
      stream.lazy = false;
    } else {
      release(stream);
      streams.delete(message.stream);
      handBack();
    }
  }
  if (!scheduled) {
    scheduled = true;
    setImmediate(pump);
  }
});

/**
 * Buffers that file ranges are read into, reused once hashed: a new 4 MiB buffer per read cost a
 * page fault per 4 KiB of it (0.35 s of system time per GiB read) and garbage collections.
 */
const readBuffers: Buffer[] = [];
const READ_BUFFERS_KEPT = 16;

/** Reads up to FILE_CHUNK of the stream's first file range into its lane (and what follows it, once it is read). */
function readFile(stream: Stream): void {
  const range = stream.pending[0];
  if (!range || !('file' in range)) return;
  const length = Math.min(range.length, FILE_CHUNK);
  const whole = readBuffers.pop() ?? Buffer.allocUnsafeSlow(FILE_CHUNK);
  const buffer = whole.subarray(0, length);
  const fd = fs.openSync(range.file, 'r');
  try {
    for (let done = 0; done < length; ) {
      const n = fs.readSync(fd, buffer, done, length - done, range.offset + done);
      if (n === 0) throw new Error(`${range.file} ends before byte ${range.offset + range.length}`);
      done += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  stream.lane.update(buffer, () => {
    if (readBuffers.length < READ_BUFFERS_KEPT) readBuffers.push(whole);
  });
  range.offset += length;
  range.length -= length;
  if (range.length) return;
  stream.pending.shift();
  for (let next = stream.pending[0]; next && 'bytes' in next; next = stream.pending[0]) {
    stream.lane.update(next.bytes, next.release);
    stream.pending.shift();
  }
}

function pump(): void {
  scheduled = false;
  for (const stream of streams.values()) {
    if (!stream.pending.length || stream.error || stream.lane.queued >= STEP) continue;
    try {
      readFile(stream);
    } catch (error) {
      stream.error = error instanceof Error ? error.message : String(error);
    }
  }
  const live = [...streams.values()].filter((stream) => !stream.error);
  const withBytes = live.filter((stream) => stream.lane.queued >= BLOCK);
  const eagerOpen = live.filter((stream) => !stream.lazy).length;
  const eagerWithBytes = withBytes.filter((stream) => !stream.lazy);
  const ready =
    withBytes.length >= GROUP ||
    (eagerWithBytes.length > 0 && eagerWithBytes.length === eagerOpen) ||
    withBytes.some((stream) => stream.digestWanted || stream.pending.length || (!stream.lazy && stream.lane.queued >= EAGER_MAX_BYTES)) ||
    withBytes.reduce((sum, stream) => sum + stream.lane.queued, 0) >= TOTAL_MAX_BYTES;
  if (ready) {
    md5Lanes.work(
      withBytes.map((stream) => stream.lane),
      STEP,
    );
  }
  for (const [id, stream] of streams) {
    if (stream.digestWanted && (stream.error || (!stream.pending.length && stream.lane.queued < BLOCK))) finish(id, stream);
  }
  handBack();
  // Hashed something: what is left may be ready too (new messages are read first).
  if (ready && !scheduled) {
    scheduled = true;
    setImmediate(pump);
  }
}

/** Lets go of what a stream still holds (its lane's bytes, and bytes waiting behind a file range). */
function release(stream: Stream): void {
  stream.lane.drop();
  for (const pending of stream.pending) if ('bytes' in pending) pending.release?.();
  stream.pending = [];
}

function finish(id: number, stream: Stream): void {
  streams.delete(id);
  let message: FromWorker;
  if (stream.error) {
    release(stream);
    message = { stream: id, error: stream.error };
  } else {
    try {
      message = { stream: id, md5: stream.lane.digest() };
    } catch (error) {
      message = { stream: id, error: error instanceof Error ? error.message : String(error) };
    }
  }
  port?.postMessage(message);
}
