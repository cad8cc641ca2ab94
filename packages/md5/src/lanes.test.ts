import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { md5Engine, md5Lanes } from './lanes.js';

const md5 = (data: Uint8Array) => createHash('md5').update(data).digest('hex');

describe('md5Lanes', () => {
  it('is the native engine on this machine (npm install builds it)', () => {
    if (process.env.PANX_MD5_NATIVE === '0') return;
    expect(md5Engine).toMatch(/^native (avx512|avx2|sse2|generic)$/);
  });

  it('hashes the edge lengths around the padding, alone and side by side', () => {
    const lengths = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 65_536 + 7];
    const data = lengths.map((length) => randomBytes(length));
    const lanes = data.map((bytes) => {
      const lane = md5Lanes.open();
      lane.update(bytes);
      return lane;
    });
    md5Lanes.work(lanes);
    expect(lanes.map((lane) => lane.digest())).toEqual(data.map(md5));
    // Alone, with no work call first.
    for (const bytes of data) {
      const lane = md5Lanes.open();
      lane.update(bytes);
      expect(lane.digest()).toBe(md5(bytes));
    }
  });

  it('agrees with node:crypto for any number of streams, cut anywhere, worked in any order', () => {
    const stream = fc.record({
      bytes: fc.uint8Array({ maxLength: 3000, size: 'max' }),
      cuts: fc.array(fc.nat(3000), { maxLength: 8 }),
    });
    fc.assert(
      fc.property(fc.array(stream, { minLength: 1, maxLength: 20 }), fc.array(fc.nat({ max: 400 }), { maxLength: 6 }), (streams, budgets) => {
        const lanes = streams.map(() => md5Lanes.open());
        // Each stream's bytes go in at its cuts, the streams' pieces interleaved, with work calls of
        // small budgets in between (so that some streams stop in the middle of a piece).
        const pieces = streams.map(({ bytes, cuts }) => {
          const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          return [0, ...points, bytes.length].slice(1).map((end, i, ends) => bytes.subarray(i ? (ends[i - 1] as number) : 0, end));
        });
        for (let round = 0; pieces.some((list) => list.length); round++) {
          pieces.forEach((list, index) => {
            const piece = list.shift();
            if (piece) lanes[index]?.update(piece);
          });
          const budget = budgets[round % Math.max(1, budgets.length)];
          md5Lanes.work(lanes, budget ?? Number.POSITIVE_INFINITY);
        }
        expect(lanes.map((lane) => lane.digest())).toEqual(streams.map(({ bytes }) => md5(bytes)));
      }),
      { numRuns: 300 },
    );
  });

  it('hashes more streams than the widest vector holds, and streams of different lengths', () => {
    const data = Array.from({ length: 37 }, (_, i) => randomBytes(64 * 1024 + i * 997));
    const lanes = data.map(() => md5Lanes.open());
    for (const [i, bytes] of data.entries()) lanes[i]?.update(bytes);
    md5Lanes.work(lanes);
    expect(lanes.every((lane) => lane.queued < 64)).toBe(true);
    expect(lanes.map((lane) => lane.digest())).toEqual(data.map(md5));
  });

  it('refuses a lane used after its digest or drop', () => {
    const lane = md5Lanes.open();
    lane.update(Buffer.from('abc'));
    expect(lane.digest()).toBe(md5(Buffer.from('abc')));
    expect(() => lane.update(Buffer.from('d'))).toThrow(/after digest or drop/);
    expect(() => lane.digest()).toThrow(/after digest or drop/);
    const dropped = md5Lanes.open();
    dropped.drop();
    expect(() => dropped.update(Buffer.from('x'))).toThrow(/after digest or drop/);
  });
});
