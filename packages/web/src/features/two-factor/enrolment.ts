import { isApiError } from '@panx/client';
import { TWO_FACTOR_SETUP_REQUIRED, type TwoFactorSetupRequired } from '@panx/contract';
import type { KeyValueStorage } from '../auth/session-store';

/** The enrolment of a user whose sign-in required two-factor set-up (kept for this tab only, never in a URL). */
export interface PendingEnrolment {
  token: string;
  expires: number;
  username: string;
  requiredBy: string[];
}

export const ENROLMENT_KEY = 'panx.enrolment';

/** The sign-in was refused until two-factor authentication is set up: the error's details, or undefined. */
export function setupRequiredDetails(error: unknown): TwoFactorSetupRequired | undefined {
  if (!isApiError(error, 'InvalidAuthentication')) return undefined;
  // Checked by hand: the contract's zod schema would bring zod into the sign-in page's code.
  const details = error.details as Partial<Record<keyof TwoFactorSetupRequired, unknown>> | undefined;
  if (
    details?.reason !== TWO_FACTOR_SETUP_REQUIRED ||
    typeof details.enrolmentToken !== 'string' ||
    typeof details.expires !== 'number' ||
    typeof details.setupPath !== 'string' ||
    !Array.isArray(details.requiredBy) ||
    !details.requiredBy.every((subject) => typeof subject === 'string')
  ) {
    return undefined;
  }
  return {
    reason: TWO_FACTOR_SETUP_REQUIRED,
    requiredBy: details.requiredBy,
    enrolmentToken: details.enrolmentToken,
    expires: details.expires,
    setupPath: details.setupPath,
  };
}

export function savePendingEnrolment(storage: KeyValueStorage, enrolment: PendingEnrolment): void {
  storage.setItem(ENROLMENT_KEY, JSON.stringify(enrolment));
}

/** The stored enrolment while it is still valid; an expired or malformed one is forgotten. */
export function loadPendingEnrolment(storage: KeyValueStorage, now: number): PendingEnrolment | undefined {
  const text = storage.getItem(ENROLMENT_KEY);
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<PendingEnrolment>;
    if (
      typeof value.token === 'string' &&
      typeof value.expires === 'number' &&
      value.expires > now &&
      typeof value.username === 'string' &&
      Array.isArray(value.requiredBy)
    ) {
      return { token: value.token, expires: value.expires, username: value.username, requiredBy: value.requiredBy.filter((s) => typeof s === 'string') };
    }
  } catch {
    // malformed: forgotten below
  }
  storage.removeItem(ENROLMENT_KEY);
  return undefined;
}

export function clearPendingEnrolment(storage: KeyValueStorage): void {
  storage.removeItem(ENROLMENT_KEY);
}

/** What the user types as a TOTP code: digits only, at most 6 (spaces from copy-paste dropped). */
export function cleanTotpInput(text: string): string {
  return text.replace(/\D/g, '').slice(0, 6);
}

/** What the user types on the sign-in page: a 6-digit code, or a backup code (letters a-z, 2-7, dashes). */
export function cleanSecondFactorInput(text: string, backup: boolean): string {
  if (!backup) return cleanTotpInput(text);
  return text
    .toLowerCase()
    .replace(/[^a-z2-7-]/g, '')
    .slice(0, 14);
}

export function isCompleteSecondFactor(code: string, backup: boolean): boolean {
  return backup ? /^[a-z2-7]{4}-?[a-z2-7]{4}-?[a-z2-7]{4}$/.test(code) : /^[0-9]{6}$/.test(code);
}

/** Who requires it, in words: "the policy of org-acme", "your account settings". */
export function describeRequirement(requiredBy: readonly string[]): string {
  const parts = requiredBy.map((subject) => (subject.startsWith('org-') ? `the policy of ${subject}` : 'your account settings'));
  if (parts.length <= 1) return parts[0] ?? 'this installation';
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** The text file of backup codes the user downloads. */
export function backupCodesText(codes: readonly string[], account: string, issuer: string, at: Date): string {
  return [
    `${issuer} backup codes for ${account}`,
    `Created ${at.toISOString().slice(0, 10)}. Each code signs in once, in place of a code from your authenticator app.`,
    'Keep them somewhere safe: anyone with your password and one of these codes can sign in as you.',
    '',
    ...codes.map((code, index) => `${String(index + 1).padStart(2, ' ')}. ${code}`),
    '',
  ].join('\n');
}

/** Secrets are easier to type in groups of four: `ABCD EFGH …`. */
export function groupSecret(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}
