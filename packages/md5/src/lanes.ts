import { createHash, type Hash } from 'node:crypto';
import { createRequire } from 'node:module';

/**
 * MD5 of many streams side by side. One MD5 is a chain of dependent steps (4-5 cycles a byte on any
 * core), but the steps of different streams are independent: the native module (native/md5_lanes.c)
 * runs up to 16 streams in the lanes of one vector register for about the cost of one. A transfer
 * hashes its parts that way: 4 parts cost what 1.4 cost with node:crypto, 8 what 1.4 of them did.
 *
 * Streams only advance together over bytes they all have, so the bytes given to `update` are queued
 * (not copied) until `work` or a `digest` hashes them: the caller must leave them unchanged until
 * then. Without the native module every stream is a node:crypto hash, fed at once.
 */

interface NativeMd5 {
  /** Advances `inputs.length` MD5 states (4 words each in `states`) by `blocks` 64-byte blocks of each input. */
  hashBlocks(states: Uint32Array, inputs: Uint8Array[], blocks: number): void;
  /** What the widest vectors are: avx512, avx2, sse2 or generic. */
  instructionSet: string;
  /** How many bytes from the view's start its memory is aligned to `alignment` (a power of two). */
  alignmentSkip(view: Uint8Array, alignment: number): number;
}

function loadNative(): NativeMd5 | undefined {
  if (process.env.PANX_MD5_NATIVE === '0') return undefined;
  try {
    // The same path from src/ (tests) and dist/ (built).
    return createRequire(import.meta.url)('../build/Release/md5_lanes.node') as NativeMd5;
  } catch {
    return undefined;
  }
}

const native = loadNative();

/**
 * How many bytes from the start of `view` its memory is aligned to `alignment` (a power of two), as
 * direct I/O needs; undefined without the native module (JavaScript cannot see addresses).
 */
export function alignmentSkip(view: Uint8Array, alignment: number): number | undefined {
  return native?.alignmentSkip ? native.alignmentSkip(view, alignment) : undefined;
}

/** How MD5s are computed here: the native vector lanes (and their instruction set), or node:crypto. */
export const md5Engine: string = native ? `native ${native.instructionSet}` : 'node:crypto';

const INITIAL_STATE = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
const BLOCK = 64;

/** One stream's state in the native engine: its MD5 words, the queued bytes and a block being gathered. */
class NativeStream {
  readonly state = Uint32Array.from(INITIAL_STATE);
  readonly queue: Uint8Array[] = [];
  /** For each queued input, what to call once its bytes are no longer needed (see `update`). */
  readonly releases: ((() => void) | undefined)[] = [];
  /** A block gathered across inputs that did not end on a block boundary. */
  readonly carry = new Uint8Array(BLOCK);
  carryLength = 0;
  /** Bytes given to `update` so far. */
  length = 0;
  /** Bytes queued, not hashed yet (with the carry). */
  queued = 0;
  /** Whether this round's input is the carry (else the head of the queue). */
  fromCarry = false;

  /** The longest run of whole blocks that can be hashed next without a copy (or the carry, once full). */
  nextInput(): Uint8Array | undefined {
    for (;;) {
      if (this.carryLength > 0) {
        while (this.carryLength < BLOCK && this.queue.length) {
          const head = this.queue[0] as Uint8Array;
          const take = Math.min(BLOCK - this.carryLength, head.length);
          this.carry.set(head.subarray(0, take), this.carryLength);
          this.carryLength += take;
          this.advanceHead(take);
        }
        this.fromCarry = true;
        return this.carryLength === BLOCK ? this.carry : undefined;
      }
      const head = this.queue[0];
      if (!head) return undefined;
      if (head.length >= BLOCK) {
        this.fromCarry = false;
        return head.subarray(0, head.length - (head.length % BLOCK));
      }
      // Less than a block: it starts the carry.
      this.carry.set(head);
      this.carryLength = head.length;
      this.shift();
    }
  }

  consume(bytes: number): void {
    this.queued -= bytes;
    if (this.fromCarry) this.carryLength = 0;
    else this.advanceHead(bytes);
  }

  private advanceHead(bytes: number): void {
    const head = this.queue[0] as Uint8Array;
    if (bytes === head.length) this.shift();
    else this.queue[0] = head.subarray(bytes);
  }

  private shift(): void {
    this.queue.shift();
    this.releases.shift()?.();
  }

  /** Forgets every queued input, releasing each. */
  clear(): void {
    while (this.queue.length) this.shift();
    this.queued = 0;
  }

  /** The bytes left (under one block once the queue is hashed), padded and hashed: the digest. */
  finish(hash: NativeMd5): string {
    const tail = Buffer.concat([this.carry.subarray(0, this.carryLength), ...this.queue]);
    this.clear();
    if (tail.length >= BLOCK) throw new Error('md5: finish before the queued blocks were hashed');
    const padded = Buffer.alloc(tail.length < 56 ? BLOCK : 2 * BLOCK);
    tail.copy(padded);
    padded[tail.length] = 0x80;
    padded.writeBigUInt64LE(BigInt(this.length) * 8n, padded.length - 8);
    hash.hashBlocks(this.state, [padded], padded.length / BLOCK);
    return Buffer.from(this.state.buffer, this.state.byteOffset, 16).toString('hex');
  }
}

/** One MD5 stream: feed it with `update`, end it with `digest` (or `drop`). */
export interface Md5Lane {
  /**
   * Queues `data`, which must stay unchanged until it is hashed (by `work` or `digest`): `release`,
   * if given, is called once it is no longer needed (hashed, or the lane dropped).
   */
  update(data: Uint8Array, release?: () => void): void;
  /** Bytes queued and not hashed yet. */
  readonly queued: number;
  /** Hashes what is left queued and answers the MD5 in hex. The lane is closed. */
  digest(): string;
  /** Closes the lane, forgetting what is queued. */
  drop(): void;
}

/** A lane of the native engine. */
class NativeLane extends NativeStream implements Md5Lane {
  open = true;

  constructor(private readonly engine: NativeMd5) {
    super();
  }

  update(data: Uint8Array, release?: () => void): void {
    if (!this.open) throw new Error('md5: update after digest or drop');
    if (!data.length) {
      release?.();
      return;
    }
    this.queue.push(data);
    this.releases.push(release);
    this.length += data.length;
    this.queued += data.length;
  }

  digest(): string {
    if (!this.open) throw new Error('md5: digest after digest or drop');
    hashSideBySide(this.engine, [this], Number.POSITIVE_INFINITY);
    this.open = false;
    return this.finish(this.engine);
  }

  drop(): void {
    this.open = false;
    this.clear();
  }
}

/**
 * Hashes the lanes' queued bytes side by side, over the bytes they all have: until none has a whole
 * block queued, or about `maxBytes` of each are hashed.
 */
function hashSideBySide(engine: NativeMd5, lanes: Iterable<NativeLane>, maxBytes: number): void {
  let budget = maxBytes;
  for (;;) {
    const ready: NativeLane[] = [];
    const inputs: Uint8Array[] = [];
    let blocks = Math.floor(budget / BLOCK);
    for (const lane of lanes) {
      const input = lane.open && lane.queued >= BLOCK ? lane.nextInput() : undefined;
      if (!input) continue;
      ready.push(lane);
      inputs.push(input);
      blocks = Math.min(blocks, input.length / BLOCK);
    }
    if (!ready.length || blocks < 1) return;
    if (ready.length === 1) {
      engine.hashBlocks((ready[0] as NativeLane).state, inputs, blocks);
    } else {
      const states = new Uint32Array(ready.length * 4);
      for (const [index, lane] of ready.entries()) states.set(lane.state, index * 4);
      engine.hashBlocks(states, inputs, blocks);
      for (const [index, lane] of ready.entries()) lane.state.set(states.subarray(index * 4, index * 4 + 4));
    }
    for (const lane of ready) lane.consume(blocks * BLOCK);
    budget -= blocks * BLOCK;
  }
}

/** Opens MD5 lanes and hashes the bytes queued in several of them side by side; see the top of this file. */
export const md5Lanes = {
  open(): Md5Lane {
    return native ? new NativeLane(native) : cryptoLane();
  },

  /**
   * Hashes the queued bytes of `lanes` (lanes from `open`) side by side, over the bytes they all
   * have: until none has a whole block queued, or about `maxBytes` of each are hashed.
   */
  work(lanes: Iterable<Md5Lane>, maxBytes = Number.POSITIVE_INFINITY): void {
    if (!native) return;
    hashSideBySide(
      native,
      [...lanes].filter((lane): lane is NativeLane => lane instanceof NativeLane),
      maxBytes,
    );
  },
};

/** A lane without the native module: node:crypto, fed at once (nothing is queued). */
function cryptoLane(): Md5Lane {
  let hash: Hash | undefined = createHash('md5');
  return {
    update(data: Uint8Array, release?: () => void) {
      if (!hash) throw new Error('md5: update after digest or drop');
      hash.update(data);
      release?.();
    },
    queued: 0,
    digest() {
      if (!hash) throw new Error('md5: digest after digest or drop');
      const md5 = hash.digest('hex');
      hash = undefined;
      return md5;
    },
    drop() {
      hash = undefined;
    },
  };
}
