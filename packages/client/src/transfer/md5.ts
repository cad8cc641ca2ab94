import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * MD5 off the main thread. MD5 runs at about 700 MiB/s on one core, so hashing on the thread that
 * also sends or receives the bytes caps a transfer well below what the network and disk do; worker
 * threads hash while the main thread moves bytes. Bytes reach a worker without a copy where they can:
 * an upload's part buffers are shared memory, a download's received chunks are moved to a worker
 * once written (what is already on disk is read back from the file). Small jobs are done in place.
 */

/** Below this, hashing in the calling thread costs less than a message to the worker. */
const WORKER_MIN_BYTES = 1024 * 1024;
const READ_CHUNK = 4 * 1024 * 1024;

// Plain JavaScript (eval'd as CommonJS): a worker file next to this module would be missing when the
// TypeScript sources are run directly (vitest).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const buffer = Buffer.allocUnsafe(${READ_CHUNK});
function hashFile(hash, file, offset, length) {
  const fd = fs.openSync(file, 'r');
  try {
    for (let done = 0; done < length; ) {
      const n = fs.readSync(fd, buffer, 0, Math.min(buffer.length, length - done), offset + done);
      if (n === 0) throw new Error(file + ' ends before byte ' + (offset + length));
      hash.update(buffer.subarray(0, n));
      done += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash;
}
const streams = new Map();
function feed(id, stream, views) {
  for (const { buffer, offset, length } of views) {
    for (let used = 0; used < length && stream.next < stream.parts.length; ) {
      const part = stream.parts[stream.next];
      const take = Math.min(length - used, part.offset + part.size - stream.position);
      stream.hash.update(new Uint8Array(buffer, offset + used, take));
      used += take;
      stream.position += take;
      if (stream.position === part.offset + part.size) {
        parentPort.postMessage({ stream: id, index: part.index, md5: stream.hash.digest('hex') });
        stream.hash = createHash('md5');
        stream.next++;
        // A lane sees only its own parts: the next one's bytes come next.
        if (stream.next < stream.parts.length) stream.position = stream.parts[stream.next].offset;
      }
    }
  }
}
parentPort.on('message', (message) => {
  const { id, kind } = message;
  try {
    if (kind === 'shared') {
      // Memory shared with the caller, which leaves it alone until the digest comes back.
      parentPort.postMessage({ id, md5: createHash('md5').update(new Uint8Array(message.bytes, message.offset, message.length)).digest('hex') });
    } else if (kind === 'file') {
      parentPort.postMessage({ id, md5: hashFile(createHash('md5'), message.file, message.offset, message.length).digest('hex') });
    } else if (kind === 'stream-start') {
      // parts: in order, none empty, none ending before 'start'; the bytes of the first one before 'start' are on disk.
      const first = message.parts[0];
      const stream = { parts: message.parts, next: 0, position: first ? Math.max(message.start, first.offset) : 0, hash: createHash('md5') };
      if (first && first.offset < message.start) hashFile(stream.hash, message.file, first.offset, message.start - first.offset);
      streams.set(message.stream, stream);
      parentPort.postMessage({ id });
    } else if (kind === 'stream-data') {
      const stream = streams.get(message.stream);
      if (stream) feed(message.stream, stream, message.views);
    } else if (kind === 'stream-end') {
      streams.delete(message.stream);
      parentPort.postMessage({ id });
    }
  } catch (error) {
    if (message.stream !== undefined) streams.delete(message.stream);
    parentPort.postMessage({ id, stream: message.stream, error: String((error && error.message) || error) });
  }
});
`;

interface Job {
  resolve: (reply: JobReply) => void;
  reject: (error: Error) => void;
}

interface JobReply {
  md5?: string;
}

type Reply =
  | { id: number; md5?: string; stream?: undefined; error?: undefined }
  | { id?: number; stream?: number; error: string }
  | { id?: undefined; stream: number; index: number; md5: string; error?: undefined };

type Message =
  | { kind: 'shared'; bytes: SharedArrayBuffer; offset: number; length: number }
  | { kind: 'file'; file: string; offset: number; length: number }
  | { kind: 'stream-start'; stream: number; file: string; parts: StreamPart[]; start: number }
  | { kind: 'stream-end'; stream: number };

interface StreamPart {
  index: number;
  offset: number;
  size: number;
}

class Md5Worker {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly jobs = new Map<number, Job>();
  private readonly streams = new Map<number, Md5Lane>();

  get pending(): number {
    return this.jobs.size + this.streams.size;
  }

  run(message: Message): Promise<JobReply> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<JobReply>((resolve, reject) => {
      this.jobs.set(id, { resolve, reject });
      this.refresh();
      worker.postMessage({ id, ...message });
    });
  }

  /** Fire and forget: results come back as part messages of the stream. */
  post(message: { kind: 'stream-data'; stream: number; views: { buffer: ArrayBuffer; offset: number; length: number }[] }, transfer: ArrayBuffer[]) {
    this.start().postMessage(message, transfer);
  }

  attach(id: number, stream: Md5Lane): void {
    this.streams.set(id, stream);
    this.refresh();
  }

  detach(id: number): void {
    this.streams.delete(id);
    this.refresh();
  }

  /** Referenced only while it has work: an idle worker never keeps the process alive. */
  private refresh(): void {
    if (this.pending) this.worker?.ref();
    else this.worker?.unref();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      if (reply.stream !== undefined && reply.id === undefined) {
        const stream = this.streams.get(reply.stream);
        if (reply.error !== undefined) stream?.failed();
        else if ('index' in reply) stream?.delivered(reply.index, reply.md5);
        return;
      }
      if (reply.id === undefined) return;
      const job = this.jobs.get(reply.id);
      this.jobs.delete(reply.id);
      this.refresh();
      if (reply.error !== undefined) job?.reject(new Error(reply.error));
      else job?.resolve(reply as JobReply);
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const job of this.jobs.values()) job.reject(error);
      this.jobs.clear();
      for (const stream of this.streams.values()) stream.failed();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the md5 worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

/**
 * Two workers: parts hash independently, and a download's check must keep up with bytes arriving
 * at more than one core's worth of MD5. Each job goes to the worker with the fewest waiting.
 */
const workers = [new Md5Worker(), new Md5Worker()];
const idlest = () => workers.reduce((best, worker) => (worker.pending < best.pending ? worker : best));

/** The md5 (hex) of `length` bytes of `file` from `offset`. */
export async function md5OfFileRange(file: string, offset: number, length: number): Promise<string> {
  if (length >= WORKER_MIN_BYTES) return (await idlest().run({ kind: 'file', file, offset, length })).md5 as string;
  const hash = createHash('md5');
  const handle = await fs.promises.open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(length, READ_CHUNK) || 1);
    for (let done = 0; done < length; ) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, length - done), offset + done);
      if (bytesRead === 0) throw new Error(`${file} ends before byte ${offset + length}`);
      hash.update(buffer.subarray(0, bytesRead));
      done += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

/** Whether `data` alone owns its memory (so it can be moved to a worker). */
function ownsMemory(data: Uint8Array): boolean {
  return data.byteOffset === 0 && data.buffer.byteLength === data.length && data.buffer instanceof ArrayBuffer;
}

/** A buffer over shared memory, which the md5 workers can read without a copy (an upload's part buffers). */
export function sharedBuffer(size: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(size));
}

/**
 * The md5 (hex) of `data`, hashed in a worker when `data` lies in shared memory (see `sharedBuffer`;
 * it must not change until the promise settles), in place otherwise.
 */
export async function md5OfBuffer(data: Buffer): Promise<string> {
  if (data.length < WORKER_MIN_BYTES || !(data.buffer instanceof SharedArrayBuffer)) return createHash('md5').update(data).digest('hex');
  return (await idlest().run({ kind: 'shared', bytes: data.buffer, offset: data.byteOffset, length: data.length })).md5 as string;
}

let nextStreamId = 0;

/** One worker's share of an Md5Stream: every other part. */
class Md5Lane {
  readonly results = new Map<number, string>();
  private readonly id = nextStreamId++;
  private readonly started: Promise<boolean>;
  private ok = true;

  constructor(
    private readonly worker: Md5Worker,
    file: string,
    parts: StreamPart[],
    start: number,
  ) {
    this.worker.attach(this.id, this);
    this.started = this.worker.run({ kind: 'stream-start', stream: this.id, file, parts, start }).then(
      () => true,
      () => this.failed(),
    );
  }

  feed(views: { buffer: ArrayBuffer; offset: number; length: number }[]): void {
    if (this.ok && views.length)
      this.worker.post(
        { kind: 'stream-data', stream: this.id, views },
        views.map((view) => view.buffer),
      );
  }

  async end(): Promise<void> {
    await this.started;
    await this.worker.run({ kind: 'stream-end', stream: this.id }).catch(() => undefined);
    this.worker.detach(this.id);
  }

  delivered(index: number, md5: string): void {
    if (this.ok) this.results.set(index, md5);
  }

  /** The worker could not hash this lane (or stopped): nothing it delivered is trusted. */
  failed(): false {
    this.ok = false;
    this.results.clear();
    return false;
  }
}

/**
 * The md5s of consecutive parts of a file whose bytes arrive in order from `start` (a download):
 * `feed` moves each written chunk to a worker, which reports a part's md5 as soon as its last byte
 * is fed. Parts alternate between the two workers, so that the check keeps up with more than one
 * core's worth of MD5. A part that began before `start` is hashed from the bytes already in `file`
 * first. After `end`, the parts not delivered are missing from `results`.
 */
export class Md5Stream {
  private readonly lanes: Md5Lane[];
  /** Which lane hashes each part, in the order of `parts`. */
  private readonly laneOf: Md5Lane[];
  private position: number;
  private next = 0;

  constructor(
    file: string,
    private readonly parts: StreamPart[],
    start: number,
  ) {
    this.lanes = workers.map(
      (worker, lane) =>
        new Md5Lane(
          worker,
          file,
          parts.filter((_, i) => i % workers.length === lane),
          start,
        ),
    );
    this.laneOf = parts.map((_, i) => this.lanes[i % workers.length] as Md5Lane);
    this.position = start;
  }

  /** Chunks written to the file, in order; they are moved to the workers (or copied, where they share memory or straddle parts) and must not be used again. */
  feed(chunks: Buffer[]): void {
    const views = new Map<Md5Lane, { buffer: ArrayBuffer; offset: number; length: number }[]>();
    for (const chunk of chunks) {
      const owned = ownsMemory(chunk) ? chunk : new Uint8Array(chunk);
      for (let used = 0; used < owned.length && this.next < this.parts.length; ) {
        const part = this.parts[this.next] as StreamPart;
        const take = Math.min(owned.length - used, part.offset + part.size - this.position);
        const lane = this.laneOf[this.next] as Md5Lane;
        const list = views.get(lane) ?? [];
        views.set(lane, list);
        // A chunk within one part is moved whole; one across a part boundary is cut into pieces of their own.
        const piece = take === owned.length ? owned : new Uint8Array(owned.subarray(used, used + take));
        list.push({ buffer: piece.buffer as ArrayBuffer, offset: 0, length: take });
        used += take;
        this.position += take;
        if (this.position === part.offset + part.size) this.next++;
      }
    }
    for (const [lane, list] of views) lane.feed(list);
  }

  /** Resolves once every part completed by the chunks fed so far is in `results`. */
  async end(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.end()));
  }

  get results(): Map<number, string> {
    return new Map(this.lanes.flatMap((lane) => [...lane.results]));
  }
}
