import { PanxApiError } from '@panx/client';
import { describe, expect, it } from 'vitest';
import {
  backupCodesText,
  cleanSecondFactorInput,
  cleanTotpInput,
  clearPendingEnrolment,
  describeRequirement,
  ENROLMENT_KEY,
  groupSecret,
  isCompleteSecondFactor,
  loadPendingEnrolment,
  savePendingEnrolment,
  setupRequiredDetails,
} from './enrolment';

function memory() {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (key: string) => map.get(key) ?? null,
    setItem: (key: string, value: string) => void map.set(key, value),
    removeItem: (key: string) => void map.delete(key),
  };
}

describe('two-factor enrolment rules', () => {
  it('recognises the sign-in refused until set-up, and nothing else', () => {
    const details = { reason: 'TwoFactorSetupRequired', requiredBy: ['org-acme'], enrolmentToken: 'tok', expires: 5, setupPath: '/panx/setup/2fa' };
    expect(setupRequiredDetails(new PanxApiError('InvalidAuthentication', 'Two-factor authentication is required', 401, details))).toEqual(details);
    expect(setupRequiredDetails(new PanxApiError('InvalidAuthentication', 'send "otp"', 401, { reason: 'OtpRequired' }))).toBeUndefined();
    expect(setupRequiredDetails(new PanxApiError('InvalidInput', 'x', 422, details))).toBeUndefined();
    expect(setupRequiredDetails(new Error('x'))).toBeUndefined();
  });

  it('keeps the pending enrolment until it expires, and forgets malformed ones', () => {
    const storage = memory();
    const enrolment = { token: 't', expires: 1000, username: 'dave', requiredBy: ['org-acme'] };
    savePendingEnrolment(storage, enrolment);
    expect(loadPendingEnrolment(storage, 999)).toEqual(enrolment);
    expect(loadPendingEnrolment(storage, 1000)).toBeUndefined();
    expect(storage.map.has(ENROLMENT_KEY)).toBe(false);
    storage.setItem(ENROLMENT_KEY, '{not json');
    expect(loadPendingEnrolment(storage, 0)).toBeUndefined();
    storage.setItem(ENROLMENT_KEY, JSON.stringify({ token: 1 }));
    expect(loadPendingEnrolment(storage, 0)).toBeUndefined();
    savePendingEnrolment(storage, enrolment);
    clearPendingEnrolment(storage);
    expect(loadPendingEnrolment(storage, 0)).toBeUndefined();
  });

  it.each([
    ['123 456', false, '123456'],
    ['12a3456789', false, '123456'],
    ['ABCD-efgh-2345', true, 'abcd-efgh-2345'],
    ['abcd efgh 0189', true, 'abcdefgh'],
  ])('cleans %s (backup: %s) to %s', (input, backup, output) => {
    expect(cleanSecondFactorInput(input, backup)).toBe(output);
  });

  it('knows a complete code', () => {
    expect(cleanTotpInput(' 12 34 56 ')).toBe('123456');
    expect(isCompleteSecondFactor('123456', false)).toBe(true);
    expect(isCompleteSecondFactor('12345', false)).toBe(false);
    expect(isCompleteSecondFactor('abcd-efgh-2345', true)).toBe(true);
    expect(isCompleteSecondFactor('abcdefgh2345', true)).toBe(true);
    expect(isCompleteSecondFactor('abcd-efgh-234', true)).toBe(false);
  });

  it('says who requires it', () => {
    expect(describeRequirement(['org-acme'])).toBe('the policy of org-acme');
    expect(describeRequirement(['org-a', 'org-b', 'user-x'])).toBe('the policy of org-a, the policy of org-b and your account settings');
    expect(describeRequirement([])).toBe('this installation');
  });

  it('writes the backup-codes file and groups the secret', () => {
    const text = backupCodesText(['aaaa-bbbb-cccc', 'dddd-eeee-ffff'], 'dave', 'Panx', new Date(Date.UTC(2026, 10, 21)));
    expect(text).toContain('Panx backup codes for dave');
    expect(text).toContain('Created 2026-11-21.');
    expect(text).toContain(' 1. aaaa-bbbb-cccc\n 2. dddd-eeee-ffff\n');
    expect(groupSecret('ABCDEFGHIJ')).toBe('ABCD EFGH IJ');
  });
});
