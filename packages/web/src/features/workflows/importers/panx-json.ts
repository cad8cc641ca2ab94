import type { ImportPreview, WorkflowImporter } from './types';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parse(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`The file is not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(value)) throw new Error('The file is JSON but not an object with "name" and "stages"');
  return value;
}

/**
 * `panx-json`: the JSON that `px export workflow` writes and apps/workflows/*.json holds: the fields
 * of workflow/new (name, title, stages with executables as applet-xxxx or app-name/version, inputs,
 * outputs). The server checks it in full; the preview only needs the name and the stages.
 */
export const panxJsonImporter: WorkflowImporter = {
  format: 'panx-json',
  label: 'Panx workflow JSON (px export workflow)',
  extensions: ['.json'],
  detect(fileName, text) {
    let value: Record<string, unknown>;
    try {
      value = parse(text);
    } catch {
      return 0;
    }
    const hasStages = Array.isArray(value.stages) && value.stages.every((stage) => isRecord(stage) && typeof stage.executable === 'string');
    if (typeof value.name === 'string' && hasStages) return 1;
    return fileName.toLowerCase().endsWith('.json') ? 0.2 : 0.1;
  },
  preview(text): ImportPreview {
    const value = parse(text);
    if (typeof value.name !== 'string' || !value.name.trim()) throw new Error('The workflow JSON has no "name"');
    if (!Array.isArray(value.stages)) throw new Error('The workflow JSON has no "stages" list');
    const stages = value.stages.map((stage, index) => {
      if (!isRecord(stage) || typeof stage.executable !== 'string') throw new Error(`Stage ${index + 1} has no "executable"`);
      return {
        ...(typeof stage.id === 'string' ? { id: stage.id } : {}),
        ...(typeof stage.name === 'string' ? { name: stage.name } : {}),
        executable: stage.executable,
      };
    });
    const notes: string[] = [];
    if (!stages.length) notes.push('The workflow has no stages yet.');
    const apps = stages.filter((stage) => stage.executable.startsWith('app-'));
    if (apps.length) notes.push(`${apps.length} stage${apps.length === 1 ? ' uses an app' : 's use apps'}: those app versions must be installed here.`);
    const applets = stages.filter((stage) => stage.executable.startsWith('applet-'));
    if (applets.length)
      notes.push(
        `${applets.length} stage${applets.length === 1 ? ' uses an applet' : 's use applets'}: you need access to ${applets.length === 1 ? 'it' : 'them'}.`,
      );
    return { name: value.name, ...(typeof value.title === 'string' ? { title: value.title } : {}), stages, notes };
  },
  source(text) {
    return parse(text);
  },
};
