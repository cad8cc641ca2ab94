import { z } from 'zod';

/** DNAnexus error types and the HTTP status each is answered with (dxpy maps `type` to an exception). */
export const ERROR_STATUS = {
  MalformedJSON: 400,
  InvalidAuthentication: 401,
  PermissionDenied: 401,
  SpendingLimitExceeded: 403,
  OrgExpired: 403,
  ResourceNotFound: 404,
  InvalidInput: 422,
  InvalidState: 422,
  InvalidType: 422,
  RateLimitConditional: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
} as const;
export type ErrorType = keyof typeof ERROR_STATUS;

export const errorEnvelopeSchema = z.object({
  error: z.object({
    type: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** Turns a zod failure into one precise sentence naming the offending field. */
export function describeZodError(error: z.ZodError, root = 'input'): string {
  const issues = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.length ? issue.path.map(String).join('.') : root;
    return `"${path}": ${issue.message}`;
  });
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : '';
  return `Invalid ${root}: ${issues.join('; ')}${more}`;
}
