/**
 * Two-factor constants without zod, so that the web app can import them without the route schemas
 * (routes/two-factor.ts re-exports them).
 */

/** How many one-time backup codes an enrolment hands out (each signs in once, in place of a TOTP code). */
export const BACKUP_CODE_COUNT = 10;
/** A TOTP code of an authenticator app: 6 digits. */
export const TOTP_CODE_PATTERN = /^[0-9]{6}$/;
/** A backup code: 12 characters of the lower-case base32 alphabet, shown as `abcd-efgh-ijkm`; dashes and case are ignored. */
export const BACKUP_CODE_PATTERN = /^[a-zA-Z2-7]{4}-?[a-zA-Z2-7]{4}-?[a-zA-Z2-7]{4}$/;
/** An enrolment token (handed out when sign-in requires two-factor setup) lasts this long and serves one enrolment. */
export const ENROLMENT_TOKEN_TTL_MS = 15 * 60_000;
/** `error.details.reason` of the sign-in refused because the account must set up two-factor authentication first. */
export const TWO_FACTOR_SETUP_REQUIRED = 'TwoFactorSetupRequired';
/** `error.details.reason` of the sign-in that needs the second factor (`otp`). */
export const OTP_REQUIRED = 'OtpRequired';
/** The web app's page for the enrolment of a user who cannot sign in yet (SPEC §2). */
export const TWO_FACTOR_SETUP_PATH = '/panx/setup/2fa';
