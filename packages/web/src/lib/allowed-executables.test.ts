import { describe, expect, it } from 'vitest';
import { allowedVersionsOf, isExecutableAllowed } from './allowed-executables';

describe('the allowed-executables rule (SPEC §6)', () => {
  it('allows everything without a list, and only listed tools with one', () => {
    expect(isExecutableAllowed(null, { id: 'applet-1', class: 'applet' })).toBe(true);
    expect(isExecutableAllowed(undefined, { id: 'workflow-1', class: 'workflow' })).toBe(true);
    expect(isExecutableAllowed(['applet-1'], { id: 'applet-1', class: 'applet' })).toBe(true);
    expect(isExecutableAllowed(['applet-1'], { id: 'applet-2', class: 'applet' })).toBe(false);
    expect(isExecutableAllowed([], { id: 'applet-1', class: 'applet' })).toBe(false);
  });

  it('allows an app version by id, by name (every version) or by name/version', () => {
    expect(isExecutableAllowed(['app-bwa'], { id: 'app-v1', name: 'bwa', class: 'app' })).toBe(true);
    expect(isExecutableAllowed(['app-v2'], { id: 'app-v1', name: 'bwa', class: 'app' })).toBe(false);
    expect(isExecutableAllowed(['app-bwa/1.0.0'], { id: 'app-v1', name: 'bwa', version: '1.0.0', class: 'app' })).toBe(true);
    expect(isExecutableAllowed(['app-bwa/2.0.0'], { id: 'app-v1', name: 'bwa', version: '1.0.0', class: 'app' })).toBe(false);
    // name/version without a version known: not allowed by that entry.
    expect(isExecutableAllowed(['app-bwa/1.0.0'], { id: 'app-v1', name: 'bwa', class: 'app' })).toBe(false);
  });

  it('matches the class too: an applet named like an app is allowed only by its own class and name', () => {
    expect(isExecutableAllowed(['app-bwa'], { id: 'applet-1', name: 'bwa', class: 'applet' })).toBe(false);
    expect(isExecutableAllowed(['applet-bwa'], { id: 'applet-1', name: 'bwa', class: 'applet' })).toBe(true);
    expect(isExecutableAllowed(['workflow-germline'], { id: 'workflow-1', name: 'germline', class: 'workflow' })).toBe(true);
    expect(isExecutableAllowed(['applet-germline'], { id: 'workflow-1', name: 'germline', class: 'workflow' })).toBe(false);
  });

  it('narrows an app to its listed versions, keeping their order', () => {
    const versions = [
      { id: 'app-v3', version: '3.0.0' },
      { id: 'app-v2', version: '2.0.0' },
      { id: 'app-v1', version: '1.0.0' },
    ];
    expect(allowedVersionsOf(null, 'bwa', versions)).toEqual(versions);
    expect(allowedVersionsOf(['app-v1', 'app-bwa/3.0.0'], 'bwa', versions).map((v) => v.id)).toEqual(['app-v3', 'app-v1']);
    expect(allowedVersionsOf(['app-bwa'], 'bwa', versions)).toHaveLength(3);
    expect(allowedVersionsOf(['app-other'], 'bwa', versions)).toEqual([]);
  });
});
