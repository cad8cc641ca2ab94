import fs from 'node:fs';
import path from 'node:path';
import { MD5_SLOT_ALIGNMENT, MD5_SLOT_BYTES, type Md5Slot, returnMd5Slot, takeMd5Slot } from '@panx/md5';

/**
 * How a download's bytes reach its `.part` file. The socket reads straight into the md5 worker's
 * shared slots (`region`), from where the bytes are written and hashed in place: no copy in this
 * process. Writes go through the page cache while it is cheap, and around it (O_DIRECT, as the
 * server writes upload parts) once it is not: on this kind of VM the page cache takes 2 GiB at
 * 0.21–0.3 ms per MiB in one moment and at 2.3–2.8 ms per MiB in another (what the kernel freed just
 * before decides, and the writing process pays it), against about 0.4 ms per MiB written directly.
 * Large downloads therefore start in the page cache and move to O_DIRECT at the first stretch it
 * took slowly (PageCacheFirstPartFile). Small downloads, and file systems that refuse O_DIRECT,
 * stay in the page cache.
 */
export interface PartFileWriter {
  /** Whether whole pages go around the page cache (O_DIRECT) now. */
  readonly direct: boolean;
  /**
   * Where the next bytes go: up to `max` bytes (at least 1) of the slot being filled, at `offset` in
   * it. Fill them and `commit`; a region not committed is simply not used. Throws once a write has
   * failed or the file is finished.
   */
  region(max: number): { slot: Md5Slot; offset: number; bytes: Uint8Array };
  /** The first `length` bytes of the last region are filled: they belong to the file (throws once a write has failed). */
  commit(length: number): void;
  /** False while the writes are behind: stop reading until `whenReady` calls back. */
  canTakeMore(): boolean;
  /** Calls back once, when `canTakeMore` turns true again (or a write failed: `commit` and `finish` tell). */
  whenReady(callback: () => void): void;
  /**
   * Writes what is held and closes the file; answers its length (everything committed is in it), or
   * rejects with a write's failure, the file then holding an unbroken prefix of what was committed.
   */
  finish(): Promise<number>;
}

/** Downloads of at least this many bytes (from the resume point) may move to O_DIRECT. */
export const DIRECT_WRITE_MIN_BYTES = 16 * 1024 * 1024;
/** The page cache's speed is judged over each stretch of this many bytes written through it. */
const PAGE_CACHE_WINDOW_BYTES = 64 * 1024 * 1024;
/** A stretch that took longer than this per MiB moves the rest of the download to O_DIRECT (bimodal: 0.2–0.3 or 2.3+). */
const SLOW_PAGE_CACHE_MS_PER_MIB = 1;
const MiB = 1024 * 1024;
/** Full slots waiting for, or in, their direct write before reading pauses. */
const DIRECT_QUEUE_MAX = 3;
const PAGE = MD5_SLOT_ALIGNMENT;

const O_DIRECT: number | undefined = (fs.constants as Record<string, number | undefined>).O_DIRECT;
/** Folders whose file system refused O_DIRECT (EINVAL): written through the page cache from then on. */
const noDirectIo = new Set<string>();

export interface PartFileOptions {
  /** The bytes before `start` are in the file already (a resume); the file is cut there. */
  start: number;
  /** How many bytes are expected from `start` (decides whether direct I/O pays). */
  expected: number;
  /** Bytes are on their way to the disk (in the page cache or written directly). */
  onWritten?: (bytes: number) => void;
  /**
   * true: O_DIRECT whatever the size (`px download --direct-io always`); false: the page cache only (`never`).
   * Unset: DIRECT_WRITE_MIN_BYTES or more start in the page cache and move to O_DIRECT when it is slow.
   */
  direct?: boolean;
  /** Tests: the stretch over which the page cache's speed is judged, and the speed (ms per MiB) that is too slow. */
  pageCache?: { windowBytes: number; slowMsPerMiB: number };
}

export function openPartFile(file: string, options: PartFileOptions): PartFileWriter {
  const fd = fs.openSync(file, options.start > 0 ? fs.constants.O_WRONLY | fs.constants.O_CREAT : 'w');
  try {
    if (options.start > 0) fs.ftruncateSync(fd, options.start);
    const directPossible = O_DIRECT !== undefined && !noDirectIo.has(folderOf(file));
    if (options.direct === true && directPossible) {
      const direct = openDirectPartFile(file, fd, options);
      if (direct) return direct;
    }
    if (options.direct === undefined && directPossible && options.expected >= DIRECT_WRITE_MIN_BYTES) {
      return new PageCacheFirstPartFile(file, fd, options);
    }
    return new BufferedPartFile(fd, options);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

const folderOf = (file: string) => path.dirname(path.resolve(file));

/** A direct writer over `fd` (the file's ordinary descriptor), or undefined where direct I/O cannot be had. */
function openDirectPartFile(file: string, fd: number, options: PartFileOptions): DirectPartFile | undefined {
  // Direct I/O needs page-aligned memory: without the native module's addresses, none.
  const first = takeMd5Slot();
  let directFd: number | undefined;
  try {
    directFd = first.aligned ? openDirect(file) : undefined;
  } catch (error) {
    returnMd5Slot(first);
    throw error;
  }
  if (directFd !== undefined) return new DirectPartFile(fd, directFd, folderOf(file), first, options);
  returnMd5Slot(first);
  return undefined;
}

function openDirect(file: string): number | undefined {
  try {
    return fs.openSync(file, fs.constants.O_WRONLY | (O_DIRECT as number));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
    noDirectIo.add(folderOf(file));
    return undefined;
  }
}

/** Each commit goes to the page cache at once (synchronously), while the bytes are still in this core's cache. */
class BufferedPartFile implements PartFileWriter {
  readonly direct = false;
  private position: number;
  private slot: Md5Slot | undefined;
  private used = 0;
  private finished = false;

  constructor(
    private readonly fd: number,
    private readonly options: PartFileOptions,
    /** Told how long each commit's writes took, in nanoseconds. */
    private readonly timed?: (bytes: number, nanoseconds: number) => void,
  ) {
    this.position = options.start;
  }

  region(max: number) {
    if (this.finished) throw new Error('the part file is closed');
    if (!this.slot) {
      this.slot = takeMd5Slot();
      this.used = 0;
    }
    const length = Math.max(1, Math.min(max, MD5_SLOT_BYTES - this.used));
    return { slot: this.slot, offset: this.used, bytes: this.slot.bytes.subarray(this.used, this.used + length) };
  }

  commit(length: number): void {
    const slot = this.slot as Md5Slot;
    const started = this.timed ? process.hrtime.bigint() : 0n;
    for (let done = 0; done < length; ) done += fs.writeSync(this.fd, slot.bytes, this.used + done, length - done, this.position + done);
    if (this.timed) this.timed(length, Number(process.hrtime.bigint() - started));
    this.position += length;
    this.used += length;
    this.options.onWritten?.(length);
    if (this.used === MD5_SLOT_BYTES) this.letSlotGo();
  }

  canTakeMore(): boolean {
    return true;
  }

  whenReady(callback: () => void): void {
    queueMicrotask(callback);
  }

  async finish(): Promise<number> {
    return this.close();
  }

  /** `finish`, synchronously (everything is written already). */
  close(): number {
    this.finished = true;
    this.letSlotGo();
    fs.closeSync(this.fd);
    return this.position;
  }

  private letSlotGo(): void {
    if (this.slot) returnMd5Slot(this.slot);
    this.slot = undefined;
  }
}

/**
 * Writes through the page cache (timed, as BufferedPartFile) until a stretch of it was slow, then
 * reopens the file and writes the rest with O_DIRECT (DirectPartFile, from where the page cache
 * stopped). Bytes the md5 streams still hold stay theirs: the switch only changes who writes next.
 */
class PageCacheFirstPartFile implements PartFileWriter {
  private current: PartFileWriter;
  /** The page-cache writer while it is the current one. */
  private buffered: BufferedPartFile | undefined;
  private windowBytes = 0;
  private windowNanoseconds = 0;
  private slow = false;
  private readonly windowSize: number;
  private readonly slowMsPerMiB: number;

  constructor(
    private readonly file: string,
    fd: number,
    private readonly options: PartFileOptions,
  ) {
    this.windowSize = options.pageCache?.windowBytes ?? PAGE_CACHE_WINDOW_BYTES;
    this.slowMsPerMiB = options.pageCache?.slowMsPerMiB ?? SLOW_PAGE_CACHE_MS_PER_MIB;
    this.buffered = new BufferedPartFile(fd, options, (bytes, nanoseconds) => this.measure(bytes, nanoseconds));
    this.current = this.buffered;
  }

  get direct(): boolean {
    return this.current.direct;
  }

  region(max: number) {
    return this.current.region(max);
  }

  commit(length: number): void {
    this.current.commit(length);
    if (this.slow && this.buffered) this.moveToDirect(this.buffered);
  }

  canTakeMore(): boolean {
    return this.current.canTakeMore();
  }

  whenReady(callback: () => void): void {
    this.current.whenReady(callback);
  }

  finish(): Promise<number> {
    return this.current.finish();
  }

  private measure(bytes: number, nanoseconds: number): void {
    this.windowBytes += bytes;
    this.windowNanoseconds += nanoseconds;
    if (this.windowBytes < this.windowSize) return;
    if (this.windowNanoseconds / 1e6 / (this.windowBytes / MiB) > this.slowMsPerMiB) this.slow = true;
    this.windowBytes = 0;
    this.windowNanoseconds = 0;
  }

  private moveToDirect(buffered: BufferedPartFile): void {
    this.buffered = undefined;
    const start = buffered.close();
    const fd = fs.openSync(this.file, fs.constants.O_WRONLY);
    try {
      this.current = openDirectPartFile(this.file, fd, { ...this.options, start }) ?? new BufferedPartFile(fd, { ...this.options, start });
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }
}

/** A filled stretch of one slot: `slot.bytes[from, to)` belongs at `fileOffset + from` in the file. */
interface Stretch {
  slot: Md5Slot;
  fileOffset: number;
  from: number;
  to: number;
}

const pageBelow = (offset: number) => offset - (offset % PAGE);
const pageAbove = (offset: number) => pageBelow(offset + PAGE - 1);

/**
 * Fills page-aligned slots laid out as the file is (a slot's first byte belongs on a page boundary
 * of the file) and writes each full slot with O_DIRECT, one write at a time so that the file always
 * holds an unbroken prefix (a killed px resumes from its length). Only the page a resume starts
 * inside and the page the file ends inside go through the page cache (a second, ordinary
 * descriptor): O_DIRECT writes whole pages only. A slot goes back to the pool once written and
 * once every md5 stream that holds it has hashed it (`holdMd5Slot`).
 */
class DirectPartFile implements PartFileWriter {
  private current: Md5Slot | undefined;
  /** Where `current.bytes[0]` belongs in the file. */
  private currentOffset: number;
  private from: number;
  private used: number;
  private readonly queue: Stretch[] = [];
  private writing = false;
  private failure: Error | undefined;
  /** The file's length so far: everything before it has been written. */
  private written: number;
  private readyCallbacks: (() => void)[] = [];
  private idleCallbacks: (() => void)[] = [];
  private finished = false;
  /** False once a direct write was refused (EINVAL): the rest goes through the page cache. */
  private directWorks = true;

  constructor(
    private readonly fd: number,
    private readonly directFd: number,
    /** The file's folder, remembered as one without direct I/O if a write is refused. */
    private readonly folder: string,
    first: Md5Slot,
    private readonly options: PartFileOptions,
  ) {
    this.current = first;
    this.currentOffset = pageBelow(options.start);
    this.from = this.used = options.start - this.currentOffset;
    this.written = options.start;
  }

  get direct(): boolean {
    return this.directWorks;
  }

  region(max: number) {
    if (this.failure) throw this.failure;
    if (this.finished) throw new Error('the part file is closed');
    if (!this.current) {
      this.current = takeMd5Slot();
      if (!this.current.aligned) throw new Error('md5 slots lost their alignment: direct writes cannot go on');
    }
    const length = Math.max(1, Math.min(max, MD5_SLOT_BYTES - this.used));
    return { slot: this.current, offset: this.used, bytes: this.current.bytes.subarray(this.used, this.used + length) };
  }

  commit(length: number): void {
    if (this.failure) throw this.failure;
    this.used += length;
    if (this.used === MD5_SLOT_BYTES) this.submit();
  }

  canTakeMore(): boolean {
    return this.queue.length < DIRECT_QUEUE_MAX && !this.failure;
  }

  whenReady(callback: () => void): void {
    if (this.canTakeMore() || this.failure) queueMicrotask(callback);
    else this.readyCallbacks.push(callback);
  }

  async finish(): Promise<number> {
    this.finished = true;
    // After a failed write nothing more is written: bytes after the failed stretch would leave a hole.
    if (this.current && this.used > this.from && !this.failure) this.submit();
    if (this.current) returnMd5Slot(this.current);
    this.current = undefined;
    if (this.writing || this.queue.length) await new Promise<void>((resolve) => this.idleCallbacks.push(resolve));
    fs.closeSync(this.directFd);
    fs.closeSync(this.fd);
    if (this.failure) throw this.failure;
    return this.written;
  }

  /** Queues the current slot's stretch; the next bytes go to a new slot, the file's next 4 MiB. */
  private submit(): void {
    this.queue.push({ slot: this.current as Md5Slot, fileOffset: this.currentOffset, from: this.from, to: this.used });
    this.current = undefined;
    this.currentOffset += MD5_SLOT_BYTES;
    this.from = this.used = 0;
    this.pump();
  }

  private pump(): void {
    const stretch = this.queue[0];
    if (this.writing || !stretch || this.failure) return;
    this.writing = true;
    this.writeStretch(stretch).then(
      () => {
        this.queue.shift();
        returnMd5Slot(stretch.slot);
        this.writing = false;
        this.written = stretch.fileOffset + stretch.to;
        this.options.onWritten?.(stretch.to - stretch.from);
        this.afterWrite();
      },
      (error: Error) => {
        this.failure = error;
        for (const { slot } of this.queue.splice(0)) returnMd5Slot(slot);
        this.writing = false;
        this.afterWrite();
      },
    );
  }

  private afterWrite(): void {
    if (this.queue.length) this.pump();
    else for (const callback of this.idleCallbacks.splice(0)) callback();
    if (this.canTakeMore() || this.failure) for (const callback of this.readyCallbacks.splice(0)) callback();
  }

  /** Whole pages directly; a page begun before `from` (a resume) or ended after `to` (the file's end) through the page cache. */
  private async writeStretch({ slot, fileOffset, from, to }: Stretch): Promise<void> {
    const first = pageAbove(from);
    const last = pageBelow(to);
    if (first >= last || !this.directWorks) return writeFully(this.fd, slot.bytes, from, to, fileOffset);
    if (from < first) await writeFully(this.fd, slot.bytes, from, first, fileOffset);
    try {
      await writeFully(this.directFd, slot.bytes, first, last, fileOffset);
    } catch (error) {
      // Some file systems open with O_DIRECT and then refuse the writes: the page cache takes over.
      if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
      this.directWorks = false;
      noDirectIo.add(this.folder);
      await writeFully(this.fd, slot.bytes, first, last, fileOffset);
    }
    if (last < to) await writeFully(this.fd, slot.bytes, last, to, fileOffset);
  }
}

/** Writes `buffer[from, to)` at `fileOffset + from`, however many calls that takes. */
async function writeFully(fd: number, buffer: Buffer, from: number, to: number, fileOffset: number): Promise<void> {
  for (let at = from; at < to; ) {
    at += await new Promise<number>((resolve, reject) =>
      fs.write(fd, buffer, at, to - at, fileOffset + at, (error, bytes) => (error ? reject(error) : resolve(bytes))),
    );
  }
}
