import type { IoSpecItem, WorkflowStageInput } from '@panx/contract';
import type { WorkflowOutput } from '../workflow-model.js';

/** A workflow as an import format describes it: what `workflow/new` needs, in Panx's terms. */
export interface WorkflowDocument {
  name: string;
  title?: string | null;
  summary?: string | null;
  description?: string | null;
  outputFolder?: string | null;
  /** Executables as `applet-xxxx`, `app-xxxx` or `app-name/version`; stage links as in reference §3.4. */
  stages: WorkflowStageInput[];
  inputs?: IoSpecItem[] | null;
  outputs?: WorkflowOutput[] | null;
}

/**
 * One workflow language. `workflow/import` parses a document into stages (the service then resolves
 * the executables and checks the links, whatever the language) and `workflow-xxxx/export` writes
 * one back. Another language (CWL, WDL, ...) is one more module implementing this, registered in
 * `importers/index.ts`.
 */
export interface WorkflowFormat {
  /** The `format` name in the API (`panx-json`). */
  readonly name: string;
  readonly description: string;
  /** The document (text, or JSON already parsed by the HTTP layer) → the workflow; throws InvalidInput naming what is wrong. */
  parse(source: string | Record<string, unknown>): WorkflowDocument;
  /** The workflow as a document of this format. */
  serialize(workflow: WorkflowDocument): unknown;
}
