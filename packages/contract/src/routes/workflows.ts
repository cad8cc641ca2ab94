import { z } from 'zod';
import { anyJsonSchema, describeOptionsSchema, folderPathSchema, idResponseSchema, setPropertiesMapSchema, tagsSchema } from '../common.js';
import { classRoute, instanceRoute, type RouteSpec } from '../route.js';
import { commonDataObjectRoutes, newDataObjectFields } from './data-objects.js';
import { executionPolicySchema, ioSpecItemSchema, systemRequirementsSchema } from './executables.js';
import { runInputSchema } from './jobs.js';

/** Analysis states (reference §4.6): derived from the states of the stage jobs. */
export const ANALYSIS_STATES = ['in_progress', 'partially_failed', 'done', 'failed', 'terminating', 'terminated'] as const;
export type AnalysisState = (typeof ANALYSIS_STATES)[number];

/**
 * A stage ID: `stage-xxxx`, or one chosen by the caller (`stage-fastp`). No dots: run inputs are
 * keyed `<stageId>.<field>`.
 */
export const stageIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'stage IDs are letters, digits, "_" and "-" (for example stage-xxxx or stage-align)');

/** A stage's folder: absolute, or relative to the analysis's output folder. */
const stageFolderSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((value) => !value.split('/').some((segment) => segment === '.' || segment === '..'), 'folder names "." and ".." are not allowed');

/** The executable of a stage: `applet-xxxx`, `app-xxxx`, `app-<name>`, `app-<name>/<version>` or `app-<name>/<tag>`. */
const executableRefSchema = z
  .string()
  .regex(
    /^(applet-[0-9A-Za-z]{24}|app-[0-9A-Za-z._-]+(\/[0-9A-Za-z.+_-]+)?)$/,
    'expected an applet ID (applet-xxxx) or an app (app-xxxx, app-name, app-name/version)',
  );

export const workflowStageSchema = z
  .object({
    id: stageIdSchema.optional(),
    executable: executableRefSchema,
    name: z.string().max(4096).nullable().optional(),
    folder: stageFolderSchema.nullable().optional(),
    /** Bound inputs: values, or stage links `{"$dnanexus_link": {"stage", "outputField" | "inputField"}}`. */
    input: z.record(z.string(), z.unknown()).optional(),
    executionPolicy: executionPolicySchema.optional(),
    systemRequirements: systemRequirementsSchema.optional(),
  })
  .loose();
export type WorkflowStageInput = z.infer<typeof workflowStageSchema>;

/** Workflow-level inputs (stage inputs link to them with `{"$dnanexus_link": {"workflowInputField": name}}`). */
export const workflowInputsSchema = z.array(ioSpecItemSchema).max(1000);
/** Workflow-level outputs, each with `outputSource: {"$dnanexus_link": {"stage", "outputField"}}`. */
export const workflowOutputsSchema = z.array(ioSpecItemSchema.extend({ outputSource: z.unknown() })).max(1000);

const editVersionSchema = z.number().int().min(0);
const editedSchema = z.object({ id: z.string(), editVersion: z.number().int() });

/** What a workflow holds besides the common data object fields (workflow/new, update, import). */
const workflowContentFields = {
  title: z.string().max(1024).nullable().optional(),
  summary: z.string().max(10_000).nullable().optional(),
  description: z.string().max(100_000).nullable().optional(),
  outputFolder: folderPathSchema.nullable().optional(),
  inputs: workflowInputsSchema.nullable().optional(),
  outputs: workflowOutputsSchema.nullable().optional(),
  ignoreReuse: z.union([z.boolean(), z.array(z.string())]).optional(),
};

/** `/workflow-xxxx/run` (reference §4.6): input keyed `<stageId>.<field>`, per-stage folders and instance types. */
export const workflowRunInputSchema = runInputSchema.extend({
  stageFolders: z.record(z.string(), stageFolderSchema).optional(),
  stageSystemRequirements: z.record(z.string(), systemRequirementsSchema).optional(),
  /** Stages to run even when an identical finished job could be reused (`"*"`: all). */
  rerunStages: z.array(z.string().max(256)).max(1000).optional(),
  /** true, or the stages (`"*"`: all) whose jobs are never reused; dxpy sends a list. */
  ignoreReuse: z.union([z.boolean(), z.array(z.string().max(256)).max(1000)]).optional(),
});
export type WorkflowRunInput = z.infer<typeof workflowRunInputSchema>;

const analysisRunOutput = z.object({ id: z.string(), stages: z.array(z.string()) }).loose();

/** Import formats (modules/workflows/importers); `panx-json` is the format of apps/workflows/*.json. */
export const WORKFLOW_FORMATS = ['panx-json'] as const;

export const workflowRoutes = {
  'workflow/new': classRoute('workflow', 'new', {
    summary: 'Create a workflow (open, editable) with its stages; stage inputs may link to other stages’ outputs or inputs',
    input: z
      .object({
        ...newDataObjectFields,
        ...workflowContentFields,
        stages: z.array(workflowStageSchema).max(1000).optional(),
        initializeFrom: z.object({ id: z.string(), project: z.string().optional() }).optional(),
      })
      .loose(),
    output: editedSchema,
    nonce: true,
  }),
  ...commonDataObjectRoutes('workflow'),
  'workflow-xxxx/addStage': instanceRoute('workflow', 'addStage', {
    summary: 'Add a stage at the end (editVersion must be the current one) → the new stage ID and editVersion',
    input: workflowStageSchema.extend({ editVersion: editVersionSchema }),
    output: editedSchema.extend({ stage: z.string() }),
  }),
  'workflow-xxxx/removeStage': instanceRoute('workflow', 'removeStage', {
    summary: 'Remove a stage; links to it from other stages must be removed first',
    input: z.object({ editVersion: editVersionSchema, stage: z.string() }),
    output: editedSchema,
  }),
  'workflow-xxxx/moveStage': instanceRoute('workflow', 'moveStage', {
    summary: 'Move a stage to another position (0 is the first)',
    input: z.object({ editVersion: editVersionSchema, stage: z.string(), newIndex: z.number().int().min(0) }),
    output: editedSchema,
  }),
  'workflow-xxxx/update': instanceRoute('workflow', 'update', {
    summary: 'Change the title, summary, description, output folder, inputs, outputs, and stages’ names, folders, inputs and policies',
    input: z
      .object({
        editVersion: editVersionSchema,
        ...workflowContentFields,
        name: z.string().min(1).max(32_768).optional(),
        stages: z
          .record(
            z.string(),
            z
              .object({
                name: z.string().max(4096).nullable().optional(),
                folder: stageFolderSchema.nullable().optional(),
                /** Merged into the bound inputs; null unbinds a field. */
                input: z.record(z.string(), z.unknown()).optional(),
                executionPolicy: executionPolicySchema.optional(),
                systemRequirements: systemRequirementsSchema.optional(),
              })
              .loose(),
          )
          .optional(),
      })
      .loose(),
    output: editedSchema,
  }),
  'workflow-xxxx/updateStageExecutable': instanceRoute('workflow', 'updateStageExecutable', {
    summary: 'Replace a stage’s executable; refused when it lacks fields the stage binds or others link to, unless `force`',
    input: z.object({ editVersion: editVersionSchema, stage: z.string(), executable: executableRefSchema, force: z.boolean().optional() }),
    output: editedSchema.extend({ compatible: z.boolean() }),
  }),
  'workflow-xxxx/isStageCompatible': instanceRoute('workflow', 'isStageCompatible', {
    summary: 'Whether an executable could replace a stage’s: the fields bound and linked exist with the same classes',
    input: z.object({ editVersion: editVersionSchema.optional(), stage: z.string(), executable: executableRefSchema }),
    output: z.object({ id: z.string(), compatible: z.boolean(), incompatibilities: z.array(z.string()) }),
  }),
  'workflow-xxxx/overwrite': instanceRoute('workflow', 'overwrite', {
    summary: 'Replace the stages, inputs, outputs and texts with those of another workflow',
    input: z.object({ editVersion: editVersionSchema, from: z.object({ id: z.string(), project: z.string().optional() }) }),
    output: editedSchema,
  }),
  'workflow-xxxx/close': instanceRoute('workflow', 'close', {
    summary: 'Close the workflow: it can no longer be edited (it can still be run, and now cloned)',
    input: z.object({}).loose(),
    output: idResponseSchema,
  }),
  'workflow-xxxx/run': instanceRoute('workflow', 'run', {
    summary: 'Run the workflow: an analysis with one job per stage, wired by stage links (job-based references)',
    input: workflowRunInputSchema,
    output: analysisRunOutput,
    nonce: true,
  }),
  'workflow-xxxx/dryRun': instanceRoute('workflow', 'dryRun', {
    summary: 'Check a run without starting it: each stage’s input (links as references), folder and instance type',
    input: workflowRunInputSchema,
    output: z.object({ id: z.string(), stages: z.array(z.object({ id: z.string() }).loose()) }).loose(),
  }),
  'workflow/import': classRoute('workflow', 'import', {
    summary: 'Create a workflow from a document in an import format (panx-json: the format of apps/workflows/*.json)',
    extension:
      'DNAnexus builds workflows from dxworkflow.json on the client; Panx parses workflow languages on the server so that the CLI and the web app share one importer per language',
    input: z.object({
      format: z.enum(WORKFLOW_FORMATS).optional(),
      source: z.union([z.string().max(10 * 1024 * 1024), z.record(z.string(), z.unknown())]),
      project: newDataObjectFields.project,
      folder: folderPathSchema.optional(),
      parents: z.boolean().optional(),
      name: z.string().min(1).max(32_768).optional(),
      close: z.boolean().optional(),
      nonce: z.string().max(128).optional(),
    }),
    output: editedSchema.extend({ stages: z.array(z.string()) }),
    nonce: true,
  }),
  'workflow-xxxx/export': instanceRoute('workflow', 'export', {
    summary: 'The workflow as a document of an import format (apps as app-name/version)',
    extension: 'The counterpart of workflow/import',
    input: z.object({ format: z.enum(WORKFLOW_FORMATS).optional(), project: z.string().optional() }),
    output: z.object({ id: z.string(), format: z.string(), document: anyJsonSchema }),
  }),
};

export const analysisRoutes = {
  'analysis-xxxx/describe': instanceRoute('analysis', 'describe', {
    summary: 'Describe the analysis: its state (from its stage jobs), input, output and `stages [{id, execution: {describe}}]`',
    input: describeOptionsSchema,
    output: z.object({ id: z.string() }).loose(),
  }),
  'analysis-xxxx/terminate': instanceRoute('analysis', 'terminate', {
    summary: 'Terminate the analysis: every unfinished stage job with its job tree',
    input: z.object({}).loose(),
    output: idResponseSchema,
  }),
  'analysis-xxxx/addTags': instanceRoute('analysis', 'addTags', {
    summary: 'Add tags to the analysis',
    input: z.object({ tags: tagsSchema }),
    output: idResponseSchema,
  }),
  'analysis-xxxx/removeTags': instanceRoute('analysis', 'removeTags', {
    summary: 'Remove tags from the analysis',
    input: z.object({ tags: tagsSchema }),
    output: idResponseSchema,
  }),
  'analysis-xxxx/setProperties': instanceRoute('analysis', 'setProperties', {
    summary: 'Set or (with null) remove properties of the analysis',
    input: z.object({ properties: setPropertiesMapSchema }),
    output: idResponseSchema,
  }),
};

export const workflowAndAnalysisRoutes = { ...workflowRoutes, ...analysisRoutes } satisfies Record<string, RouteSpec>;
