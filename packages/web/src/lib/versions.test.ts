import { describe, expect, it } from 'vitest';
import { compareVersions, newestFirst } from './versions';

describe('app versions', () => {
  it('orders versions semantically, a pre-release before its release', () => {
    expect(['1.9.2', '1.10.0', '1.10.0-rc1', '0.1'].sort((a, b) => compareVersions(b, a))).toEqual(['1.10.0', '1.10.0-rc1', '1.9.2', '0.1']);
    expect(compareVersions('2.0', '2.0.0')).toBe(0);
  });

  it('puts the newest version first even when an older line was published later (a backport)', () => {
    const versions = [
      { id: 'app-a', version: '1.9.3', created: 30 },
      { id: 'app-b', version: '1.10.0', created: 20 },
      { id: 'app-c', version: '1.9.2', created: 10 },
    ];
    expect(newestFirst(versions).map((v) => v.id)).toEqual(['app-b', 'app-a', 'app-c']);
    expect(versions[0]?.id).toBe('app-a');
  });
});
