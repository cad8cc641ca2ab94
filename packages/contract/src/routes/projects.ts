import { z } from 'zod';
import {
  describeFlagSchema,
  describeOptionsSchema,
  folderPathSchema,
  grantableLevelSchema,
  idResponseSchema,
  nameFilterSchema,
  pageSchema,
  permissionLevelSchema,
  propertiesFilterSchema,
  propertiesSchema,
  setPropertiesMapSchema,
  startingSchema,
  tagsFilterSchema,
  tagsSchema,
  timeRangeSchema,
} from '../common.js';
import { FOLDER_NAME_MAX_LENGTH, UPLOAD_LIMITS } from '../constants.js';
import { billToSchema } from '../ids.js';
import { classRoute, instanceRoute, systemRoute } from '../route.js';

export const fileUploadParametersSchema = z.object({
  minimumPartSize: z.number(),
  maximumPartSize: z.number(),
  emptyLastPartAllowed: z.boolean(),
  maximumNumParts: z.number(),
  maximumFileSize: z.number(),
});
export const FILE_UPLOAD_PARAMETERS = {
  minimumPartSize: UPLOAD_LIMITS.minimumPartSize,
  maximumPartSize: UPLOAD_LIMITS.maximumPartSize,
  emptyLastPartAllowed: UPLOAD_LIMITS.emptyLastPartAllowed,
  maximumNumParts: UPLOAD_LIMITS.maximumNumParts,
  maximumFileSize: UPLOAD_LIMITS.maximumFileSize,
};

const allowedExecutablesSchema = z.array(z.string().regex(/^(app|applet|workflow|globalworkflow)-/, 'expected executable IDs')).nullable();

/** Settings a project administrator may change (SPEC §3 project description). */
const projectSettingsFields = {
  summary: z.string().max(10_000).optional(),
  description: z.string().max(100_000).optional(),
  protected: z.boolean().optional(),
  restricted: z.boolean().optional(),
  downloadRestricted: z.boolean().optional(),
  externalUploadRestricted: z.boolean().optional(),
  containsPHI: z.boolean().optional(),
  previewViewerRestricted: z.boolean().optional(),
  displayDataProtectionNotice: z.boolean().optional(),
  httpsAppIsolatedBrowsing: z.boolean().optional(),
  jobOutboundInternet: z.boolean().optional(),
  defaultInstanceType: z.string().max(128).optional(),
  allowedExecutables: allowedExecutablesSchema.optional(),
  monthlyComputeLimit: z.number().nonnegative().nullable().optional(),
  monthlyEgressBytesLimit: z.number().int().nonnegative().nullable().optional(),
  defaultSymlink: z.unknown().optional(),
};

export const projectDescribeSchema = z
  .object({
    id: z.string(),
    class: z.enum(['project', 'container']).optional(),
  })
  .loose();
export type ProjectDescribe = z.infer<typeof projectDescribeSchema> & Record<string, unknown>;

const projectNameSchema = z.string().min(1, 'project names must not be empty').max(2048);
const folderNameSchema = z
  .string()
  .min(1, 'folder names must not be empty')
  .max(FOLDER_NAME_MAX_LENGTH, `folder names are at most ${FOLDER_NAME_MAX_LENGTH} characters`)
  .refine((value) => !value.includes('/'), 'folder names must not contain "/"');

const containerRoutes = <C extends 'project' | 'container'>(cls: C) => ({
  describe: instanceRoute(cls, 'describe', {
    summary: `Describe the ${cls}; \`fields\`/\`defaultFields\` and legacy booleans such as \`folders\` select fields`,
    input: describeOptionsSchema,
    output: projectDescribeSchema,
  }),
  listFolder: instanceRoute(cls, 'listFolder', {
    summary: 'List one folder: its objects and its direct subfolders (full paths)',
    input: z.object({
      folder: folderPathSchema.optional(),
      describe: describeFlagSchema.optional(),
      only: z.enum(['objects', 'folders', 'all']).optional(),
      includeHidden: z.boolean().optional(),
      hasSubfolderFlags: z.boolean().optional(),
      starting: startingSchema.optional(),
      limit: z.number().int().min(1).max(10_000).optional(),
    }),
    output: z
      .object({
        objects: z.array(z.object({ id: z.string(), describe: z.unknown().optional() })),
        folders: z.array(z.union([z.string(), z.tuple([z.string(), z.boolean()])])),
        next: z.unknown().optional(),
      })
      .loose(),
  }),
  newFolder: instanceRoute(cls, 'newFolder', {
    summary: 'Create a folder (with `parents`, any missing ancestors too)',
    input: z.object({ folder: folderPathSchema, parents: z.boolean().optional() }),
    output: idResponseSchema,
  }),
  removeFolder: instanceRoute(cls, 'removeFolder', {
    summary: 'Remove a folder; `recurse` removes its contents; with `partial` the call may stop early and say `completed: false`',
    input: z.object({ folder: folderPathSchema, recurse: z.boolean().optional(), force: z.boolean().optional(), partial: z.boolean().optional() }),
    output: z.object({ id: z.string(), completed: z.boolean() }),
  }),
  renameFolder: instanceRoute(cls, 'renameFolder', {
    summary: 'Rename the last segment of a folder path',
    input: z.object({ folder: folderPathSchema, name: folderNameSchema }),
    output: idResponseSchema,
  }),
  move: instanceRoute(cls, 'move', {
    summary: 'Move objects and folders into a destination folder of the same container',
    input: z.object({
      objects: z.array(z.string()).max(10_000).optional(),
      folders: z.array(folderPathSchema).max(10_000).optional(),
      destination: folderPathSchema,
      parents: z.boolean().optional(),
    }),
    output: idResponseSchema,
  }),
  removeObjects: instanceRoute(cls, 'removeObjects', {
    summary: 'Remove objects from the container (bytes are freed when no container holds the object any more)',
    input: z.object({ objects: z.array(z.string()).max(10_000), force: z.boolean().optional() }),
    output: idResponseSchema,
  }),
  clone: instanceRoute(cls, 'clone', {
    summary: 'Copy objects and folders into another container (metadata only, ids kept); answers the ids already there in `exists`',
    input: z.object({
      objects: z.array(z.string()).max(10_000).optional(),
      folders: z.array(folderPathSchema).max(10_000).optional(),
      project: z.string().regex(/^(project|container)-[0-9A-Za-z]{24}$/, 'expected a project or container ID'),
      destination: folderPathSchema.optional(),
      parents: z.boolean().optional(),
      targetFileRelocation: z.unknown().optional(),
    }),
    output: z.object({ id: z.string(), project: z.string(), exists: z.array(z.string()) }),
  }),
  destroy: instanceRoute(cls, 'destroy', {
    summary: `Delete the ${cls} and everything in it (ADMINISTER)`,
    input: z.object({ terminateJobs: z.boolean().optional() }),
    output: z.object({}).loose(),
  }),
});

const project = containerRoutes('project');
const container = containerRoutes('container');

export const projectRoutes = {
  'project/new': classRoute('project', 'new', {
    summary: 'Create a project; the caller gets ADMINISTER',
    input: z.object({
      name: projectNameSchema,
      billTo: billToSchema.optional(),
      region: z.string().optional(),
      tags: tagsSchema.optional(),
      properties: propertiesSchema.optional(),
      ...projectSettingsFields,
    }),
    output: idResponseSchema,
    nonce: true,
  }),
  'project-xxxx/describe': project.describe,
  'project-xxxx/update': instanceRoute('project', 'update', {
    summary: "Change the project's name and settings (ADMINISTER; name, summary and description: CONTRIBUTE)",
    input: z.object({ name: projectNameSchema.optional(), ...projectSettingsFields }),
    output: idResponseSchema,
  }),
  'project-xxxx/destroy': project.destroy,
  'project-xxxx/invite': instanceRoute('project', 'invite', {
    summary: 'Share the project with a user or org (ADMINISTER)',
    input: z.object({
      invitee: z.string().min(1, 'expected a user ID, org ID or e-mail address'),
      level: grantableLevelSchema,
      suppressEmailNotification: z.boolean().optional(),
      suppressAllNotifications: z.boolean().optional(),
    }),
    output: z.object({ id: z.string(), state: z.enum(['ACCEPTED', 'PENDING']) }),
  }),
  'project-xxxx/decreasePermissions': instanceRoute('project', 'decreasePermissions', {
    summary: "Lower or remove (null) members' levels; keyed by member id",
    input: z.record(z.string().regex(/^(user|org)-/, 'keys must be user or org IDs'), grantableLevelSchema.nullable()),
    output: idResponseSchema,
  }),
  'project-xxxx/leave': instanceRoute('project', 'leave', {
    summary: 'Give up your own explicit access (the last administrator cannot leave)',
    input: z.object({}).loose(),
    output: idResponseSchema,
  }),
  'project-xxxx/transfer': instanceRoute('project', 'transfer', {
    summary: 'Transfer billing to another org (at once) or user (pending until they accept)',
    input: z.object({ invitee: billToSchema, suppressEmailNotification: z.boolean().optional() }),
    output: z.object({ id: z.string(), state: z.enum(['ACCEPTED', 'PENDING']) }),
  }),
  'project-xxxx/acceptTransfer': instanceRoute('project', 'acceptTransfer', {
    summary: 'Accept a pending transfer made to you: the project bills to you from now on',
    extension: 'DNAnexus accepts transfers through its web UI; Panx exposes the step as a route.',
    input: z.object({}).loose(),
    output: idResponseSchema,
  }),
  'project-xxxx/listFolder': project.listFolder,
  'project-xxxx/newFolder': project.newFolder,
  'project-xxxx/removeFolder': project.removeFolder,
  'project-xxxx/renameFolder': project.renameFolder,
  'project-xxxx/move': project.move,
  'project-xxxx/removeObjects': project.removeObjects,
  'project-xxxx/clone': project.clone,
  'project-xxxx/addTags': instanceRoute('project', 'addTags', {
    summary: 'Add tags to the project (CONTRIBUTE)',
    input: z.object({ tags: tagsSchema }),
    output: idResponseSchema,
  }),
  'project-xxxx/removeTags': instanceRoute('project', 'removeTags', {
    summary: 'Remove tags from the project (CONTRIBUTE)',
    input: z.object({ tags: tagsSchema }),
    output: idResponseSchema,
  }),
  'project-xxxx/setProperties': instanceRoute('project', 'setProperties', {
    summary: 'Set or (with null) remove project properties (CONTRIBUTE)',
    input: z.object({ properties: setPropertiesMapSchema }),
    output: idResponseSchema,
  }),
  'container-xxxx/describe': container.describe,
  'container-xxxx/listFolder': container.listFolder,
  'container-xxxx/newFolder': container.newFolder,
  'container-xxxx/removeFolder': container.removeFolder,
  'container-xxxx/renameFolder': container.renameFolder,
  'container-xxxx/move': container.move,
  'container-xxxx/removeObjects': container.removeObjects,
  'container-xxxx/clone': container.clone,
  'container-xxxx/destroy': container.destroy,
  'system/findProjects': systemRoute('findProjects', {
    summary: 'Projects the caller can see, filtered by name, level, billTo, tags, properties, region, dates',
    input: z
      .object({
        id: z.array(z.string()).optional(),
        name: nameFilterSchema.optional(),
        level: permissionLevelSchema.optional(),
        explicitPermission: z.boolean().optional(),
        public: z.boolean().optional(),
        billTo: z.union([z.string(), z.array(z.string())]).optional(),
        tags: tagsFilterSchema.optional(),
        properties: propertiesFilterSchema.optional(),
        region: z.union([z.string(), z.array(z.string())]).optional(),
        created: timeRangeSchema.optional(),
        modified: timeRangeSchema.optional(),
        containsPHI: z.boolean().optional(),
        describe: describeFlagSchema.optional(),
        starting: startingSchema.optional(),
        limit: z.number().int().min(1).max(1000).optional(),
      })
      .loose(),
    output: pageSchema(
      z
        .object({
          id: z.string(),
          level: permissionLevelSchema,
          permissionSources: z.array(z.string()),
          public: z.boolean(),
          describe: z.unknown().optional(),
        })
        .loose(),
    ),
  }),
  'system/describeProjects': systemRoute('describeProjects', {
    summary: 'Describe many projects at once; unknown or invisible ones come back as `{}` in their place',
    input: z.object({ projects: z.array(z.string()).max(1000), describe: describeFlagSchema.optional() }),
    output: z.object({ results: z.array(z.unknown()) }),
  }),
};
