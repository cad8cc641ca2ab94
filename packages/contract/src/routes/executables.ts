import { z } from 'zod';
import {
  anyJsonSchema,
  describeFlagSchema,
  describeOptionsSchema,
  idResponseSchema,
  limitSchema,
  nameFilterSchema,
  pageSchema,
  startingSchema,
  tagsSchema,
  timeRangeSchema,
} from '../common.js';
import { type RouteSpec, classRoute, instanceRoute, systemRoute } from '../route.js';
import { commonDataObjectRoutes, newDataObjectFields } from './data-objects.js';
import { instanceTypeRoutes } from './instance-types.js';
import { runInputSchema, runOutputSchema } from './jobs.js';

/** Input and output field classes of dxapp.json, each also as `array:<class>`. */
export const IO_CLASSES = ['string', 'int', 'float', 'boolean', 'hash', 'file', 'record', 'applet', 'workflow', 'database'] as const;
export type IoClass = (typeof IO_CLASSES)[number];

const ioClassSchema = z
  .string()
  .refine(
    (value) => (IO_CLASSES as readonly string[]).includes(value.replace(/^array:/, '')),
    `expected one of ${IO_CLASSES.join(', ')}, optionally as array:<class>`,
  );

/** File-name globs, or `{name, class, tag}` (DNAnexus accepts both). */
const patternsSchema = z.union([
  z.array(z.string()),
  z.object({ name: z.array(z.string()).optional(), class: z.string().optional(), tag: z.array(z.string()).optional() }).loose(),
]);

export const ioSpecItemSchema = z
  .object({
    name: z.string().regex(/^[a-zA-Z_][0-9a-zA-Z_]*$/, 'field names are letters, digits and "_", not starting with a digit'),
    class: ioClassSchema,
    optional: z.boolean().optional(),
    default: z.unknown().optional(),
    label: z.string().optional(),
    help: z.string().optional(),
    patterns: patternsSchema.optional(),
    choices: z.array(z.unknown()).optional(),
    type: z.unknown().optional(),
    suggestions: z.array(z.unknown()).optional(),
    group: z.string().optional(),
  })
  .loose();
export type IoSpecItem = z.infer<typeof ioSpecItemSchema>;
export const ioSpecSchema = z.array(ioSpecItemSchema).max(1000);

/** `{"<entry point>"|"*": {instanceType, clusterSpec?}}` */
export const systemRequirementsSchema = z.record(z.string(), z.object({ instanceType: z.string().max(128).optional() }).loose());
export type SystemRequirements = z.infer<typeof systemRequirementsSchema>;

const durationSchema = z.object({
  days: z.number().nonnegative().optional(),
  hours: z.number().nonnegative().optional(),
  minutes: z.number().nonnegative().optional(),
});
export const timeoutPolicySchema = z.record(z.string(), durationSchema);

export const executionPolicySchema = z
  .object({
    restartOn: z.record(z.string(), z.number().int().min(0).max(100)).optional(),
    maxRestarts: z.number().int().min(0).max(100).optional(),
    onNonRestartableFailure: z.enum(['failStage', 'failAllStages']).optional(),
  })
  .loose();
export type ExecutionPolicy = z.infer<typeof executionPolicySchema>;

const bundledDependSchema = z.object({ name: z.string(), id: z.union([z.string(), z.object({ $dnanexus_link: z.unknown() }).loose()]) }).loose();

export const runSpecSchema = z
  .object({
    interpreter: z.enum(['bash', 'python3', 'python2.7']),
    code: z.string().max(10 * 1024 * 1024),
    distribution: z.string().optional(),
    release: z.string().optional(),
    version: z.string().optional(),
    execDepends: z.array(z.object({ name: z.string() }).loose()).optional(),
    systemRequirements: systemRequirementsSchema.optional(),
    timeoutPolicy: timeoutPolicySchema.optional(),
    restartableEntryPoints: z.enum(['all', 'master']).optional(),
    executionPolicy: executionPolicySchema.optional(),
    bundledDepends: z.array(bundledDependSchema).optional(),
    assetDepends: z.array(z.unknown()).optional(),
    headJobOnDemand: z.boolean().optional(),
  })
  .loose();
export type RunSpec = z.infer<typeof runSpecSchema>;

export const accessSpecSchema = z
  .object({
    network: z.array(z.string()).optional(),
    project: z.enum(['VIEW', 'UPLOAD', 'CONTRIBUTE', 'ADMINISTER']).optional(),
    allProjects: z.enum(['VIEW', 'UPLOAD', 'CONTRIBUTE', 'ADMINISTER']).optional(),
    developer: z.boolean().optional(),
  })
  .loose();
export type AccessSpec = z.infer<typeof accessSpecSchema>;

/** The processed dxapp.json fields an executable keeps (what `dx build` sends). */
export const executableSpecFields = {
  title: z.string().max(1024).optional(),
  summary: z.string().max(10_000).optional(),
  description: z.string().max(100_000).optional(),
  developerNotes: z.string().max(100_000).optional(),
  dxapi: z.string().max(32).optional(),
  inputSpec: ioSpecSchema.nullable().optional(),
  outputSpec: ioSpecSchema.nullable().optional(),
  runSpec: runSpecSchema,
  access: accessSpecSchema.optional(),
  ignoreReuse: z.boolean().optional(),
  httpsApp: z.unknown().optional(),
  treeTurnaroundTimeThreshold: z.number().int().nonnegative().optional(),
};

export const executableDescribeSchema = z.object({ id: z.string() }).loose();

export const appletRoutes = {
  'applet/new': classRoute('applet', 'new', {
    summary: 'Create an applet (closed at once) from a processed dxapp.json: runSpec with the code inlined, input and output specs',
    input: z.object({ ...newDataObjectFields, ...executableSpecFields }).loose(),
    output: idResponseSchema,
    nonce: true,
  }),
  ...commonDataObjectRoutes('applet'),
  'applet-xxxx/get': instanceRoute('applet', 'get', {
    summary: 'The full specification of the applet, runSpec.code included',
    input: z.object({ project: z.string().optional() }).loose(),
    output: executableDescribeSchema,
  }),
  'applet-xxxx/run': instanceRoute('applet', 'run', {
    summary: 'Run the applet: a new job (the root of a new job tree) in the given project',
    input: runInputSchema,
    output: runOutputSchema,
    nonce: true,
  }),
};

/** An app version is addressed as `app-xxxx` (its id), `app-<name>`, `app-<name>/<version>` or `app-<name>/<tag>`. */
const appListInput = z.object({}).loose();
const appNamesInput = (field: string) => z.object({ [field]: z.array(z.string().min(1).max(256)).max(1000) });

export const appRoutes = {
  'app/new': classRoute('app', 'new', {
    summary: 'Create an app version (unpublished) from a processed dxapp.json with a name and version',
    input: z
      .object({
        name: z.string().regex(/^[a-z][a-z0-9._-]{0,127}$/, 'app names are lower-case letters, digits, ".", "_" and "-", starting with a letter'),
        version: z.string().regex(/^[0-9A-Za-z.+_-]{1,128}$/, 'versions are letters, digits, ".", "+", "_" and "-"'),
        ...executableSpecFields,
        categories: z.array(z.string().min(1).max(256)).max(100).optional(),
        billTo: z.string().optional(),
        bill_to: z.string().optional(),
        resources: z.union([z.string(), z.array(z.string())]).optional(),
        regionalOptions: z.record(z.string(), z.unknown()).optional(),
        openSource: z.boolean().optional(),
        details: anyJsonSchema.optional(),
        aliases: z.array(z.string()).optional(),
        project: z.string().optional(),
        nonce: z.string().max(128).optional(),
      })
      .loose(),
    output: idResponseSchema,
    nonce: true,
  }),
  'app-xxxx/describe': instanceRoute('app', 'describe', {
    summary: 'Describe an app version (by id, name, name/version or name/tag)',
    input: describeOptionsSchema,
    output: executableDescribeSchema,
  }),
  'app-xxxx/get': instanceRoute('app', 'get', {
    summary: 'The full specification of the app version, runSpec.code included',
    input: appListInput,
    output: executableDescribeSchema,
  }),
  'app-xxxx/run': instanceRoute('app', 'run', {
    summary: 'Run the app version: a new job tree in the given project (authorized users only)',
    input: runInputSchema,
    output: runOutputSchema,
    nonce: true,
  }),
  'app-xxxx/update': instanceRoute('app', 'update', {
    summary: 'Change an unpublished app version (developers)',
    input: z.object({ ...executableSpecFields, runSpec: runSpecSchema.optional(), details: anyJsonSchema.optional() }).loose(),
    output: idResponseSchema,
  }),
  'app-xxxx/publish': instanceRoute('app', 'publish', {
    summary: 'Publish the app version; with `makeDefault` it becomes the "default" tag of the app',
    input: z.object({ makeDefault: z.boolean().optional() }).loose(),
    output: idResponseSchema,
  }),
  'app-xxxx/delete': instanceRoute('app', 'delete', {
    summary: 'Delete the app version (developers); it can no longer be run',
    input: appListInput,
    output: idResponseSchema,
  }),
  'app-xxxx/install': instanceRoute('app', 'install', {
    summary: "Add the app to the caller's installed apps",
    input: appListInput,
    output: idResponseSchema,
  }),
  'app-xxxx/uninstall': instanceRoute('app', 'uninstall', {
    summary: "Remove the app from the caller's installed apps",
    input: appListInput,
    output: idResponseSchema,
  }),
  'app-xxxx/addCategories': instanceRoute('app', 'addCategories', {
    summary: 'Add categories to the app (all versions)',
    input: appNamesInput('categories'),
    output: idResponseSchema,
  }),
  'app-xxxx/removeCategories': instanceRoute('app', 'removeCategories', {
    summary: 'Remove categories from the app (all versions)',
    input: appNamesInput('categories'),
    output: idResponseSchema,
  }),
  'app-xxxx/listCategories': instanceRoute('app', 'listCategories', {
    summary: "The app's categories",
    input: appListInput,
    output: z.object({ categories: z.array(z.string()) }),
  }),
  'app-xxxx/addAuthorizedUsers': instanceRoute('app', 'addAuthorizedUsers', {
    summary: 'Let users, orgs or PUBLIC run the app (developers)',
    input: appNamesInput('authorizedUsers'),
    output: idResponseSchema,
  }),
  'app-xxxx/removeAuthorizedUsers': instanceRoute('app', 'removeAuthorizedUsers', {
    summary: 'Stop users, orgs or PUBLIC from running the app (developers)',
    input: appNamesInput('authorizedUsers'),
    output: idResponseSchema,
  }),
  'app-xxxx/listAuthorizedUsers': instanceRoute('app', 'listAuthorizedUsers', {
    summary: 'Who may run the app',
    input: appListInput,
    output: z.object({ authorizedUsers: z.array(z.string()) }),
  }),
  'app-xxxx/addDevelopers': instanceRoute('app', 'addDevelopers', {
    summary: 'Add developers (who may create versions and manage the app)',
    input: appNamesInput('developers'),
    output: idResponseSchema,
  }),
  'app-xxxx/removeDevelopers': instanceRoute('app', 'removeDevelopers', {
    summary: 'Remove developers (at least one stays)',
    input: appNamesInput('developers'),
    output: idResponseSchema,
  }),
  'app-xxxx/listDevelopers': instanceRoute('app', 'listDevelopers', {
    summary: "The app's developers",
    input: appListInput,
    output: z.object({ developers: z.array(z.string()) }),
  }),
  'app-xxxx/addTags': instanceRoute('app', 'addTags', {
    summary: 'Tag the app version (a tag names one version of the app: moving it to this one)',
    input: z.object({ tags: tagsSchema }),
    output: idResponseSchema,
  }),
  'app-xxxx/removeTags': instanceRoute('app', 'removeTags', {
    summary: 'Remove tags from the app version',
    input: z.object({ tags: tagsSchema }),
    output: idResponseSchema,
  }),
};

export const findAppsInputSchema = z.object({
  name: nameFilterSchema.optional(),
  category: z.string().optional(),
  allVersions: z.boolean().optional(),
  published: z.boolean().optional(),
  billTo: z.union([z.string(), z.array(z.string())]).optional(),
  createdBy: z.string().optional(),
  developer: z.string().optional(),
  authorizedUser: z.string().optional(),
  installed: z.boolean().optional(),
  created: timeRangeSchema.optional(),
  modified: timeRangeSchema.optional(),
  describe: describeFlagSchema.optional(),
  starting: startingSchema.optional(),
  limit: limitSchema.optional(),
});

export const executableSystemRoutes = {
  'system/findApps': systemRoute('findApps', {
    summary: 'Search the apps the caller may see (latest version of each unless allVersions), in pages',
    input: findAppsInputSchema,
    output: pageSchema(z.object({ id: z.string(), describe: z.unknown().optional() })),
  }),
  'system/findGlobalWorkflows': systemRoute('findGlobalWorkflows', {
    summary: 'Search global workflows (none exist on this server yet, so the answer is always empty)',
    input: findAppsInputSchema,
    output: pageSchema(z.object({ id: z.string(), describe: z.unknown().optional() })),
  }),
};

export { type InstanceTypeDescription, instanceTypeSchema } from './instance-types.js';

/** Executables and what they run on (`system/describeInstanceTypes`, a Panx extension: routes/instance-types.ts). */
export const executableRoutes = { ...appletRoutes, ...appRoutes, ...executableSystemRoutes, ...instanceTypeRoutes } satisfies Record<string, RouteSpec>;
