import { z } from 'zod';
import {
  describeFlagSchema,
  describeOptionsSchema,
  idResponseSchema,
  limitSchema,
  orgLevelSchema,
  pageSchema,
  permissionLevelSchema,
  startingSchema,
  timestampSchema,
} from '../common.js';
import { HANDLE_PATTERN } from '../ids.js';
import { classRoute, instanceRoute, systemRoute } from '../route.js';
import { findAppsInputSchema } from './executables.js';

export const orgPoliciesSchema = z.object({
  memberListVisibility: z.enum(['ADMIN', 'MEMBER', 'PUBLIC']).optional(),
  restrictProjectTransfer: z.enum(['ADMIN', 'MEMBER']).optional(),
});

export const orgDescribeSchema = z
  .object({
    id: z.string(),
    class: z.literal('org'),
    handle: z.string(),
    name: z.string(),
    created: timestampSchema,
    modified: timestampSchema,
    level: orgLevelSchema.nullable(),
    policies: z.object({ memberListVisibility: z.string(), restrictProjectTransfer: z.string() }),
    allowBillableActivities: z.boolean(),
    phiFeaturesEnabled: z.boolean(),
    defaultRegion: z.string(),
    permittedRegions: z.array(z.string()),
    currency: z.record(z.string(), z.string()),
  })
  .partial()
  .required({ id: true })
  .loose();

const memberAccessSchema = z.object({
  level: orgLevelSchema.optional(),
  allowBillableActivities: z.boolean().optional(),
  appAccess: z.boolean().optional(),
  projectAccess: permissionLevelSchema.optional(),
});

const orgIdList = z.array(z.string());

export const orgRoutes = {
  'org/new': classRoute('org', 'new', {
    summary: 'Create an organisation; the caller becomes its first ADMIN',
    input: z.object({
      handle: z.string().regex(HANDLE_PATTERN, 'org handles are 3-64 characters: lower-case letters, digits, "." and "_"'),
      name: z.string().min(1).max(256),
      policies: orgPoliciesSchema.optional(),
      phiFeaturesEnabled: z.boolean().optional(),
      permittedRegions: z.array(z.string()).optional(),
      defaultRegion: z.string().optional(),
    }),
    output: idResponseSchema,
    nonce: true,
  }),
  'org-xxxx/describe': instanceRoute('org', 'describe', {
    summary: 'Describe an organisation (members and admins see it; others get ResourceNotFound)',
    input: describeOptionsSchema,
    output: orgDescribeSchema,
  }),
  'org-xxxx/update': instanceRoute('org', 'update', {
    summary: 'Change the name and policies (ADMIN)',
    input: z.object({ name: z.string().min(1).max(256).optional(), policies: orgPoliciesSchema.optional() }),
    output: idResponseSchema,
  }),
  'org-xxxx/invite': instanceRoute('org', 'invite', {
    summary: 'Add a user to the organisation (ADMIN)',
    input: z.object({
      invitee: z.string().regex(/^user-/, 'expected a user ID'),
      level: orgLevelSchema,
      allowBillableActivities: z.boolean().optional(),
      appAccess: z.boolean().optional(),
      projectAccess: permissionLevelSchema.optional(),
      suppressEmailNotification: z.boolean().optional(),
    }),
    output: idResponseSchema,
  }),
  'org-xxxx/removeMember': instanceRoute('org', 'removeMember', {
    summary: "Remove a member (ADMIN); optionally revoke their explicit access to the org's projects",
    input: z.object({
      user: z.string().regex(/^user-/, 'expected a user ID'),
      revokeProjectPermissions: z.boolean().optional(),
      revokeAppPermissions: z.boolean().optional(),
    }),
    output: z.object({ id: z.string(), projects: z.record(z.string(), z.string()), apps: z.record(z.string(), z.string()) }),
  }),
  'org-xxxx/setMemberAccess': instanceRoute('org', 'setMemberAccess', {
    summary: "Change members' levels and access (ADMIN); keyed by user id",
    input: z.record(z.string().regex(/^user-/, 'keys must be user IDs'), memberAccessSchema),
    output: idResponseSchema,
  }),
  'org-xxxx/findMembers': instanceRoute('org', 'findMembers', {
    summary: 'List members, subject to the memberListVisibility policy',
    input: z.object({
      level: orgLevelSchema.optional(),
      id: orgIdList.optional(),
      describe: describeFlagSchema.optional(),
      starting: startingSchema.optional(),
      limit: limitSchema.optional(),
    }),
    output: pageSchema(
      z
        .object({
          id: z.string(),
          level: orgLevelSchema,
          allowBillableActivities: z.boolean(),
          appAccess: z.boolean(),
          projectAccess: permissionLevelSchema,
          describe: z.unknown().optional(),
        })
        .loose(),
    ),
  }),
  'org-xxxx/findProjects': instanceRoute('org', 'findProjects', {
    summary: 'Projects billed to or shared with the organisation (ADMIN)',
    input: z
      .object({
        id: z.array(z.string()).optional(),
        describe: describeFlagSchema.optional(),
        starting: startingSchema.optional(),
        limit: limitSchema.optional(),
      })
      .loose(),
    output: pageSchema(z.object({ id: z.string(), level: permissionLevelSchema, describe: z.unknown().optional() }).loose()),
  }),
  'org-xxxx/findApps': instanceRoute('org', 'findApps', {
    summary: 'Apps billed to the organisation (ADMIN), with the filters and paging of system/findApps',
    input: findAppsInputSchema.omit({ billTo: true, installed: true }),
    output: pageSchema(z.object({ id: z.string(), describe: z.unknown().optional() })),
  }),
  'system/findOrgs': systemRoute('findOrgs', {
    summary: 'Organisations the caller belongs to, optionally at a minimum level',
    input: z
      .object({
        level: orgLevelSchema.optional(),
        describe: describeFlagSchema.optional(),
        starting: startingSchema.optional(),
        limit: limitSchema.optional(),
      })
      .loose(),
    output: pageSchema(z.object({ id: z.string(), level: orgLevelSchema, describe: z.unknown().optional() }).loose()),
  }),
};
