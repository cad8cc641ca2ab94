import { describe, expect, it } from 'vitest';
import { allowedAppVersions, notAllowedMessage, selectAppVersion } from './allowed';

const versions = [
  { id: 'app-v3', name: 'bwa', version: '3.0.0' },
  { id: 'app-v2', name: 'bwa', version: '2.0.0' },
  { id: 'app-v1', name: 'bwa', version: '1.0.0' },
];

describe('allowed app versions in the runner (SPEC §6; the rule itself: lib/allowed-executables.test.ts)', () => {
  it('offers only listed versions and selects the first allowed one when the chosen one is not', () => {
    expect(allowedAppVersions(['app-v2', 'app-v1'], versions).map((v) => v.version)).toEqual(['2.0.0', '1.0.0']);
    expect(allowedAppVersions(['app-bwa/1.0.0'], versions).map((v) => v.id)).toEqual(['app-v1']);
    expect(selectAppVersion(['app-v2', 'app-v1'], versions, 'app-v1')?.id).toBe('app-v1');
    expect(selectAppVersion(['app-v2', 'app-v1'], versions, 'app-v3')?.id).toBe('app-v2');
    expect(selectAppVersion(null, versions, 'app-v3')?.id).toBe('app-v3');
    expect(selectAppVersion(null, versions, undefined)?.id).toBe('app-v3');
    expect(selectAppVersion(['applet-9'], versions, 'app-v3')).toBeUndefined();
  });

  it('explains a refusal', () => {
    expect(notAllowedMessage('Clinic', ['app-v2'])).toBe(
      'The project "Clinic" only allows these tools: app-v2. Choose another project or ask its administrator.',
    );
    expect(notAllowedMessage('Clinic', [])).toContain('only allows no tools');
  });
});
