/**
 * What a job's token may do (DNAnexus's job security context): CONTRIBUTE in its workspace, the
 * applet's declared `access.project` in the project it was launched in (VIEW when not declared),
 * nothing in the launcher's other projects unless `access.allProjects` says so; and nothing at all
 * once the job is over. The applets try each call with the token the job got and report the error
 * types; the test also keeps the token and uses it after the job.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_BASH, logOf, newApplet, waitForJob } from './engine-helpers.js';
import { expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

const PROBE = `${API_BASH}
# The error type of a call (or "ok").
try() {
  local out
  if out=$(api "$@" 2>/dev/null); then echo ok; else jq -r '.error.type // "none"' <<<"$out"; fi
}
main() {
  jq -r .auth_token <<<"$DX_SECURITY_CONTEXT" > "$keep/token"
  dx-jobutil-add-output workspace_folder "$(try "$DX_WORKSPACE_ID" newFolder '{"folder":"/scratch"}')" --class string
  dx-jobutil-add-output project_describe "$(try "$DX_PROJECT_CONTEXT_ID" describe '{}')" --class string
  dx-jobutil-add-output project_folder "$(try "$DX_PROJECT_CONTEXT_ID" newFolder '{"folder":"/by-job"}')" --class string
  dx-jobutil-add-output other_describe "$(try "$other" describe '{}')" --class string
  dx-jobutil-add-output other_folder "$(try "$other" newFolder '{"folder":"/by-job"}')" --class string
}`;

const OUTPUTS = ['workspace_folder', 'project_describe', 'project_folder', 'other_describe', 'other_folder'];

describe('a job token acts only within its tree and the access its applet declares', () => {
  let t: TestPlatform;
  let user: { id: string; client: PanxClient };
  let project: string;
  let other: string;
  const keep = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-job-token-'));

  beforeAll(async () => {
    t = await startTestPlatform(undefined, { engine: { local: { cores: 8, memoryMB: 16_000 }, tickMs: 200 } });
    user = await t.newUser();
    ({ id: project } = await user.client.call('project/new', { name: 'launch' }));
    ({ id: other } = await user.client.call('project/new', { name: 'other' }));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(keep, { recursive: true, force: true });
  });

  const probe = async (access: Record<string, unknown> | undefined) => {
    const applet = await newApplet(user.client, project, {
      name: `probe-${JSON.stringify(access ?? {})}`,
      inputSpec: [
        { name: 'other', class: 'string' },
        { name: 'keep', class: 'string' },
      ],
      outputSpec: OUTPUTS.map((name) => ({ name, class: 'string' })),
      code: PROBE,
      access,
      ignoreReuse: true,
    });
    const { id } = (await user.client.post(applet, 'run', { project, input: { other, keep } })) as { id: string };
    const job = await waitForJob(user.client, id);
    expect(job.state, JSON.stringify(await logOf(user.client, id))).toBe('done');
    return { job, output: job.output as Record<string, string>, token: fs.readFileSync(path.join(keep, 'token'), 'utf8').trim() };
  };

  it('without declared access: CONTRIBUTE in the workspace, VIEW in the launch project, nothing elsewhere; the token dies with the job', async () => {
    const { output, token } = await probe(undefined);
    expect(output).toEqual({
      workspace_folder: 'ok',
      project_describe: 'ok',
      project_folder: 'PermissionDenied',
      // Out of the token's scope the project is not there at all, as for any caller who cannot see it.
      other_describe: 'ResourceNotFound',
      other_folder: 'ResourceNotFound',
    });
    // The user can do all of it; the job could not.
    await user.client.post(other, 'newFolder', { folder: '/by-user' });
    const after = createClient({ baseUrl: t.url, token, retries: 0 });
    await expectApiError(after.post(project, 'describe', {}), 'InvalidAuthentication');
  });

  it('with access.project CONTRIBUTE: it writes in the launch project, still nothing elsewhere', async () => {
    const { output } = await probe({ project: 'CONTRIBUTE' });
    expect(output).toMatchObject({ project_folder: 'ok', other_describe: 'ResourceNotFound', other_folder: 'ResourceNotFound' });
    expect(((await user.client.post(project, 'listFolder', { folder: '/' })) as { folders: string[] }).folders).toContain('/by-job');
  });

  it('with access.allProjects VIEW: it reads the launcher’s other projects but does not write there', async () => {
    const { output } = await probe({ allProjects: 'VIEW' });
    expect(output).toMatchObject({ other_describe: 'ok', other_folder: 'PermissionDenied' });
  });
});
