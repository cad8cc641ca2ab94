import { z } from 'zod';
import { describeOptionsSchema, idResponseSchema, limitSchema, nameFilterSchema, pageSchema, startingSchema, timestampSchema } from '../common.js';
import { HANDLE_PATTERN } from '../ids.js';
import { SECURITY_LEVELS } from '../constants.js';
import { classRoute, instanceRoute, systemRoute } from '../route.js';

/** Session data the web app keeps per user (SPEC §3): favourites, UI settings, filter bars. */
export const sessionDataSchema = z.record(z.string(), z.unknown());

export const userDescribeSchema = z
  .object({
    id: z.string(),
    class: z.literal('user'),
    handle: z.string(),
    first: z.string(),
    middle: z.string(),
    last: z.string(),
    fullName: z.string(),
    email: z.string().optional(),
    created: timestampSchema,
    modified: timestampSchema,
    billTo: z.string(),
    orgs: z.array(z.string()),
    securityLevel: z.enum(SECURITY_LEVELS),
    otpEnabled: z.boolean(),
    admin: z.boolean(),
    disabled: z.boolean(),
  })
  .partial()
  .required({ id: true })
  .loose();
export type UserDescribe = z.infer<typeof userDescribeSchema>;

const handleSchema = z
  .string()
  .regex(HANDLE_PATTERN, 'usernames are 3-64 characters: lower-case letters, digits, "." and "_", starting with a letter or digit');

export const userRoutes = {
  'user/new': classRoute('user', 'new', {
    summary: 'Create a user account (administrators; or anyone when self sign-up is enabled)',
    extension: 'DNAnexus has no public route to create users; Panx documents this one.',
    input: z.object({
      username: handleSchema,
      email: z.email('expected an e-mail address'),
      first: z.string().min(1).max(256),
      middle: z.string().max(256).optional(),
      last: z.string().min(1).max(256),
      password: z.string().min(8, 'passwords are at least 8 characters').max(1024),
      admin: z.boolean().optional(),
    }),
    output: idResponseSchema,
    nonce: true,
  }),
  'user-xxxx/describe': instanceRoute('user', 'describe', {
    summary: 'Describe a user; e-mail and settings only on your own record or for administrators',
    input: describeOptionsSchema,
    output: userDescribeSchema,
  }),
  'user-xxxx/update': instanceRoute('user', 'update', {
    summary: 'Update your own profile, security level, password or session data; administrators may also disable or re-enable an account',
    input: z.object({
      first: z.string().min(1).max(256).optional(),
      middle: z.string().max(256).optional(),
      last: z.string().min(1).max(256).optional(),
      email: z.email('expected an e-mail address').optional(),
      securityLevel: z.enum(SECURITY_LEVELS).optional(),
      sessionData: sessionDataSchema.optional(),
      sshPublicKey: z.string().max(16_384).nullable().optional(),
      password: z.object({ current: z.string().optional(), new: z.string().min(8, 'passwords are at least 8 characters').max(1024) }).optional(),
      disabled: z.boolean().optional(),
      admin: z.boolean().optional(),
    }),
    output: idResponseSchema,
  }),
  'system/findUsers': systemRoute('findUsers', {
    summary: 'Find users by handle/name; administrators see disabled accounts too',
    input: z.object({
      name: nameFilterSchema.optional(),
      id: z.array(z.string()).optional(),
      includeDisabled: z.boolean().optional(),
      describe: z.union([z.boolean(), describeOptionsSchema]).optional(),
      starting: startingSchema.optional(),
      limit: limitSchema.optional(),
    }),
    output: pageSchema(z.object({ id: z.string(), describe: userDescribeSchema.optional() })),
  }),
};
