import { panxJsonImporter } from './panx-json';
import type { WorkflowImporter } from './types';

export type { ImportPreview, WorkflowImporter } from './types';

/** Every workflow language the importer page knows (mirrors the server's importers/index.ts). */
export const IMPORTERS: readonly WorkflowImporter[] = [panxJsonImporter];

export type Detection = { importer: WorkflowImporter; confidence: number } | { importer: undefined; reason: string };

/** The importer most sure that the file is in its language; none when none recognises it. */
export function detectImporter(fileName: string, text: string, importers: readonly WorkflowImporter[] = IMPORTERS): Detection {
  let best: { importer: WorkflowImporter; confidence: number } | undefined;
  for (const importer of importers) {
    const confidence = importer.detect(fileName, text);
    if (confidence > 0 && (!best || confidence > best.confidence)) best = { importer, confidence };
  }
  if (best && best.confidence >= 0.5) return best;
  return {
    importer: undefined,
    reason: `"${fileName}" is not a workflow in a known language (${importers.map((importer) => importer.label).join('; ')})`,
  };
}

export function importerFor(format: string, importers: readonly WorkflowImporter[] = IMPORTERS): WorkflowImporter | undefined {
  return importers.find((importer) => importer.format === format);
}
