import { z } from 'zod';
import { grantableLevelSchema, idResponseSchema, timestampSchema } from '../common.js';
import { SECURITY_LEVELS } from '../constants.js';
import { systemRoute } from '../route.js';
import { secondFactorCodeSchema } from './two-factor.js';

const tokenScopeSchema = z
  .object({
    /** Restrict the token to these projects, each at most at the given level. */
    projects: z.record(z.string().regex(/^project-[0-9A-Za-z]{24}$/, 'expected a project ID'), grantableLevelSchema),
  })
  .loose();

export const authTokenSchema = z.object({
  id: z.string(),
  label: z.string(),
  kind: z.enum(['session', 'api', 'job']),
  created: timestampSchema,
  expires: timestampSchema,
  lastUsed: timestampSchema.nullable(),
  scope: tokenScopeSchema.nullable(),
});

export const authRoutes = {
  'system/newAuthToken': systemRoute('newAuthToken', {
    summary: 'Sign in with username and password (plus otp once 2FA is on) for a session token, or, when already authenticated, create a labelled API token',
    input: z.object({
      username: z.string().min(1).optional(),
      password: z.string().min(1).optional(),
      /** The 6-digit TOTP code, or one of the account's backup codes (used up by signing in). */
      otp: secondFactorCodeSchema.optional(),
      label: z.string().max(256).optional(),
      expires: timestampSchema.optional(),
      scope: tokenScopeSchema.optional(),
      securityLevel: z.enum(SECURITY_LEVELS).optional(),
    }),
    output: z
      .object({
        access_token: z.string(),
        token_type: z.literal('Bearer'),
        expires: timestampSchema,
        user_id: z.string(),
        token_id: z.string(),
      })
      .loose(),
  }),
  'system/findAuthTokens': systemRoute('findAuthTokens', {
    summary: "List the caller's tokens (never their secrets)",
    extension: 'DNAnexus keeps token management on its auth server; Panx serves it on the API server.',
    input: z.object({ kind: z.enum(['session', 'api', 'job']).optional(), includeExpired: z.boolean().optional() }),
    output: z.object({ results: z.array(authTokenSchema) }),
  }),
  'system/destroyAuthToken': systemRoute('destroyAuthToken', {
    summary: "Revoke one of the caller's tokens by token id, or the calling token itself when no id is given (logout)",
    extension: 'DNAnexus keeps token management on its auth server; Panx serves it on the API server.',
    input: z.object({
      tokenId: z
        .string()
        .regex(/^token-[0-9A-Za-z]{24}$/, 'expected a token ID')
        .optional(),
    }),
    output: z.object({}),
  }),
  'system/heartbeat': systemRoute('heartbeat', {
    summary: "Extend the calling session token by its security level's timeout; answers the new expiry",
    extension: 'The DNAnexus web app sends an activity heartbeat whose route is not public.',
    input: z.object({}).loose(),
    output: z.object({ expires: timestampSchema, securityLevel: z.enum(SECURITY_LEVELS) }),
  }),
  'system/whoami': systemRoute('whoami', {
    summary: 'The id of the caller (a user, or a job when called with a job token)',
    input: z.object({ preferredUserOrgIds: z.boolean().optional() }).loose(),
    output: idResponseSchema,
  }),
  'system/getUserInfo': systemRoute('getUserInfo', {
    summary: 'The handle of the caller, as `dx login --token` asks the auth server',
    input: z.object({}).loose(),
    output: z.object({ username: z.string(), user_id: z.string() }).loose(),
  }),
};
