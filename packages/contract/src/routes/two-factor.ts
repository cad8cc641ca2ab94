import { z } from 'zod';
import { timestampSchema } from '../common.js';
import { SECURITY_LEVELS } from '../constants.js';
import { systemRoute } from '../route.js';
import { BACKUP_CODE_PATTERN, TOTP_CODE_PATTERN, TWO_FACTOR_SETUP_REQUIRED } from '../two-factor-constants.js';

export * from '../two-factor-constants.js';

/** A TOTP code or a backup code, as `system/newAuthToken`'s `otp` and the 2FA routes accept them. */
export const secondFactorCodeSchema = z
  .string()
  .trim()
  .refine((code) => TOTP_CODE_PATTERN.test(code) || BACKUP_CODE_PATTERN.test(code), 'expected a 6-digit one-time code or a backup code');

const totpCodeSchema = z.string().trim().regex(TOTP_CODE_PATTERN, 'expected the 6-digit code of your authenticator app');
const enrolmentTokenSchema = z.string().min(16).max(256);

/** The details of the error that refuses a sign-in until two-factor authentication is set up. */
export const twoFactorSetupRequiredSchema = z.object({
  reason: z.literal(TWO_FACTOR_SETUP_REQUIRED),
  /** Who requires it: the user's own flag (`user-…`) and/or org policies (`org-…`). */
  requiredBy: z.array(z.string()),
  /** Serves only `system/startTwoFactorEnrolment` and `system/confirmTwoFactorEnrolment`, once, until `expires`. */
  enrolmentToken: z.string(),
  expires: timestampSchema,
  setupPath: z.string(),
});
export type TwoFactorSetupRequired = z.infer<typeof twoFactorSetupRequiredSchema>;

const sessionTokenSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires: timestampSchema,
  user_id: z.string(),
  token_id: z.string(),
});

const EXTENSION = 'DNAnexus manages two-factor authentication on its auth server; Panx serves it on the API server.';

export const twoFactorRoutes = {
  'system/describeTwoFactor': systemRoute('describeTwoFactor', {
    summary: "The caller's two-factor authentication: on or off, an enrolment in progress, whether a policy requires it, backup codes left",
    extension: EXTENSION,
    input: z.object({}).loose(),
    output: z.object({
      enabled: z.boolean(),
      /** An enrolment was started and awaits its confirming code. */
      pending: z.boolean(),
      required: z.boolean(),
      requiredBy: z.array(z.string()),
      backupCodesLeft: z.number().int(),
    }),
  }),
  'system/startTwoFactorEnrolment': systemRoute('startTwoFactorEnrolment', {
    summary:
      'Start enrolling an authenticator app: a new TOTP secret and its otpauth:// URI (for a QR code). Two-factor stays off until confirmed. Signed in with a session, or with the enrolment token of a refused sign-in',
    extension: EXTENSION,
    input: z.object({ enrolmentToken: enrolmentTokenSchema.optional() }),
    output: z.object({
      /** Base32, for typing into an app by hand. */
      secret: z.string(),
      otpauthUri: z.string(),
      issuer: z.string(),
      account: z.string(),
    }),
  }),
  'system/confirmTwoFactorEnrolment': systemRoute('confirmTwoFactorEnrolment', {
    summary:
      'Confirm the enrolment with a current code: two-factor is on, and the answer holds the backup codes (shown once, stored hashed). With an enrolment token it also signs in (a session token)',
    extension: EXTENSION,
    input: z.object({
      code: totpCodeSchema,
      enrolmentToken: enrolmentTokenSchema.optional(),
      securityLevel: z.enum(SECURITY_LEVELS).optional(),
    }),
    output: z.object({ backupCodes: z.array(z.string()), session: sessionTokenSchema.optional() }),
  }),
  'system/disableTwoFactor': systemRoute('disableTwoFactor', {
    summary: 'Turn two-factor authentication off (session tokens only), proven by a current code, a backup code or the password',
    extension: EXTENSION,
    input: z.object({ code: secondFactorCodeSchema.optional(), password: z.string().min(1).optional() }),
    output: z.object({}),
  }),
  'system/newTwoFactorBackupCodes': systemRoute('newTwoFactorBackupCodes', {
    summary: 'Replace the backup codes (the old ones stop working), proven by a current code',
    extension: EXTENSION,
    input: z.object({ code: totpCodeSchema }),
    output: z.object({ backupCodes: z.array(z.string()) }),
  }),
  'system/setTwoFactorRequirement': systemRoute('setTwoFactorRequirement', {
    summary:
      'Require two-factor authentication of a user (administrators) or of every member of an org (its ADMINs, or administrators): their next sign-in without it is refused and sent to set-up',
    extension: 'A Panx policy: DNAnexus enforces two-factor authentication on its auth server.',
    input: z.object({
      subject: z.string().regex(/^(user|org)-[a-z0-9][a-z0-9._]*$/, 'expected a user ID or an org ID'),
      required: z.boolean(),
    }),
    output: z.object({ subject: z.string(), required: z.boolean() }),
  }),
};
