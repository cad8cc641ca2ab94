/**
 * The execution engine on Slurm, end to end over HTTP: the same server as in engine.e2e with one
 * setting changed (`engine.executor: slurm`), against the single-node cluster of
 * scripts/ensure-slurm.sh. Each try is an sbatch job: with the process runner, a Node job runner
 * that talks to the API over HTTP; with the inline runner, only the entry point, in a directory the
 * server prepared (its dx helpers reach the server's helper host, as on a node of the server's own).
 * The applet uses the dx helpers, a subjob and a job-based reference, and what Slurm
 * granted each try (squeue, by the job name `panx-<job>-try<n>`) must be its instance type's cores
 * and memory. Without Slurm the suite fails, saying so, unless PANX_SKIP_SLURM=1.
 */
import { execFileSync } from 'node:child_process';
import type { PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGIONS } from '@panx/contract';
import { InstanceTypes } from '../src/modules/jobs/instance-types.js';
import { downloadBytes, uploadFile, waitUntil } from './data-helpers.js';
import { describeJob, HELPERS_APPLET, logOf, newApplet, waitForJob } from './engine-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

function slurmAnswers(): boolean {
  try {
    execFileSync('sinfo', ['-h', '-o', '%T'], { stdio: 'pipe', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

const skip = process.env.PANX_SKIP_SLURM === '1';

/** The Slurm jobs of a Panx job's try (Slurm keeps finished ones for MinJobAge): id, state, CPUs and memory per node. */
function slurmJobsOf(job: string, attempt = 0): { id: string; state: string; cpus: number; memoryMB: number }[] {
  const ids = execFileSync('squeue', ['-h', '--states=all', '-n', `panx-${job}-try${attempt}`, '-o', '%i'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean);
  return ids.map((id) => {
    const fields = Object.fromEntries(
      execFileSync('scontrol', ['show', 'job', '-o', id], { encoding: 'utf8' })
        .trim()
        .split(/\s+/)
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );
    // MinMemoryNode is printed as 3584M or 3.50G.
    const [, amount = 'NaN', unit = 'M'] = /^([0-9.]+)([MGT]?)$/.exec(fields.MinMemoryNode ?? '') ?? [];
    return {
      id,
      state: fields.JobState ?? '',
      cpus: Number(fields.NumCPUs),
      memoryMB: Math.round(Number(amount) * { M: 1, G: 1024, T: 1024 * 1024 }[unit as 'M']),
    };
  });
}

describe.skipIf(skip).each(['process', 'inline'] as const)('the execution engine on Slurm (engine.executor: slurm, %s runner), over HTTP', (runner) => {
  let t: TestPlatform;
  let user: { id: string; client: PanxClient };
  let project: string;

  beforeAll(async () => {
    if (!slurmAnswers()) throw new Error('Slurm does not answer: run scripts/ensure-slurm.sh (as root), or set PANX_SKIP_SLURM=1');
    t = await startTestPlatform(undefined, { engine: { executor: 'slurm', slurm: { pollMs: 100, statePollMs: 300, killGraceMs: 2000, runner }, tickMs: 200 } });
    user = await t.newUser();
    ({ id: project } = await user.client.call('project/new', { name: 'on slurm' }));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('runs an applet with the dx helpers, a subjob and a job-based reference; Slurm grants its instance type', async () => {
    const applet = await newApplet(user.client, project, HELPERS_APPLET);
    const text = await uploadFile(user.client, project, [Buffer.from('shout this\n')], { name: 'quiet.txt' });
    const { id } = (await user.client.post(applet, 'run', {
      project,
      input: { text: { $dnanexus_link: text } },
      folder: '/slurm',
      systemRequirements: { '*': { instanceType: 'mem2_ssd1_x1' } },
    })) as { id: string };
    const job = await waitForJob(user.client, id, undefined, 180_000);
    expect(job.state, JSON.stringify(await logOf(user.client, id, { recurseJobs: true }))).toBe('done');
    const output = job.output as { upper: { $dnanexus_link: string }; doubled: number };
    expect(output.doubled).toBe(42);
    expect((await downloadBytes(user.client, output.upper.$dnanexus_link, project)).toString()).toBe('SHOUT THIS\n');
    expect(await user.client.post(output.upper.$dnanexus_link, 'describe', { project })).toMatchObject({ name: 'quiet.upper.txt', folder: '/slurm' });
    // Each job of the tree ran as one Slurm job, granted the instance type's cores and memory.
    const type = new InstanceTypes(undefined).find(REGIONS[0] as string, 'mem2_ssd1_x1');
    const tree = (await user.client.post('system', 'findJobs', { rootExecution: [id], describe: { fields: { instanceType: true } } })) as {
      results: { id: string; describe: { instanceType: string } }[];
    };
    expect(tree.results).toHaveLength(2);
    for (const entry of tree.results) {
      expect(entry.describe.instanceType).toBe('mem2_ssd1_x1');
      expect(slurmJobsOf(entry.id)).toEqual([{ id: expect.stringMatching(/^[0-9]+$/), state: 'COMPLETED', cpus: type?.cores, memoryMB: type?.memoryMB }]);
    }
  }, 200_000);

  it('terminates a job running on Slurm: the job ends terminated and Slurm no longer runs it', async () => {
    const applet = await newApplet(user.client, project, {
      name: 'sleeper',
      outputSpec: [],
      code: `main() { echo sleeping; sleep 300; }`,
    });
    const { id } = (await user.client.post(applet, 'run', { project, input: {} })) as { id: string };
    try {
      await waitUntil('the job sleeps on Slurm', async () => (await logOf(user.client, id)).some((entry) => entry.msg === 'sleeping'), 120_000);
      expect((await describeJob(user.client, id)).state).toBe('running');
      expect(slurmJobsOf(id).map((entry) => entry.state)).toEqual(['RUNNING']);
      await user.client.post(id, 'terminate', {});
      expect((await waitForJob(user.client, id, undefined, 60_000)).state).toBe('terminated');
      await waitUntil('Slurm no longer runs the job', async () => slurmJobsOf(id).every((entry) => entry.state !== 'RUNNING'), 30_000);
    } finally {
      // Never leave a sleeper holding the test cluster's cores.
      for (const entry of slurmJobsOf(id)) if (entry.state === 'RUNNING' || entry.state === 'PENDING') execFileSync('scancel', [entry.id]);
    }
  }, 200_000);
});
