import fs from 'node:fs';
import path from 'node:path';
import { isApiError, type PanxClient } from '@panx/client';
import type { FileDescribe } from '@panx/client/transfer';
import { ToolError } from './errors.js';
import { fileLinkTarget, isObject, type JsonObject } from './links.js';

/**
 * The job's input and output files as dxpy lays them out (dxpy/utils/file_load_utils.py):
 * `$HOME/job_input.json`, `$HOME/in/<input>/<file name>`, arrays as `in/<input>/<i>/<file name>`
 * with `i` zero-padded to the width of the last index (0..9, 00..11, ...), and `$HOME/job_output.json`.
 */

export type JobInput = JsonObject;

export interface IoSpecItem {
  name: string;
  class: string;
  optional?: boolean;
  patterns?: unknown[];
  [key: string]: unknown;
}

export interface InputFile {
  input: string;
  /** `in/<input>` for a single file, `in/<input>/<i>` for an element of an array. */
  dir: string;
  /** Position in the array, for array inputs. */
  index?: number;
  id: string;
  /** The project of the link, when it names one. */
  project?: string;
}

export interface InputFilePlan {
  /** Folders under `in/` that dx-download-all-inputs creates (every non-empty array gets one, even of strings). */
  dirs: string[];
  files: InputFile[];
}

export const jobInputPath = (home: string) => path.join(home, 'job_input.json');
export const jobOutputPath = (home: string) => path.join(home, 'job_output.json');
export const jobErrorPath = (home: string) => path.join(home, 'job_error.json');
export const inputDir = (home: string) => path.join(home, 'in');
export const outputDir = (home: string) => path.join(home, 'out');

export function readJsonObject(file: string, what: string): JsonObject {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new ToolError(`could not find the ${what} ${file}: this command is meant to run inside a job`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ToolError(`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(parsed)) throw new ToolError(`${file} does not hold a JSON object`);
  return parsed;
}

export function readJobInput(home: string): JobInput {
  return readJsonObject(jobInputPath(home), 'job input file');
}

/** Which inputs are files and where each goes (get_job_input_filenames). */
export function planInputFiles(input: JobInput): InputFilePlan {
  const dirs: string[] = [];
  const files: InputFile[] = [];
  const add = (name: string, value: unknown, index?: number, width = 1) => {
    const target = fileLinkTarget(value);
    if (!target) return;
    const dir = index === undefined ? name : `${name}/${String(index).padStart(width, '0')}`;
    files.push({ input: name, dir, ...(index === undefined ? {} : { index }), ...target });
    dirs.push(dir);
  };
  for (const [name, value] of Object.entries(input)) {
    if (Array.isArray(value)) {
      if (!value.length) continue;
      const width = String(value.length - 1).length;
      dirs.push(name);
      value.forEach((element, index) => {
        add(name, element, index, width);
      });
    } else add(name, value);
  }
  return { dirs, files };
}

/** dxpy's make_unix_filename: "/" becomes "%2F"; "." and ".." are refused. */
export function unixFileName(name: string): string {
  if (name === '.' || name === '..') throw new ToolError(`invalid file name "${name}"`);
  return name.replaceAll('/', '%2F');
}

/**
 * Describes an input file, with the parts its download needs. Inside a job the platform has cloned
 * the inputs into the workspace, so the workspace copy is asked for first (as dxpy does, with
 * `project: DX_WORKSPACE_ID`); then the link's own project, then no hint at all.
 */
export async function describeInputFile(
  client: PanxClient,
  file: { id: string; project?: string },
  container: string | undefined,
): Promise<FileDescribe & { project?: string }> {
  const hints = [...new Set([container, file.project, undefined])];
  let lastError: unknown;
  for (const project of hints) {
    try {
      const described = (await client.post(file.id, 'describe', {
        ...(project ? { project } : {}),
        defaultFields: true,
        fields: { parts: true },
      })) as Partial<FileDescribe> & { project?: string };
      return {
        name: described.name ?? file.id,
        state: described.state ?? 'unknown',
        size: described.size ?? 0,
        parts: described.parts,
        project: project ?? described.project,
      };
    } catch (error) {
      lastError = error;
      if (!isApiError(error, 'ResourceNotFound') && !isApiError(error, 'PermissionDenied')) throw error;
    }
  }
  throw lastError;
}

/**
 * describeInputFile for many files: the workspace copies in one `system/describeDataObjects` call (a
 * job's inputs are all there), then describeInputFile for any it could not describe there. By ID.
 */
export async function describeInputFiles(
  client: PanxClient,
  files: readonly { id: string; project?: string }[],
  container: string | undefined,
): Promise<Map<string, FileDescribe & { project?: string }>> {
  const described = new Map<string, FileDescribe & { project?: string }>();
  const unique = [...new Map(files.map((file) => [file.id, file])).values()];
  if (container) {
    for (let start = 0; start < unique.length; start += 1000) {
      const batch = unique.slice(start, start + 1000);
      const { results } = (await client.post('system', 'describeDataObjects', {
        objects: batch.map((file) => ({ id: file.id, project: container, describe: { defaultFields: true, fields: { parts: true } } })),
      })) as { results: ({ describe?: Partial<FileDescribe> } | undefined)[] };
      batch.forEach((file, i) => {
        const found = results[i]?.describe;
        if (found?.name === undefined) return;
        described.set(file.id, { name: found.name, state: found.state ?? 'unknown', size: found.size ?? 0, parts: found.parts, project: container });
      });
    }
  }
  for (const file of unique) if (!described.has(file.id)) described.set(file.id, await describeInputFile(client, file, container));
  return described;
}

/** The name of every file the input links to, by ID, described as describeInputFile does (for bashVarsFor). */
export async function fileNamesFor(client: PanxClient, input: JobInput, container: string | undefined): Promise<Map<string, string>> {
  const described = await describeInputFiles(client, planInputFiles(input).files, container);
  return new Map([...described].map(([id, file]) => [id, file.name]));
}
