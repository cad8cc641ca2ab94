import type { PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_BASH, logOf, newApplet, waitForJob } from './engine-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

describe('the execution engine, end to end over HTTP', () => {
  let t: TestPlatform;
  let user: { id: string; client: PanxClient; token: string };
  let project: string;

  beforeAll(async () => {
    t = await startTestPlatform(undefined, { engine: { local: { cores: 16, memoryMB: 64_000 }, tickMs: 200 } });
    user = await t.newUser();
    ({ id: project } = await user.client.call('project/new', { name: 'engine' }));
  }, 60_000);
  afterAll(() => t?.close());

  it('runs a bash applet: input variables, log, output string and file copied to the project', async () => {
    const applet = await newApplet(user.client, project, {
      name: 'hello',
      inputSpec: [
        { name: 'who', class: 'string' },
        { name: 'times', class: 'int', default: 2 },
      ],
      outputSpec: [
        { name: 'greeting', class: 'string' },
        { name: 'report', class: 'file' },
      ],
      code: `${API_BASH}
main() {
  for i in $(seq 1 $times); do echo "hello $who $i"; done
  echo "to stderr" >&2
  echo "report for $who" > report.txt
  id=$(upload report.txt report.txt)
  jq -n --arg g "hello $who" --arg id "$id" '{greeting: $g, report: {"$dnanexus_link": $id}}' > job_output.json
}`,
    });
    const { id } = (await user.client.post(applet, 'run', { input: { who: 'world' }, project, folder: '/out' })) as { id: string };
    const job = await waitForJob(user.client, id);
    const log = await logOf(user.client, id);
    expect(job.state, JSON.stringify({ job, log }, null, 2)).toBe('done');
    expect(log.filter((line) => line.source === 'APP').map((line) => `${line.level} ${line.msg}`)).toEqual([
      'STDOUT hello world 1',
      'STDOUT hello world 2',
      'STDERR to stderr',
    ]);
    const output = job.output as { greeting: string; report: { $dnanexus_link: string } };
    expect(output.greeting).toBe('hello world');
    const file = (await user.client.post(output.report.$dnanexus_link, 'describe', { project })) as Record<string, unknown>;
    expect(file).toMatchObject({ name: 'report.txt', folder: '/out', state: 'closed', project });
  });
});
