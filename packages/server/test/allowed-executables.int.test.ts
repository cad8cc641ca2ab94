import { isApiError } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isExecutableAllowed } from '../src/modules/executables/executable-spec.js';
import { newApplet } from './engine-helpers.js';
import { BACKENDS, startTestPlatform, type TestPlatform } from './harness.js';

describe('the allowed-executables rule (SPEC §6)', () => {
  it('allows everything without a list, otherwise the id or the class-name combination', () => {
    const app = { id: 'app-v1', kind: 'app' as const, name: 'bwa', version: '1.0.0' };
    const applet = { id: 'applet-1', kind: 'applet' as const, name: 'qc' };
    expect(isExecutableAllowed(null, app)).toBe(true);
    expect(isExecutableAllowed(undefined, applet)).toBe(true);
    expect(isExecutableAllowed([], applet)).toBe(false);
    expect(isExecutableAllowed(['applet-1'], applet)).toBe(true);
    expect(isExecutableAllowed(['applet-qc'], applet)).toBe(true);
    expect(isExecutableAllowed(['app-qc'], applet)).toBe(false);
    expect(isExecutableAllowed(['app-v1'], app)).toBe(true);
    expect(isExecutableAllowed(['app-bwa'], app)).toBe(true);
    expect(isExecutableAllowed(['app-bwa/1.0.0'], app)).toBe(true);
    expect(isExecutableAllowed(['app-bwa/2.0.0', 'applet-bwa'], app)).toBe(false);
  });
});

describe.each(BACKENDS)('runs in a project with allowedExecutables ($name)', (backend) => {
  let t: TestPlatform;
  let user: Awaited<ReturnType<TestPlatform['newUser']>>;
  let project: string;
  let applet: string;
  let v1: string;
  let v2: string;

  beforeAll(async () => {
    t = await startTestPlatform(backend);
    user = await t.newUser();
    project = (await user.client.call('project/new', { name: 'restricted' })).id;
    applet = await newApplet(user.client, project, { name: 'allowed_applet', code: 'main() { :; }' });
    const version = async (number: string) => {
      const { id } = await t.admin.call('app/new', {
        name: 'allowed_app',
        version: number,
        runSpec: { interpreter: 'bash', code: 'main() { :; }', distribution: 'Ubuntu', release: '24.04' },
      });
      await t.admin.call('app-xxxx/publish', id, { makeDefault: true });
      await t.admin.call('app-xxxx/addAuthorizedUsers', id, { authorizedUsers: ['PUBLIC'] });
      return id;
    };
    v1 = await version('1.0.0');
    v2 = await version('2.0.0');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const restrict = (allowedExecutables: string[] | null) => user.client.call('project-xxxx/update', project, { allowedExecutables });
  const runApplet = () => user.client.call('applet-xxxx/run', applet, { project, input: {} });
  const runApp = (ref: string) => user.client.call('app-xxxx/run', ref, { project, input: {} });
  async function refused(call: Promise<unknown>): Promise<string> {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isApiError(error, 'PermissionDenied'), String(error)).toBe(true);
    return (error as Error).message;
  }

  it('allows an applet by id or applet-<name>, and refuses it otherwise, naming the list', async () => {
    await restrict([applet]);
    expect((await runApplet()).id).toMatch(/^job-/);
    await restrict(['applet-allowed_applet']);
    expect((await runApplet()).id).toMatch(/^job-/);
    await restrict([v1]);
    expect(await refused(runApplet())).toContain(v1);
    await restrict(null);
    expect((await runApplet()).id).toMatch(/^job-/);
  });

  it('allows app versions by id, app-<name>/<version> or app-<name> (every version)', async () => {
    await restrict([v1]);
    expect((await runApp(v1)).id).toMatch(/^job-/);
    await refused(runApp(v2));
    await refused(runApp('app-allowed_app'));
    await restrict(['app-allowed_app/2.0.0']);
    expect((await runApp('app-allowed_app')).id).toMatch(/^job-/);
    await refused(runApp(v1));
    await restrict(['app-allowed_app']);
    expect((await runApp(v1)).id).toMatch(/^job-/);
    expect((await runApp(v2)).id).toMatch(/^job-/);
    await restrict(null);
  });

  it('allows a workflow by id or workflow-<name>, and then its stages whatever they run', async () => {
    const { id: workflow } = await user.client.call('workflow/new', {
      project,
      name: 'allowed_workflow',
      stages: [
        { id: 'one', executable: applet },
        { id: 'two', executable: v1 },
      ],
    });
    const runWorkflow = () => user.client.call('workflow-xxxx/run', workflow, { project, input: {} });
    await restrict([applet, v1]);
    expect(await refused(runWorkflow())).toContain(applet);
    await restrict(['workflow-allowed_workflow']);
    const { id: analysis } = await runWorkflow();
    expect(analysis).toMatch(/^analysis-/);
    const described = (await user.client.call('analysis-xxxx/describe', analysis, {})) as { id: string; stages: { id: string; execution: { id: string } }[] };
    expect(described.stages.map((stage) => stage.execution.id)).toEqual([expect.stringMatching(/^job-/), expect.stringMatching(/^job-/)]);
    await restrict([workflow]);
    expect((await runWorkflow()).id).toMatch(/^analysis-/);
    await restrict(null);
  });
});
