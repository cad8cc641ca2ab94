import { describeZodError, folderPathSchema, objectNameSchema, workflowInputsSchema, workflowOutputsSchema, workflowStageSchema } from '@panx/contract';
import { z } from 'zod';
import { invalidInput } from '../../../errors.js';
import type { WorkflowDocument, WorkflowFormat } from './format.js';

/**
 * `panx-json`: the JSON of apps/workflows/*.json. The fields of `workflow/new` (reference §4.6)
 * without the project: `name`, `title`, `summary`, `description`, `outputFolder`, `stages` (each
 * `{id, name, executable, folder, input, executionPolicy, systemRequirements}`, inputs bound to
 * values or stage links), `inputs`, `outputs`. Apps are named `app-<name>/<version>`, so that a
 * document works on any installation with those app versions.
 */
const documentSchema = z
  .object({
    name: objectNameSchema,
    title: z.string().max(1024).nullable().optional(),
    summary: z.string().max(10_000).nullable().optional(),
    description: z.string().max(100_000).nullable().optional(),
    /** Absolute, or taken from the root. */
    outputFolder: z
      .string()
      .max(4096)
      .transform((folder) => (folder.startsWith('/') ? folder : `/${folder}`))
      .pipe(folderPathSchema)
      .nullable()
      .optional(),
    stages: z.array(workflowStageSchema).max(1000),
    inputs: workflowInputsSchema.nullable().optional(),
    outputs: workflowOutputsSchema.nullable().optional(),
  })
  .loose();

export const panxJsonFormat: WorkflowFormat = {
  name: 'panx-json',
  description: 'Panx workflow JSON (apps/workflows/*.json): the fields of workflow/new, apps as app-name/version',
  parse(source) {
    let value: unknown = source;
    if (typeof source === 'string') {
      try {
        value = JSON.parse(source);
      } catch (error) {
        throw invalidInput(`The workflow document is not JSON: ${(error as Error).message}`);
      }
    }
    const parsed = documentSchema.safeParse(value);
    if (!parsed.success) throw invalidInput(describeZodError(parsed.error, 'workflow document'));
    return parsed.data as WorkflowDocument;
  },
  serialize(workflow: WorkflowDocument) {
    const document: Record<string, unknown> = { name: workflow.name };
    for (const key of ['title', 'summary', 'description', 'outputFolder'] as const) {
      const text = workflow[key];
      if (text) document[key] = text;
    }
    document.stages = workflow.stages.map((stage) => {
      const entry: Record<string, unknown> = { id: stage.id };
      if (stage.name) entry.name = stage.name;
      entry.executable = stage.executable;
      if (stage.folder) entry.folder = stage.folder;
      entry.input = stage.input ?? {};
      if (stage.executionPolicy && Object.keys(stage.executionPolicy).length) entry.executionPolicy = stage.executionPolicy;
      if (stage.systemRequirements && Object.keys(stage.systemRequirements).length) entry.systemRequirements = stage.systemRequirements;
      return entry;
    });
    if (workflow.inputs) document.inputs = workflow.inputs;
    if (workflow.outputs) document.outputs = workflow.outputs;
    return document;
  },
};
