/** Messages between Md5Hasher (any thread) and its worker (worker.ts). */

export interface BytesView {
  buffer: SharedArrayBuffer;
  offset: number;
  length: number;
  /** A buffer of the hasher's pool: the worker names it in `released` once these bytes are hashed. */
  slot?: number;
}

export type ToWorker =
  /** lazy: hashed only beside other lazy streams' bytes (see worker.ts) until its digest is asked for. */
  | { kind: 'open'; stream: number; lazy: boolean }
  | { kind: 'data'; stream: number; views: BytesView[] }
  | { kind: 'file'; stream: number; file: string; offset: number; length: number }
  | { kind: 'digest'; stream: number }
  | { kind: 'drop'; stream: number };

export type FromWorker = { stream: number; md5: string } | { stream: number; error: string } | { released: number[] };
