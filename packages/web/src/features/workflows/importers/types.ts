/**
 * One workflow language in the web importer. The server parses and compiles (workflow/import, one
 * module per format in packages/server/src/modules/workflows/importers/); the web side recognises the
 * file, previews it before sending, and says what it sends. A new language is one more module here
 * and one there, registered in both index files.
 */
export interface ImportPreview {
  name: string;
  title?: string;
  stages: { id?: string; name?: string; executable: string }[];
  /** Remarks worth showing before the import (unbound inputs, apps named by version, ...). */
  notes: string[];
}

export interface WorkflowImporter {
  /** The `format` of workflow/import (`panx-json`). */
  readonly format: string;
  readonly label: string;
  /** File name endings this language uses (`.json`), for the file chooser. */
  readonly extensions: readonly string[];
  /** How sure this importer is that the file is in its language: 0 (no) to 1 (certain). */
  detect(fileName: string, text: string): number;
  /** Enough of the document to show before importing; throws an Error with a readable message when it cannot be read. */
  preview(text: string): ImportPreview;
  /** The `source` sent to workflow/import. */
  source(text: string): string | Record<string, unknown>;
}
