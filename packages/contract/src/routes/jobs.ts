import { z } from 'zod';
import {
  anyJsonSchema,
  describeFlagSchema,
  describeOptionsSchema,
  folderPathSchema,
  idResponseSchema,
  limitSchema,
  nameFilterSchema,
  pageSchema,
  propertiesFilterSchema,
  propertiesSchema,
  setPropertiesMapSchema,
  startingSchema,
  tagsFilterSchema,
  tagsSchema,
  timeRangeSchema,
} from '../common.js';
import { classRoute, instanceRoute, type RouteSpec, systemRoute } from '../route.js';

/** Job states (SPEC §4, reference §7.1). */
export const JOB_STATES = [
  'idle',
  'waiting_on_input',
  'runnable',
  'running',
  'waiting_on_output',
  'done',
  'failed',
  'terminating',
  'terminated',
  'restartable',
  'debug_hold',
  'unresponsive',
] as const;
export type JobState = (typeof JOB_STATES)[number];
export const TERMINAL_JOB_STATES: readonly JobState[] = ['done', 'failed', 'terminated'];

/** Why a job failed (`failureReason`), as DNAnexus names them. */
export const FAILURE_REASONS = [
  'AppError',
  'AppInternalError',
  'AppInsufficientResourceError',
  'ExecutionError',
  'UnresponsiveWorker',
  'JobTimeoutExceeded',
  'CostLimitExceeded',
  'SpendingLimitExceeded',
  'InvalidInput',
  'InvalidOutput',
  'DependencyFailed',
  'JMInternalError',
  'Terminated',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export const PRIORITIES = ['low', 'normal', 'high'] as const;
export type Priority = (typeof PRIORITIES)[number];

const containerRef = z.string().regex(/^(project|container)-[0-9A-Za-z]{24}$/, 'expected a project or container ID');
const jobIdSchema = z.string().regex(/^job-[0-9A-Za-z]{24}$/, 'expected a job ID (job-xxxx)');
/** dependsOn takes jobs (which must be done) and data objects (which must be closed). */
const dependsOnSchema = z.array(z.string().max(128)).max(1000);
const entryRequirementsSchema = z.record(z.string(), z.object({ instanceType: z.string().max(128).optional() }).loose());

/** `/applet-xxxx/run` and `/app-xxxx/run` (reference §4.4). */
export const runInputSchema = z
  .object({
    input: z.record(z.string(), z.unknown()),
    project: containerRef.optional(),
    folder: folderPathSchema.optional(),
    name: z.string().max(4096).optional(),
    tags: tagsSchema.optional(),
    properties: propertiesSchema.optional(),
    details: anyJsonSchema.optional(),
    systemRequirements: entryRequirementsSchema.optional(),
    systemRequirementsByExecutable: z.record(z.string(), entryRequirementsSchema).optional(),
    executionPolicy: z
      .object({
        restartOn: z.record(z.string(), z.number().int().min(0).max(100)).optional(),
        maxRestarts: z.number().int().min(0).max(100).optional(),
      })
      .loose()
      .optional(),
    timeoutPolicyByExecutable: z
      .record(
        z.string(),
        z.record(
          z.string(),
          z.object({ days: z.number().nonnegative().optional(), hours: z.number().nonnegative().optional(), minutes: z.number().nonnegative().optional() }),
        ),
      )
      .optional(),
    delayWorkspaceDestruction: z.boolean().optional(),
    dependsOn: dependsOnSchema.optional(),
    priority: z.enum(PRIORITIES).optional(),
    detach: z.boolean().optional(),
    allowSSH: z.array(z.string()).optional(),
    debug: z
      .object({ debugOn: z.array(z.string()).optional() })
      .loose()
      .optional(),
    headJobOnDemand: z.boolean().optional(),
    ignoreReuse: z.boolean().optional(),
    costLimit: z.number().positive('costLimit must be positive').optional(),
    nonce: z.string().max(128).optional(),
  })
  .loose();
export type RunInput = z.infer<typeof runInputSchema>;
export const runOutputSchema = z.object({ id: z.string() }).loose();

export const jobDescribeSchema = z.object({ id: z.string() }).loose();

export const logMessageSchema = z.object({
  timestamp: z.number(),
  source: z.string(),
  level: z.string(),
  job: z.string(),
  line: z.number(),
  msg: z.string(),
  try: z.number().optional(),
});
export type LogMessage = z.infer<typeof logMessageSchema>;

const findExecutionsInputSchema = z.object({
  class: z.enum(['job', 'analysis']).optional(),
  launchedBy: z.string().optional(),
  executable: z.string().optional(),
  project: containerRef.optional(),
  state: z.union([z.string(), z.array(z.string())]).optional(),
  origin: z.union([z.string(), z.array(z.string())]).optional(),
  originJob: z.union([z.string(), z.array(z.string())]).optional(),
  parentJob: z
    .union([z.string(), z.array(z.string())])
    .nullable()
    .optional(),
  parentAnalysis: z
    .union([z.string(), z.array(z.string())])
    .nullable()
    .optional(),
  rootExecution: z.union([z.string(), z.array(z.string())]).optional(),
  created: timeRangeSchema.optional(),
  modified: timeRangeSchema.optional(),
  name: nameFilterSchema.optional(),
  tags: tagsFilterSchema.optional(),
  properties: propertiesFilterSchema.optional(),
  includeSubjobs: z.boolean().optional(),
  includeRestarted: z.boolean().optional(),
  describe: describeFlagSchema.optional(),
  starting: startingSchema.optional(),
  limit: limitSchema.optional(),
});
export type FindExecutionsInput = z.infer<typeof findExecutionsInputSchema>;
const findExecutionsOutput = pageSchema(z.object({ id: z.string(), describe: z.unknown().optional() })).loose();

export const jobRoutes = {
  'job/new': classRoute('job', 'new', {
    summary: 'Start a subjob running an entry point of the same executable (job tokens only); it shares the parent’s workspace',
    input: z.object({
      function: z.string().regex(/^[a-zA-Z_][0-9a-zA-Z_]*$/, 'entry points are letters, digits and "_"'),
      input: z.record(z.string(), z.unknown()).optional(),
      name: z.string().max(4096).optional(),
      dependsOn: dependsOnSchema.optional(),
      systemRequirements: entryRequirementsSchema.optional(),
      properties: propertiesSchema.optional(),
      tags: tagsSchema.optional(),
      details: anyJsonSchema.optional(),
      nonce: z.string().max(128).optional(),
    }),
    output: idResponseSchema,
    nonce: true,
  }),
  'job-xxxx/describe': instanceRoute('job', 'describe', {
    summary: 'Describe the job (with `try`, one of its tries); `fields`, `defaultFields` and `io` select fields',
    input: describeOptionsSchema.extend({ try: z.number().int().min(0).optional() }),
    output: jobDescribeSchema,
  }),
  'job-xxxx/terminate': instanceRoute('job', 'terminate', {
    summary: 'Terminate the job and its whole job tree (CONTRIBUTE in its project, or the launcher)',
    input: z.object({}).loose(),
    output: idResponseSchema,
  }),
  'job-xxxx/update': instanceRoute('job', 'update', {
    summary: 'Change the priority (or allowSSH, rank) of a job that has not finished',
    input: z.object({ priority: z.enum(PRIORITIES).optional(), allowSSH: z.array(z.string()).optional(), rank: z.number().int().optional() }).loose(),
    output: idResponseSchema,
  }),
  'job-xxxx/addTags': instanceRoute('job', 'addTags', { summary: 'Add tags to the job', input: z.object({ tags: tagsSchema }), output: idResponseSchema }),
  'job-xxxx/removeTags': instanceRoute('job', 'removeTags', {
    summary: 'Remove tags from the job',
    input: z.object({ tags: tagsSchema }),
    output: idResponseSchema,
  }),
  'job-xxxx/setProperties': instanceRoute('job', 'setProperties', {
    summary: 'Set or (with null) remove properties of the job',
    input: z.object({ properties: setPropertiesMapSchema }),
    output: idResponseSchema,
  }),
  'job-xxxx/getLog': instanceRoute('job', 'getLog', {
    summary: 'Log lines of the job (one try, default the current), oldest first, in pages; `dx watch` uses the websocket instead',
    input: z.object({
      try: z.number().int().min(0).optional(),
      levels: z.array(z.string()).optional(),
      recurseJobs: z.boolean().optional(),
      numRecentMessages: z.number().int().min(0).max(1_000_000).optional(),
      starting: startingSchema.optional(),
      limit: z.number().int().min(1).max(10_000).optional(),
    }),
    output: z.object({ messages: z.array(logMessageSchema), next: z.unknown().nullable() }),
  }),
  'job-xxxx/reportOutcome': instanceRoute('job', 'reportOutcome', {
    summary: 'The job runner reports how the job’s code ended: its output (job_output.json) or error (job_error.json) and exit status',
    extension:
      'DNAnexus workers report to an internal service; Panx runners (local or on a cluster node) report over the API with the job token, so no other channel is needed',
    input: z.object({
      try: z.number().int().min(0),
      exitCode: z.number().int().nullable(),
      signal: z.string().max(32).nullable().optional(),
      output: z.record(z.string(), z.unknown()).nullable().optional(),
      error: z
        .object({ type: z.string().max(128), message: z.string().max(100_000) })
        .loose()
        .nullable()
        .optional(),
    }),
    output: idResponseSchema,
  }),
};

export const jobSystemRoutes = {
  'system/findExecutions': systemRoute('findExecutions', {
    summary: 'Search jobs (and analyses) by project, state, launcher, executable, tree (originJob/rootExecution may be arrays), name, tags, properties, dates',
    input: findExecutionsInputSchema,
    output: findExecutionsOutput,
  }),
  'system/findJobs': systemRoute('findJobs', {
    summary: 'findExecutions restricted to jobs',
    input: findExecutionsInputSchema,
    output: findExecutionsOutput,
  }),
  'system/findAnalyses': systemRoute('findAnalyses', {
    summary: 'findExecutions restricted to analyses (runs of workflows)',
    input: findExecutionsInputSchema,
    output: findExecutionsOutput,
  }),
  'system/describeExecutions': systemRoute('describeExecutions', {
    summary: 'Describe many executions at once, in input order; `{}` for those the caller cannot describe',
    input: z.object({
      executions: z.array(z.union([z.string(), z.object({ id: z.string(), describe: describeFlagSchema.optional() })])).max(1000),
      describe: describeFlagSchema.optional(),
    }),
    output: z.object({ results: z.array(z.unknown()) }),
  }),
};

export const executionRoutes = { ...jobRoutes, ...jobSystemRoutes } satisfies Record<string, RouteSpec>;
export { jobIdSchema };
