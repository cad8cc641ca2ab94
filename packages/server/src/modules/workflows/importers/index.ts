import { invalidInput } from '../../../errors.js';
import type { WorkflowFormat } from './format.js';
import { panxJsonFormat } from './panx-json.js';

export type { WorkflowDocument, WorkflowFormat } from './format.js';

/** Every workflow language the server reads and writes, by its `format` name. */
const FORMATS: ReadonlyMap<string, WorkflowFormat> = new Map([panxJsonFormat].map((format) => [format.name, format]));

export const DEFAULT_WORKFLOW_FORMAT = panxJsonFormat.name;

export function workflowFormat(name: string = DEFAULT_WORKFLOW_FORMAT): WorkflowFormat {
  const format = FORMATS.get(name);
  if (!format) throw invalidInput(`"format": unknown workflow format "${name}" (known: ${[...FORMATS.keys()].join(', ')})`);
  return format;
}
