import fs from 'node:fs';
import path from 'node:path';
import { io, localPath } from './io.js';
import { isApiError, type PanxClient } from '@panx/client';
import type { JobEnvironment } from './environment.js';
import { ToolError } from './errors.js';
import type { IoSpecItem } from './job-files.js';
import { isObject } from './links.js';

/**
 * The executable's inputSpec/outputSpec, found as dxpy finds it: with DX_JOB_ID set, `/job-xxxx/describe`
 * then (for the `main` entry point only; subjobs get none) `/applet-xxxx/describe` or
 * `/app-xxxx/describe`; without DX_JOB_ID, from the dxapp.json named by DX_TEST_DXAPP_JSON. A spec
 * file given on the command line (`--output-spec`, `--input-spec`; a testing aid of Panx) comes first.
 * Inside a job, the `dnanexus-job.json` and `dnanexus-executable.json` that the runner writes in HOME
 * (as DNAnexus workers have them) answer without the two describes, when they are this job's.
 */

export type SpecKind = 'inputSpec' | 'outputSpec';

function specFrom(value: unknown, kind: SpecKind, source: string): IoSpecItem[] | undefined {
  const spec = Array.isArray(value) ? value : isObject(value) ? value[kind] : undefined;
  if (spec === undefined || spec === null) return undefined;
  if (!Array.isArray(spec) || !spec.every((item) => isObject(item) && typeof item.name === 'string' && typeof item.class === 'string')) {
    throw new ToolError(`${source}: ${kind} must be a list of {name, class, ...}`);
  }
  return spec as IoSpecItem[];
}

export function readSpecFile(file: string, kind: SpecKind): IoSpecItem[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(localPath(file), 'utf8'));
  } catch (error) {
    throw new ToolError(`cannot read the ${kind} from ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return specFrom(parsed, kind, file);
}

export async function executableSpec(
  client: () => PanxClient,
  environment: JobEnvironment,
  kind: SpecKind,
  specFile?: string,
): Promise<IoSpecItem[] | undefined> {
  if (specFile) return readSpecFile(specFile, kind);
  if (environment.jobId) {
    const fromHome = specFromHome(environment.home, environment.jobId, kind);
    if (fromHome !== UNKNOWN) return fromHome;
    const api = client();
    let job: Record<string, unknown>;
    try {
      job = (await api.post(environment.jobId, 'describe', {})) as Record<string, unknown>;
    } catch (error) {
      if (isApiError(error)) throw new ToolError(`cannot describe the job ${environment.jobId} to find the ${kind}: ${error.type}: ${error.message}`);
      throw error;
    }
    if (job.function !== 'main') return undefined;
    const executable = typeof job.app === 'string' ? job.app : typeof job.applet === 'string' ? job.applet : undefined;
    if (!executable) return undefined;
    const described = await api.post(
      executable,
      'describe',
      executable.startsWith('applet-') && environment.workspaceId ? { project: environment.workspaceId } : {},
    );
    return specFrom(described, kind, executable);
  }
  const dxapp = io().env.DX_TEST_DXAPP_JSON;
  return dxapp ? readSpecFile(dxapp, kind) : undefined;
}

const UNKNOWN = Symbol('unknown');

function readJsonObject(file: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The spec from HOME's dnanexus-job.json and dnanexus-executable.json; UNKNOWN when either is missing,
 * unreadable or not about this job and its executable (then the API is asked).
 */
function specFromHome(home: string, jobId: string, kind: SpecKind): IoSpecItem[] | undefined | typeof UNKNOWN {
  const job = readJsonObject(path.join(home, 'dnanexus-job.json'));
  if (job?.id !== jobId || typeof job.function !== 'string') return UNKNOWN;
  if (job.function !== 'main') return undefined;
  const executableId = typeof job.app === 'string' ? job.app : typeof job.applet === 'string' ? job.applet : undefined;
  const executable = readJsonObject(path.join(home, 'dnanexus-executable.json'));
  if (!executableId || executable?.id !== executableId || !(kind in executable)) return UNKNOWN;
  try {
    return specFrom(executable, kind, 'dnanexus-executable.json');
  } catch {
    return UNKNOWN;
  }
}
