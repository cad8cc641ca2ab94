import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/**
 * MD5 in a worker thread. Hashing a part as it streams in cost the server's one JavaScript thread
 * about 1.5 s per GiB (MD5 runs at about 700 MiB/s), during which it could not receive. Each
 * written batch of a part is moved to the worker (not copied), which hashes it while the main thread
 * goes on. (The CLI's transfers have a twin of this in
 * @panx/client/transfer; the server does not depend on the client.)
 */

// Plain JavaScript (eval'd as CommonJS): a worker file next to this module would be missing when the
// TypeScript sources are run directly (vitest).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', ({ id, kind, buffers }) => {
  if (kind === 'start') hashes.set(id, createHash('md5'));
  else if (kind === 'data') {
    const hash = hashes.get(id);
    if (hash) for (const buffer of buffers) hash.update(new Uint8Array(buffer));
  } else if (kind === 'digest') {
    const hash = hashes.get(id);
    hashes.delete(id);
    parentPort.postMessage({ id, md5: hash ? hash.digest('hex') : undefined });
  } else if (kind === 'drop') hashes.delete(id);
});
`;

class Md5Worker {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, { resolve: (md5: string) => void; reject: (error: Error) => void }>();
  /** Hashes started and not yet digested or dropped: the worker is referenced while there are any. */
  private open = 0;

  post(message: { id: number; kind: 'start' | 'drop' } | { id: number; kind: 'data'; buffers: ArrayBuffer[] }): void {
    const worker = this.start();
    if (message.kind === 'start' && this.open++ === 0) worker.ref();
    if (message.kind === 'drop') this.close();
    worker.postMessage(message, message.kind === 'data' ? message.buffers : []);
  }

  digest(id: number): Promise<string> {
    const worker = this.start();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, kind: 'digest' });
    });
  }

  private close(): void {
    if (--this.open === 0) this.worker?.unref();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', ({ id, md5 }: { id: number; md5?: string }) => {
      const waiting = this.waiting.get(id);
      this.waiting.delete(id);
      this.close();
      if (md5 === undefined) waiting?.reject(new Error('the md5 worker lost this hash'));
      else waiting?.resolve(md5);
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
      this.open = 0;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the md5 worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

const shared = new Md5Worker();
let nextId = 0;

/** The md5 of bytes fed in order; call `digest` or `drop` exactly once. */
export class WorkerMd5 {
  private readonly id = nextId++;

  constructor() {
    shared.post({ id: this.id, kind: 'start' });
  }

  /** `data` is moved to the worker when it owns its memory (copied otherwise) and must not be used again. */
  update(data: Buffer): void {
    if (!data.length) return;
    const owned = data.byteOffset === 0 && data.buffer.byteLength === data.length && data.buffer instanceof ArrayBuffer ? data : new Uint8Array(data);
    shared.post({ id: this.id, kind: 'data', buffers: [owned.buffer as ArrayBuffer] });
  }

  digest(): Promise<string> {
    return shared.digest(this.id);
  }

  drop(): void {
    shared.post({ id: this.id, kind: 'drop' });
  }
}

/** Below this, hashing on the calling thread costs less than the messages to and from the worker. */
export const WORKER_MIN_BYTES = 1024 * 1024;

/** The same contract as WorkerMd5, hashed on the calling thread: for bodies too small to be worth a worker. */
export class InPlaceMd5 {
  private readonly hash = createHash('md5');

  update(data: Buffer): void {
    this.hash.update(data);
  }

  digest(): Promise<string> {
    return Promise.resolve(this.hash.digest('hex'));
  }

  drop(): void {}
}
