import { z } from 'zod';
import { FIND_LIMIT_MAX, FOLDER_NAME_MAX_LENGTH } from './constants.js';

export const PERMISSION_LEVELS = ['NONE', 'VIEW', 'UPLOAD', 'CONTRIBUTE', 'ADMINISTER'] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];
export const permissionLevelSchema = z.enum(PERMISSION_LEVELS);
/** Levels that can be granted to a member (NONE is expressed by removal). */
export const grantableLevelSchema = z.enum(['VIEW', 'UPLOAD', 'CONTRIBUTE', 'ADMINISTER']);

export function levelRank(level: PermissionLevel): number {
  return PERMISSION_LEVELS.indexOf(level);
}
export function atLeast(level: PermissionLevel, required: PermissionLevel): boolean {
  return levelRank(level) >= levelRank(required);
}
export function maxLevel(a: PermissionLevel, b: PermissionLevel): PermissionLevel {
  return levelRank(a) >= levelRank(b) ? a : b;
}
export function minLevel(a: PermissionLevel, b: PermissionLevel): PermissionLevel {
  return levelRank(a) <= levelRank(b) ? a : b;
}

export const ORG_LEVELS = ['ADMIN', 'MEMBER'] as const;
export const orgLevelSchema = z.enum(ORG_LEVELS);
export type OrgLevel = (typeof ORG_LEVELS)[number];

export const DATA_OBJECT_STATES = ['open', 'closing', 'closed', 'abandoned', 'ready'] as const;
export const dataObjectStateSchema = z.enum(DATA_OBJECT_STATES);
export type DataObjectState = (typeof DATA_OBJECT_STATES)[number];
export const ARCHIVAL_STATES = ['live', 'archival', 'archiving', 'archived', 'unarchiving', 'templive'] as const;

/** Milliseconds since the epoch, as every DNAnexus timestamp is. */
export const timestampSchema = z.number().int();

export const tagSchema = z.string().min(1, 'tags must not be empty').max(256);
export const tagsSchema = z.array(tagSchema).max(1000);
/** Property values; null in setProperties removes the key. */
export const propertiesSchema = z.record(z.string().max(256), z.string().max(10_000));
export const setPropertiesMapSchema = z.record(z.string().max(256), z.string().max(10_000).nullable());

/** A folder path: absolute, no empty segments beyond the root, each segment ≤ 1000 characters. */
export const folderPathSchema = z
  .string()
  .refine((value) => value.startsWith('/'), 'folder paths must start with "/"')
  .refine(
    (value) =>
      value === '/' ||
      value
        .replace(/\/$/, '')
        .slice(1)
        .split('/')
        .every((segment) => segment.length > 0 && segment.length <= FOLDER_NAME_MAX_LENGTH),
    `folder names must be non-empty and at most ${FOLDER_NAME_MAX_LENGTH} characters`,
  )
  .refine((value) => !value.split('/').some((segment) => segment === '.' || segment === '..'), 'folder names "." and ".." are not allowed');

export const objectNameSchema = z.string().min(1, 'names must not be empty').max(32_768);

/** `fields` / `defaultFields` plus the legacy top-level booleans real clients send. */
export const describeOptionsSchema = z
  .object({
    project: z.string().optional(),
    fields: z.record(z.string(), z.boolean()).optional(),
    defaultFields: z.boolean().optional(),
    properties: z.boolean().optional(),
    details: z.boolean().optional(),
    folders: z.boolean().optional(),
    parts: z.boolean().optional(),
    size: z.boolean().optional(),
    drive: z.boolean().optional(),
    md5: z.boolean().optional(),
    checksumType: z.boolean().optional(),
    io: z.boolean().optional(),
  })
  .loose();
export type DescribeOptions = z.infer<typeof describeOptionsSchema>;

/** `describe` in the find and listFolder inputs: true, false, or options. */
export const describeFlagSchema = z.union([z.boolean(), describeOptionsSchema]);

/** Name filters of the find routes: exact string, glob (`*`, `?`) or regexp with flags. */
export const nameFilterSchema = z.union([
  z.string(),
  z.object({ glob: z.string() }),
  z.object({
    regexp: z.string(),
    flags: z
      .string()
      .regex(/^[imsu]*$/, 'flags may only contain i, m, s, u')
      .optional(),
  }),
]);
export type NameFilter = z.infer<typeof nameFilterSchema>;

export type TagsFilter = string | { $and: TagsFilter[] } | { $or: TagsFilter[] };
export const tagsFilterSchema: z.ZodType<TagsFilter> = z.lazy(() =>
  z.union([z.string(), z.object({ $and: z.array(tagsFilterSchema).min(1) }), z.object({ $or: z.array(tagsFilterSchema).min(1) })]),
);

export type PropertiesFilter = { [key: string]: string | boolean | PropertiesFilter[] };
export const propertiesFilterSchema: z.ZodType<PropertiesFilter> = z.lazy(() =>
  z.record(z.string(), z.union([z.string(), z.boolean(), z.array(propertiesFilterSchema)])),
);

export const timeRangeSchema = z.object({ after: timestampSchema.optional(), before: timestampSchema.optional() });
export type TimeRange = z.infer<typeof timeRangeSchema>;

export const limitSchema = z.number().int().min(1, 'limit must be at least 1').max(FIND_LIMIT_MAX, `limit must be at most ${FIND_LIMIT_MAX}`);
/** `starting` is whatever the previous page returned as `next`. */
export const startingSchema = z.unknown();

export const visibilitySchema = z.enum(['visible', 'hidden', 'either']);

/** `{"$dnanexus_link": "file-xxxx"}` or `{"$dnanexus_link": {"project": ..., "id": ...}}`. */
export const dnanexusLinkSchema = z.object({
  $dnanexus_link: z.union([z.string(), z.object({ project: z.string().optional(), id: z.string() }).loose(), z.record(z.string(), z.unknown())]),
});

export const idResponseSchema = z.object({ id: z.string() });
export const emptyInputSchema = z.object({}).loose();
export const anyJsonSchema = z.unknown();

export const createdBySchema = z.object({ user: z.string(), job: z.string().optional(), executable: z.string().optional() });

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ results: z.array(item), next: z.unknown().nullable() });
}
