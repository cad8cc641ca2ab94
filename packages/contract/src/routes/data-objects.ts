import { z } from 'zod';
import {
  anyJsonSchema,
  describeFlagSchema,
  describeOptionsSchema,
  folderPathSchema,
  idResponseSchema,
  limitSchema,
  nameFilterSchema,
  objectNameSchema,
  pageSchema,
  permissionLevelSchema,
  propertiesFilterSchema,
  propertiesSchema,
  setPropertiesMapSchema,
  startingSchema,
  tagsFilterSchema,
  tagsSchema,
  timeRangeSchema,
  visibilitySchema,
} from '../common.js';
import { DATA_OBJECT_CLASSES } from '../ids.js';
import { type RouteSpec, classRoute, instanceRoute, systemRoute } from '../route.js';

const containerRef = z.string().regex(/^(project|container)-[0-9A-Za-z]{24}$/, 'expected a project or container ID');
const typesSchema = z.array(z.string().min(1).max(256)).max(1000);

export const dataObjectDescribeSchema = z
  .object({
    id: z.string(),
    class: z.string(),
    project: z.string(),
    folder: z.string(),
    name: z.string(),
    state: z.string(),
    hidden: z.boolean(),
    types: z.array(z.string()),
    tags: z.array(z.string()),
    created: z.number(),
    modified: z.number(),
  })
  .partial()
  .required({ id: true })
  .loose();

/** Fields every `/X/new` of a data object accepts. */
export const newDataObjectFields = {
  project: containerRef,
  name: objectNameSchema.optional(),
  folder: folderPathSchema.optional(),
  parents: z.boolean().optional(),
  hidden: z.boolean().optional(),
  tags: tagsSchema.optional(),
  types: typesSchema.optional(),
  properties: propertiesSchema.optional(),
  details: anyJsonSchema.optional(),
  nonce: z.string().max(128).optional(),
};

const projectHint = { project: containerRef.optional() };

/** Methods that every data object class shares, with the same input and output. */
const commonMethods = {
  describe: {
    summary: 'Describe the object (in the given project, whose metadata copy is used)',
    input: describeOptionsSchema,
    output: dataObjectDescribeSchema,
  },
  addTags: { summary: 'Add tags to the object in a project', input: z.object({ ...projectHint, tags: tagsSchema }), output: idResponseSchema },
  removeTags: { summary: 'Remove tags from the object in a project', input: z.object({ ...projectHint, tags: tagsSchema }), output: idResponseSchema },
  addTypes: { summary: 'Add types to the object', input: z.object({ ...projectHint, types: typesSchema }), output: idResponseSchema },
  removeTypes: { summary: 'Remove types from the object', input: z.object({ ...projectHint, types: typesSchema }), output: idResponseSchema },
  rename: { summary: 'Rename the object in a project', input: z.object({ ...projectHint, name: objectNameSchema }), output: idResponseSchema },
  setProperties: {
    summary: 'Set or (with null) remove properties of the object in a project',
    input: z.object({ ...projectHint, properties: setPropertiesMapSchema }),
    output: idResponseSchema,
  },
  setDetails: {
    summary: 'Replace the details JSON (open objects only)',
    input: z.object({ ...projectHint, details: anyJsonSchema }),
    output: idResponseSchema,
  },
  getDetails: { summary: 'The details JSON itself', input: z.object(projectHint).loose(), output: anyJsonSchema },
  setVisibility: { summary: 'Hide or unhide the object in a project', input: z.object({ ...projectHint, hidden: z.boolean() }), output: idResponseSchema },
  listProjects: {
    summary: "The projects holding a copy of the object that the caller can see, with the caller's level",
    input: z.object({}).loose(),
    output: z.record(z.string(), permissionLevelSchema),
  },
} as const;
type CommonMethods = typeof commonMethods;
export type CommonDataObjectRoutes<C extends string> = {
  [M in keyof CommonMethods as `${C}-xxxx/${M}`]: RouteSpec<CommonMethods[M]['input'], CommonMethods[M]['output']>;
};

export function commonDataObjectRoutes<C extends string>(cls: C): CommonDataObjectRoutes<C> {
  const table: Record<string, RouteSpec> = {};
  for (const [method, spec] of Object.entries(commonMethods)) {
    table[`${cls}-xxxx/${method}`] = instanceRoute<z.ZodType, z.ZodType>(cls, method, spec);
  }
  return table as CommonDataObjectRoutes<C>;
}

export const fileDescribePartSchema = z.object({ state: z.enum(['pending', 'complete']), size: z.number(), md5: z.string() }).loose();

export const fileRoutes = {
  'file/new': classRoute('file', 'new', {
    summary: 'Create an open file, ready for parts to be uploaded',
    input: z.object({ ...newDataObjectFields, media: z.string().max(256).optional() }),
    output: idResponseSchema,
    nonce: true,
  }),
  ...commonDataObjectRoutes('file'),
  'file-xxxx/upload': instanceRoute('file', 'upload', {
    summary: 'A signed URL (and headers) to PUT one part to; the PUT is checked against the declared size and md5',
    input: z.object({
      index: z.number().int().min(1, 'part indexes start at 1').max(10_000, 'part indexes are at most 10000').optional(),
      size: z.number().int().min(0).optional(),
      md5: z
        .string()
        .regex(/^[0-9a-f]{32}$/, 'expected an md5 as 32 lower-case hex digits')
        .optional(),
    }),
    output: z.object({ url: z.string(), expires: z.number(), headers: z.record(z.string(), z.string()) }),
  }),
  'file-xxxx/close': instanceRoute('file', 'close', {
    summary: 'Close the file: its parts are assembled, then the file becomes closed and readable',
    input: z.object({}).loose(),
    // `state` is a Panx extension (DNAnexus answers the id alone): `closed` when the close finished
    // before the answer, which spares a client waiting for it a describe.
    output: idResponseSchema.extend({ state: z.enum(['open', 'closing', 'closed']).optional() }),
  }),
  'file-xxxx/download': instanceRoute('file', 'download', {
    summary: 'A signed URL to GET the bytes (HTTP Range supported); needs VIEW and a project that allows downloads',
    input: z.object({
      ...projectHint,
      duration: z
        .number()
        .int()
        .min(1)
        .max(7 * 86_400)
        .optional(),
      filename: z.string().max(4096).optional(),
      preauthenticated: z.boolean().optional(),
      stickyIP: z.boolean().optional(),
    }),
    output: z.object({ url: z.string(), expires: z.number(), headers: z.record(z.string(), z.string()) }),
  }),
};

export const recordRoutes = {
  'record/new': classRoute('record', 'new', {
    summary: 'Create a record (closed at once with `close: true`)',
    input: z.object({
      ...newDataObjectFields,
      close: z.boolean().optional(),
      initializeFrom: z.object({ id: z.string(), project: z.string().optional() }).optional(),
    }),
    output: idResponseSchema,
    nonce: true,
  }),
  ...commonDataObjectRoutes('record'),
  'record-xxxx/close': instanceRoute('record', 'close', {
    summary: 'Close the record (immediate)',
    input: z.object({}).loose(),
    output: idResponseSchema,
  }),
};

const scopeSchema = z.object({ project: containerRef, folder: folderPathSchema.optional(), recurse: z.boolean().optional() });

export const findDataObjectsInputSchema = z.object({
  class: z.enum(DATA_OBJECT_CLASSES).optional(),
  state: z.enum(['open', 'closing', 'closed']).optional(),
  visibility: visibilitySchema.optional(),
  name: nameFilterSchema.optional(),
  id: z.array(z.string()).max(1000).optional(),
  type: tagsFilterSchema.optional(),
  tags: tagsFilterSchema.optional(),
  properties: propertiesFilterSchema.optional(),
  link: z.string().optional(),
  scope: scopeSchema.optional(),
  level: permissionLevelSchema.optional(),
  modified: timeRangeSchema.optional(),
  created: timeRangeSchema.optional(),
  archivalState: z.string().optional(),
  describe: describeFlagSchema.optional(),
  starting: startingSchema.optional(),
  limit: limitSchema.optional(),
});
export type FindDataObjectsInput = z.infer<typeof findDataObjectsInputSchema>;

export const dataObjectSystemRoutes = {
  'system/findDataObjects': systemRoute('findDataObjects', {
    summary: 'Search data objects by class, state, name, tags, properties, types, scope and dates, in pages of up to 1000',
    input: findDataObjectsInputSchema,
    output: pageSchema(z.object({ project: z.string(), id: z.string(), describe: z.unknown().optional() })),
  }),
  'system/describeDataObjects': systemRoute('describeDataObjects', {
    summary: 'Describe many objects at once, in input order; `{}` where an object cannot be described',
    input: z.object({
      objects: z
        .array(z.union([z.string(), z.object({ id: z.string(), project: containerRef.optional(), describe: describeFlagSchema.optional() })]))
        .max(1000),
      classDescribeOptions: z.record(z.string(), describeOptionsSchema).optional(),
    }),
    output: z.object({ results: z.array(z.unknown()) }),
  }),
  'system/resolveDataObjects': systemRoute('resolveDataObjects', {
    summary: 'Resolve names (in a project and folder) or ids to the copies the caller can see',
    input: z.object({
      project: containerRef.optional(),
      folder: folderPathSchema.optional(),
      objects: z
        .array(
          z.union([
            z.object({ name: z.string(), folder: folderPathSchema.optional(), project: containerRef.optional() }),
            z.object({ id: z.string(), project: containerRef.optional() }),
          ]),
        )
        .max(1000, 'at most 1000 objects per call'),
    }),
    output: z.object({ results: z.array(z.array(z.object({ project: z.string(), id: z.string() }))) }),
  }),
};

export { describeOptionsSchema };
