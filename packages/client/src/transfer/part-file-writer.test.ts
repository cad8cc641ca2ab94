import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mountNoDirectIo } from '../../../../test-support/mounts.js';
import { DIRECT_WRITE_MIN_BYTES, openPartFile, type PartFileWriter } from './part-file-writer.js';

const MiB = 1024 * 1024;
const data = randomBytes(17 * MiB + 777);
let dir: string;

/** Copies `bytes` in through `region` and `commit`, at most `max` bytes at a time, as reads would fill the slots. */
function copyIntoPartFile(file: PartFileWriter, bytes: Uint8Array, max: () => number): void {
  for (let done = 0; done < bytes.length; ) {
    const { bytes: room } = file.region(Math.min(bytes.length - done, max()));
    const take = Math.min(room.length, bytes.length - done);
    room.set(bytes.subarray(done, done + take));
    file.commit(take);
    done += take;
  }
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-part-file-'));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes `data[start, end)` after a `.part` file holding `data[0, start)`, in pieces of the given sizes (cycled). */
async function writeFrom(name: string, start: number, pieces: number[], options: { direct?: boolean; end?: number } = {}) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, data.subarray(0, start));
  const end = options.end ?? data.length;
  let reported = 0;
  const writer = openPartFile(file, {
    start,
    expected: end - start,
    onWritten: (bytes) => {
      reported += bytes;
    },
    direct: options.direct,
  });
  for (let at = start, index = 0; at < end; index++) {
    const piece = Math.min(pieces[index % pieces.length] as number, end - at);
    // As the socket does: a read into the region, which may be shorter than asked for.
    const { bytes } = writer.region(piece);
    const take = Math.min(bytes.length, piece);
    bytes.set(data.subarray(at, at + take));
    writer.commit(take);
    at += take;
    // As the socket does: wait whenever the writer says it is behind.
    if (!writer.canTakeMore()) await new Promise<void>((resolve) => writer.whenReady(resolve));
  }
  const length = await writer.finish();
  return { file, length, reported, direct: writer.direct };
}

describe('openPartFile: how a download reaches its .part file', () => {
  it.each([
    ['from the start', 0],
    ['from inside the first page', 1],
    ['from the last byte of a page', 4095],
    ['from a page boundary', 4096],
    ['from just past a page', 4097],
    ['from inside a later buffer', 9 * MiB + 12345],
  ])('writes whole pages with O_DIRECT and the rest through the page cache, resuming %s', async (_case, start) => {
    const result = await writeFrom(`direct-${start}.part`, start, [256 * 1024, 1, 4096, 65_537, 4095], { direct: true });
    expect(result.direct).toBe(true);
    expect(result.length).toBe(data.length);
    expect(result.reported).toBe(data.length - start);
    expect(fs.readFileSync(result.file).equals(data)).toBe(true);
  });

  it('ends inside a page, on a page boundary, or within the page it began in', async () => {
    for (const [start, end] of [
      [0, 8 * MiB],
      [100, 200],
      [4096, 8192],
      [5000, 5000],
    ] as const) {
      const result = await writeFrom(`ends-${start}-${end}.part`, start, [65_536], { direct: true, end });
      expect(result.length).toBe(end);
      expect(fs.readFileSync(result.file).equals(data.subarray(0, end))).toBe(true);
    }
  });

  it('says when the writes are behind, and takes bytes even when written to anyway', async () => {
    const file = path.join(dir, 'behind.part');
    const writer = openPartFile(file, { start: 0, expected: data.length, direct: true });
    // Three slots of 4 MiB filled in one go: one is being written and two wait.
    copyIntoPartFile(writer, data.subarray(0, 12 * MiB), () => MiB);
    expect(writer.canTakeMore()).toBe(false);
    // A caller that writes anyway is not refused.
    copyIntoPartFile(writer, data.subarray(12 * MiB), () => MiB);
    const ready = new Promise<string>((resolve) => writer.whenReady(() => resolve('ready')));
    await expect(ready).resolves.toBe('ready');
    await expect(writer.finish()).resolves.toBe(data.length);
    expect(fs.readFileSync(file).equals(data)).toBe(true);
  });

  it('writes small downloads through the page cache, as they arrive', async () => {
    const file = path.join(dir, 'small.part');
    const writer = openPartFile(file, { start: 0, expected: DIRECT_WRITE_MIN_BYTES - 1 });
    expect(writer.direct).toBe(false);
    copyIntoPartFile(writer, data.subarray(0, 3000), () => 1000);
    // Synchronous: in the file before finish.
    expect(fs.statSync(file).size).toBe(3000);
    await expect(writer.finish()).resolves.toBe(3000);
    // Large ones start there too (and move around it once it is slow: below).
    const large = openPartFile(path.join(dir, 'large.part'), { start: 0, expected: DIRECT_WRITE_MIN_BYTES });
    expect(large.direct).toBe(false);
    await expect(large.finish()).resolves.toBe(0);
  });

  it.each([
    ['from the start', 0],
    ['from inside a page', 4097],
  ])('moves a large download from the page cache to O_DIRECT once a stretch was slow, resuming %s', async (_case, start) => {
    const file = path.join(dir, `moves-${start}.part`);
    fs.writeFileSync(file, data.subarray(0, start));
    let reported = 0;
    // Any time at all is too slow here: the first full MiB decides.
    const writer = openPartFile(file, {
      start,
      expected: data.length - start,
      pageCache: { windowBytes: MiB, slowMsPerMiB: 0 },
      onWritten: (bytes) => {
        reported += bytes;
      },
    });
    expect(writer.direct).toBe(false);
    copyIntoPartFile(writer, data.subarray(start, start + MiB + 333), () => 100_000);
    expect(writer.direct).toBe(true);
    copyIntoPartFile(writer, data.subarray(start + MiB + 333), () => 256 * 1024);
    await expect(writer.finish()).resolves.toBe(data.length);
    expect(reported).toBe(data.length - start);
    expect(fs.readFileSync(file).equals(data)).toBe(true);
  });

  it('stays in the page cache while it is fast', async () => {
    const file = path.join(dir, 'stays.part');
    const writer = openPartFile(file, { start: 0, expected: data.length, pageCache: { windowBytes: MiB, slowMsPerMiB: Number.POSITIVE_INFINITY } });
    copyIntoPartFile(writer, data, () => 256 * 1024);
    expect(writer.direct).toBe(false);
    await expect(writer.finish()).resolves.toBe(data.length);
    expect(fs.readFileSync(file).equals(data)).toBe(true);
  });

  it('cuts a longer .part file at the resume point before writing after it', async () => {
    const file = path.join(dir, 'longer.part');
    fs.writeFileSync(file, Buffer.concat([data.subarray(0, 5000), Buffer.alloc(100_000, 7)]));
    const writer = openPartFile(file, { start: 5000, expected: 0, direct: true });
    copyIntoPartFile(writer, data.subarray(5000, 6000), () => 300);
    await expect(writer.finish()).resolves.toBe(6000);
    expect(fs.readFileSync(file).equals(data.subarray(0, 6000))).toBe(true);
  });

  describe('after a failed write', () => {
    afterEach(() => vi.restoreAllMocks());

    /** The `nth` asynchronous write from now fails with `code`; the others are written for real. */
    function failWrite(nth: number, code: string): void {
      const realWrite = fs.write as (...args: unknown[]) => void;
      let calls = 0;
      vi.spyOn(fs, 'write').mockImplementation(((...args: unknown[]) => {
        calls++;
        const callback = args[args.length - 1] as (error: NodeJS.ErrnoException | null, written: number) => void;
        if (calls === nth) setImmediate(() => callback(Object.assign(new Error(`${code}: write failed`), { code }), 0));
        else realWrite(...args);
      }) as typeof fs.write);
    }

    // A disk error on one write (EIO) cannot be had on demand from a real disk: the second write of
    // the file is made to fail, and everything else runs for real.
    it('writes nothing more, keeps an unbroken prefix and says why', async () => {
      const file = path.join(dir, 'eio.part');
      failWrite(2, 'EIO');
      const writer = openPartFile(file, { start: 0, expected: data.length, direct: true });
      // Two slots queued (the first being written) and half of a third filled.
      copyIntoPartFile(writer, data.subarray(0, 10 * MiB), () => MiB);
      for (let waited = 0; writer.canTakeMore() && waited < 5000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(writer.canTakeMore()).toBe(false);
      expect(() => writer.region(MiB)).toThrow('EIO');
      // The half-filled third slot is not written after the failed second one: that would leave a hole.
      await expect(writer.finish()).rejects.toThrow('EIO');
      const kept = fs.readFileSync(file);
      expect(kept.length).toBe(4 * MiB);
      expect(kept.equals(data.subarray(0, 4 * MiB))).toBe(true);
    });

    it('goes on through the page cache when a file system takes O_DIRECT at open but refuses the writes (EINVAL)', async () => {
      const folder = path.join(dir, 'refuses-writes');
      fs.mkdirSync(folder);
      failWrite(1, 'EINVAL');
      const writer = openPartFile(path.join(folder, 'a.part'), { start: 0, expected: data.length, direct: true });
      expect(writer.direct).toBe(true);
      copyIntoPartFile(writer, data, () => MiB);
      await expect(writer.finish()).resolves.toBe(data.length);
      expect(writer.direct).toBe(false);
      expect(fs.readFileSync(path.join(folder, 'a.part')).equals(data)).toBe(true);
      // Remembered for the folder: the next file there is written through the page cache from the start.
      const next = openPartFile(path.join(folder, 'b.part'), { start: 0, expected: data.length, direct: true });
      expect(next.direct).toBe(false);
      await next.finish();
    });
  });

  const noDirect = mountNoDirectIo();
  afterAll(() => noDirect?.unmount());
  // Without root (mount refused) there is no such file system to try.
  it.runIf(noDirect)('falls back to the page cache where the file system refuses O_DIRECT', async () => {
    const start = 4097;
    const file = path.join((noDirect as { dir: string }).dir, 'refused.part');
    fs.writeFileSync(file, data.subarray(0, start));
    const writer = openPartFile(file, { start, expected: data.length - start, direct: true });
    expect(writer.direct).toBe(false);
    copyIntoPartFile(writer, data.subarray(start), () => 256 * 1024);
    await expect(writer.finish()).resolves.toBe(data.length);
    expect(fs.readFileSync(file).equals(data)).toBe(true);
  });
});
