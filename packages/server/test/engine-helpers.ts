import type { PanxClient } from '@panx/client';
import { sleep } from './data-helpers.js';

/**
 * Bash for test applets that need the API without the worker tools: `api SUBJECT METHOD JSON` and
 * `upload NAME PATH` (prints the new file's id; the file is created in the job's workspace).
 */
export const API_BASH = String.raw`
api() {
  curl -sS --fail-with-body -X POST "$DX_APISERVER_PROTOCOL://$DX_APISERVER_HOST:$DX_APISERVER_PORT/$1/$2" \
    -H "Authorization: Bearer $(jq -r .auth_token <<<"$DX_SECURITY_CONTEXT")" -H 'Content-Type: application/json' -d "$3"
}
upload() {
  local id url
  id=$(api file new "{\"project\":\"$DX_WORKSPACE_ID\",\"name\":\"$1\"}" | jq -r .id)
  url=$(api "$id" upload '{"index":1}' | jq -r .url)
  curl -sS -f -X PUT "$url" -H 'Content-Type: application/octet-stream' --data-binary @"$2" >/dev/null
  api "$id" close '{}' >/dev/null
  echo "$id"
}
`;

/**
 * An applet that uses the DNAnexus helpers the way real applets do: downloads its `text` input,
 * uploads an upper-cased copy as `upper`, and starts a subjob whose output is its `doubled` (42),
 * through a job-based reference. Run it with `{text: <a .txt file>}`.
 */
export const HELPERS_APPLET: AppletOptions = {
  name: 'helpers',
  inputSpec: [{ name: 'text', class: 'file', patterns: ['*.txt'] }],
  outputSpec: [
    { name: 'upper', class: 'file' },
    { name: 'doubled', class: 'int' },
  ],
  code: `main() {
  dx-download-all-inputs
  mkdir -p out/upper
  tr a-z A-Z < "$text_path" > "out/upper/$text_prefix.upper.txt"
  dx-upload-all-outputs
  sub=$(dx-jobutil-new-job double -ix=21)
  dx-jobutil-add-output doubled "$sub:y" --class jobref
}
double() {
  dx-jobutil-add-output y $((x * 2)) --class int
}`,
};

export interface AppletOptions {
  name?: string;
  code: string;
  inputSpec?: unknown[];
  outputSpec?: unknown[];
  interpreter?: 'bash' | 'python3';
  runSpec?: Record<string, unknown>;
  access?: Record<string, unknown>;
  ignoreReuse?: boolean;
}

export async function newApplet(client: PanxClient, project: string, options: AppletOptions): Promise<string> {
  const { id } = (await client.post('applet', 'new', {
    project,
    name: options.name ?? 'applet',
    dxapi: '1.0.0',
    inputSpec: options.inputSpec ?? [],
    outputSpec: options.outputSpec ?? [],
    runSpec: { interpreter: options.interpreter ?? 'bash', code: options.code, distribution: 'Ubuntu', release: '24.04', ...options.runSpec },
    ...(options.access ? { access: options.access } : {}),
    ...(options.ignoreReuse !== undefined ? { ignoreReuse: options.ignoreReuse } : {}),
  })) as { id: string };
  return id;
}

export type JobDescribe = Record<string, unknown> & { id: string; state: string };

export async function describeJob(client: PanxClient, id: string, options: Record<string, unknown> = {}): Promise<JobDescribe> {
  return (await client.post(id, 'describe', options)) as JobDescribe;
}

/** Waits until the job is in one of `states` (default: a terminal one). */
export async function waitForJob(
  client: PanxClient,
  id: string,
  states: string[] = ['done', 'failed', 'terminated'],
  timeoutMs = 60_000,
): Promise<JobDescribe> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await describeJob(client, id);
    if (states.includes(job.state)) return job;
    if (Date.now() > deadline) throw new Error(`${id} stayed ${job.state} (waiting for ${states.join('|')}): ${JSON.stringify(job).slice(0, 1500)}`);
    await sleep(100);
  }
}

export async function logOf(client: PanxClient, id: string, options: Record<string, unknown> = {}): Promise<{ source: string; level: string; msg: string }[]> {
  const { messages } = (await client.post(id, 'getLog', { limit: 10_000, ...options })) as { messages: { source: string; level: string; msg: string }[] };
  return messages;
}
