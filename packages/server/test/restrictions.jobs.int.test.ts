import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from './data-helpers.js';
import { API_BASH, newApplet, waitForJob } from './engine-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

/** Data of a downloadRestricted project cannot be laundered into another project through a job. */
describe('project restrictions through jobs (sqlite+local)', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(undefined, { engine: { tickMs: 200 } });
  }, 60_000);
  afterAll(() => t?.close());

  it('lets a job read restricted inputs and write new outputs, but not hand the inputs out', async () => {
    const user = await t.newUser();
    const { id: restricted } = await user.client.call('project/new', { name: 'restricted', downloadRestricted: true });
    const { id: mine } = await user.client.call('project/new', { name: 'mine' });
    const secret = await uploadFile(user.client, restricted, [Buffer.from('restricted bytes')], { name: 'secret.txt' });
    const outputSpec = [{ name: 'out', class: 'file' }];
    const inputSpec = [{ name: 'f', class: 'file' }];
    const passOn = await newApplet(user.client, mine, { name: 'pass-on', inputSpec, outputSpec, code: `main() { echo "{\\"out\\": $f}" > job_output.json; }` });
    const derive = await newApplet(user.client, mine, {
      name: 'derive',
      inputSpec,
      outputSpec,
      code: `${API_BASH}
main() { echo derived > derived.txt; id=$(upload derived.txt derived.txt); printf '{"out": {"$dnanexus_link": "%s"}}' "$id" > job_output.json; }`,
    });
    const input = { f: { $dnanexus_link: { project: restricted, id: secret } } };
    const run = async (applet: string) => ((await user.client.post(applet, 'run', { project: mine, input, ignoreReuse: true })) as { id: string }).id;

    const laundered = await waitForJob(user.client, await run(passOn));
    expect(laundered.state).toBe('failed');
    expect(String(laundered.failureMessage)).toContain('restricts downloads');
    expect((await user.client.call('project-xxxx/listFolder', mine, {})).objects.map((o) => o.id)).not.toContain(secret);

    const derived = await waitForJob(user.client, await run(derive));
    expect(derived.state).toBe('done');
    const workspace = String(derived.workspace);
    const container = await t.platform.stores.projects.findById(workspace);
    if (container) expect(JSON.parse(container.settings).downloadRestricted).toBe(true);
  });
});
