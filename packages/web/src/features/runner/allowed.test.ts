import { describe, expect, it } from 'vitest';
import { allowedAppVersions, isToolAllowed, notAllowedMessage, selectAppVersion } from './allowed';

const versions = [
  { id: 'app-v3', name: 'bwa', version: '3.0.0' },
  { id: 'app-v2', name: 'bwa', version: '2.0.0' },
  { id: 'app-v1', name: 'bwa', version: '1.0.0' },
];

describe('the allowed-executables rule (SPEC §6)', () => {
  it('allows everything without a list, and only listed tools with one', () => {
    expect(isToolAllowed(null, { id: 'applet-1', class: 'applet' })).toBe(true);
    expect(isToolAllowed(undefined, { id: 'workflow-1', class: 'workflow' })).toBe(true);
    expect(isToolAllowed(['applet-1'], { id: 'applet-1', class: 'applet' })).toBe(true);
    expect(isToolAllowed(['applet-1'], { id: 'applet-2', class: 'applet' })).toBe(false);
    expect(isToolAllowed([], { id: 'applet-1', class: 'applet' })).toBe(false);
  });

  it('allows an app by version ID or by class and name (every version)', () => {
    expect(isToolAllowed(['app-bwa'], { id: 'app-v1', name: 'bwa', class: 'app' })).toBe(true);
    expect(isToolAllowed(['app-v2'], { id: 'app-v1', name: 'bwa', class: 'app' })).toBe(false);
    expect(isToolAllowed(['app-bwa/1.0.0'], { id: 'app-v1', name: 'bwa', version: '1.0.0', class: 'app' })).toBe(true);
    expect(isToolAllowed(['app-bwa/2.0.0'], { id: 'app-v1', name: 'bwa', version: '1.0.0', class: 'app' })).toBe(false);
    // An applet named like an app is not allowed by the app's name, but by its own class and name.
    expect(isToolAllowed(['app-bwa'], { id: 'applet-1', name: 'bwa', class: 'applet' })).toBe(false);
    expect(isToolAllowed(['applet-bwa'], { id: 'applet-1', name: 'bwa', class: 'applet' })).toBe(true);
    expect(isToolAllowed(['workflow-germline'], { id: 'workflow-1', name: 'germline', class: 'workflow' })).toBe(true);
  });

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
