import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Services } from '../app.js';
import type { Caller } from '../modules/auth/caller.js';
import { defaultAppsDir } from './app-catalogue.js';

/**
 * The workflows that ship with Panx (`apps/workflows/*.json`, format panx-json), built into the demo
 * project at start-up from the apps of the catalogue (so after loadAppCatalogue). In the demo
 * project their main inputs are bound to the demo data, and runs go to /results/<workflow>: a new
 * user runs `px run "Demo project:/germline_variants" -y --watch` with no inputs at all.
 */

/** Inputs bound to the demo data set (paths in the demo project), per workflow name. */
export const DEMO_BINDINGS: Record<string, Record<string, string>> = {
  germline_variants: {
    'stage-fastp.reads': '/reads/sample1_R1.fastq.gz',
    'stage-fastp.reads2': '/reads/sample1_R2.fastq.gz',
    'stage-bwa_mem.reference': '/reference/chrT.fa',
  },
};

export function defaultWorkflowsDir(): string {
  return process.env.PANX_WORKFLOWS_DIR ?? path.join(defaultAppsDir(), 'workflows');
}

export interface DemoWorkflowsResult {
  /** Names created now. */
  created: string[];
  /** Names already in the demo project (left alone). */
  existing: string[];
  failed: { file: string; error: string }[];
}

/**
 * Imports each workflow file into `project` (its root folder) unless a workflow of that name is there
 * already, binds the demo inputs, sets the output folder and closes it. Never stops start-up: a file
 * that fails (an app missing from the catalogue, say) is reported and logged.
 */
export async function loadDemoWorkflows(
  services: Pick<Services, 'workflows' | 'objects'>,
  caller: Caller,
  project: string,
  options: { dir?: string; log?: Pick<Logger, 'info' | 'warn'>; now?: number } = {},
): Promise<DemoWorkflowsResult> {
  const result: DemoWorkflowsResult = { created: [], existing: [], failed: [] };
  const dir = options.dir ?? defaultWorkflowsDir();
  const now = options.now ?? Date.now();
  const files = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((file) => file.endsWith('.json'))
        .sort()
    : [];
  for (const file of files) {
    try {
      const source = fs.readFileSync(path.join(dir, file), 'utf8');
      const name = (JSON.parse(source) as { name?: unknown }).name;
      if (typeof name !== 'string') throw new Error('the file has no "name"');
      const present = await services.objects.find(caller, { class: 'workflow', name, scope: { project, folder: '/', recurse: false }, limit: 1 });
      if (present.results.length) {
        result.existing.push(name);
        continue;
      }
      const imported = await services.workflows.import(caller, { format: 'panx-json', source, project, folder: '/', name }, now);
      const stages: Record<string, { input: Record<string, unknown> }> = {};
      for (const [key, filePath] of Object.entries(DEMO_BINDINGS[name] ?? {})) {
        const [stage, field] = key.split('.') as [string, string];
        const found = await services.objects.find(caller, {
          class: 'file',
          name: path.posix.basename(filePath),
          scope: { project, folder: path.posix.dirname(filePath), recurse: false },
          limit: 1,
        });
        const id = found.results[0]?.id;
        if (!id) continue; // the demo data was moved: the input stays to be given
        stages[stage] = { input: { ...stages[stage]?.input, [field]: { $dnanexus_link: { project, id } } } };
      }
      await services.workflows.update(caller, imported.id, { editVersion: imported.editVersion, outputFolder: `/results/${name}`, stages }, now);
      await services.workflows.close(caller, imported.id, now);
      result.created.push(name);
    } catch (error) {
      result.failed.push({ file, error: (error as Error).message });
      options.log?.warn({ file, err: error }, 'a bundled workflow could not be built in the demo project');
    }
  }
  if (result.created.length) options.log?.info({ workflows: result.created }, 'bundled workflows added to the demo project');
  return result;
}
