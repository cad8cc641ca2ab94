import { describe, expect, it } from 'vitest';
import { DEFAULT_UPLOAD_LIMITS, parseResumeRecords, partsToResume, planDrop, planUpload, resumeKey, totalProgress } from './upload-planner';

const MiB = 1024 * 1024;

describe('upload planner (SPEC §9)', () => {
  it('gives large files larger parts (about 32, at most 64 MiB each) and keeps 10 MiB for small ones', () => {
    expect(planUpload(100 * MiB).partSize).toBe(10 * MiB);
    expect(planUpload(512 * MiB).partSize).toBe(16 * MiB);
    expect(planUpload(1024 * MiB).partSize).toBe(32 * MiB);
    expect(planUpload(1024 * MiB).parts).toHaveLength(32);
    expect(planUpload(100 * 1024 * MiB).partSize).toBe(64 * MiB);
  });

  it('cuts files into 10 MiB parts, the last one shorter', () => {
    const plan = planUpload(25 * MiB + 3);
    expect(plan.partSize).toBe(10 * MiB);
    expect(plan.parts).toEqual([
      { index: 1, start: 0, end: 10 * MiB },
      { index: 2, start: 10 * MiB, end: 20 * MiB },
      { index: 3, start: 20 * MiB, end: 25 * MiB + 3 },
    ]);
  });

  it('sends an empty file as one empty part and a small file as one part', () => {
    expect(planUpload(0).parts).toEqual([{ index: 1, start: 0, end: 0 }]);
    expect(planUpload(10).parts).toEqual([{ index: 1, start: 0, end: 10 }]);
  });

  it('grows parts to stay within 10,000 parts, within [5 MiB, 5 GiB], and refuses files over 5 TiB', () => {
    const size = 200 * 1024 * MiB; // 200 GiB: 10 MiB parts would be 20,480
    const plan = planUpload(size);
    expect(plan.parts.length).toBeLessThanOrEqual(10_000);
    expect(plan.partSize).toBeGreaterThanOrEqual(Math.ceil(size / 10_000));
    expect(plan.partSize).toBeLessThanOrEqual(DEFAULT_UPLOAD_LIMITS.maximumPartSize);
    for (const part of plan.parts.slice(0, -1)) expect(part.end - part.start).toBe(plan.partSize);
    expect(() => planUpload(5 * 1024 * 1024 * MiB + 1)).toThrow(/limited/);
    expect(planUpload(1, { ...DEFAULT_UPLOAD_LIMITS, defaultPartSize: 1 }).partSize).toBe(5 * MiB);
  });

  it('resumes: re-sends missing or different parts, verifies complete ones', () => {
    const plan = planUpload(25 * MiB);
    const { send, verify } = partsToResume(plan, {
      '1': { state: 'complete', size: 10 * MiB, md5: 'x' },
      '2': { state: 'pending', size: 10 * MiB, md5: '' },
      '3': { state: 'complete', size: 1, md5: 'y' },
    });
    expect(verify.map((part) => part.index)).toEqual([1]);
    expect(send.map((part) => part.index)).toEqual([2, 3]);
  });

  it('places dropped folders below the target and lists the folders to create, parents first', () => {
    const files = [
      { name: 'a.fq', size: 1, relativePath: 'reads/run1/a.fq' },
      { name: 'b.fq', size: 1, relativePath: 'reads/b.fq' },
      { name: 'c.txt', size: 1, relativePath: '' },
    ];
    const plan = planDrop(files, '/data');
    expect(plan.files.map(({ folder, name }) => [folder, name])).toEqual([
      ['/data/reads/run1', 'a.fq'],
      ['/data/reads', 'b.fq'],
      ['/data', 'c.txt'],
    ]);
    expect(plan.folders).toEqual(['/data/reads', '/data/reads/run1']);
    expect(planDrop([{ name: 'x', size: 1, relativePath: 'd/x' }], '/').folders).toEqual(['/d']);
    expect(planDrop([{ name: 'x', size: 1, relativePath: '../../x' }], '/').files[0]).toMatchObject({ folder: '/', name: 'x' });
  });

  it('reads resume records, dropping malformed and stale ones', () => {
    const now = Date.now();
    const good = { fileId: 'file-1', project: 'project-1', folder: '/', name: 'a', size: 3, lastModified: 1, partSize: 10, started: now };
    const key = resumeKey(good);
    const text = JSON.stringify({ [key]: good, bad: { fileId: 'nope' }, old: { ...good, started: now - 30 * 3_600_000 } });
    expect(parseResumeRecords(text, now)).toEqual({ [key]: good });
    expect(parseResumeRecords('not json', now)).toEqual({});
    expect(parseResumeRecords(null, now)).toEqual({});
  });

  it('adds up progress', () => {
    expect(totalProgress([])).toEqual({ size: 0, sent: 0, fraction: 1 });
    expect(
      totalProgress([
        { size: 10, sent: 5 },
        { size: 30, sent: 40 },
      ]).fraction,
    ).toBeCloseTo(35 / 40);
  });
});
