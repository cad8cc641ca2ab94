/**
 * The two ways the local executor runs a try give the same results: `inline` (the default; the
 * server prepares the try and starts only bash or python3, then reads the outcome from the try's
 * directory) and `process` (a Node job runner per try that talks to the API, as on Slurm).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from './data-helpers.js';
import { logOf, newApplet, waitForJob } from './engine-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

describe.each(['inline', 'process'] as const)('the local executor with runner: %s', (runner) => {
  let t: TestPlatform;
  let user: { id: string; client: PanxClient; token: string };
  let project: string;

  beforeAll(async () => {
    t = await startTestPlatform(undefined, { engine: { local: { cores: 16, memoryMB: 64_000, runner }, tickMs: 200, execDepends: 'check' } });
    user = await t.newUser();
    ({ id: project } = await user.client.call('project/new', { name: `runner ${runner}` }));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const run = async (applet: string, input: Record<string, unknown>) => ((await user.client.post(applet, 'run', { project, input })) as { id: string }).id;

  it('runs bash with the input variables and HOME files, and records job_output.json', async () => {
    const applet = await newApplet(user.client, project, {
      name: 'vars',
      inputSpec: [
        { name: 'who', class: 'string' },
        { name: 'reads', class: 'file' },
      ],
      outputSpec: [
        { name: 'summary', class: 'string' },
        { name: 'parent', class: 'string' },
      ],
      code: `main() {
  echo "who=$who reads=$reads_name prefix=$reads_prefix pwd=$(pwd)"
  test "$(pwd)" = "$HOME"
  test -f job_input.json && test -f dnanexus-job.json && test -d in && test -d out
  grep -q '"id": "applet-' dnanexus-executable.json && grep -q '"name": "summary"' dnanexus-executable.json
  parent=$(cat /proc/$PPID/comm)
  printf '{"summary": "%s/%s", "parent": "%s"}' "$who" "$reads_name" "$parent" > job_output.json
}`,
    });
    const reads = await uploadFile(user.client, project, [Buffer.from('@r\nACGT\n+\nIIII\n')], { name: 'sample_R1.fq' });
    const id = await run(applet, { who: 'world', reads: { $dnanexus_link: reads } });
    const job = await waitForJob(user.client, id);
    const log = await logOf(user.client, id);
    expect(job.state, JSON.stringify(log)).toBe('done');
    const output = job.output as { summary: string; parent: string };
    expect(output.summary).toBe('world/sample_R1.fq');
    // Inline, bash's parent is the executor's wrapper shell; otherwise the Node runner.
    expect(output.parent).toBe(runner === 'inline' ? 'sh' : 'node');
    expect(log.filter((line) => line.source === 'APP').map((line) => line.msg)[0]).toMatch(/^who=world reads=sample_R1\.fq prefix=sample_R1 pwd=\//);
    const system = log.filter((line) => line.source === 'SYSTEM').map((line) => line.msg);
    expect(system).toContain('Running main (bash)');
    expect(system).toContain('main finished');
    // The try's directory is removed once the job has ended (clean-up follows the state change).
    const tryDir = path.join(t.platform.config.engine.workDir ?? path.join(t.platform.config.dataDir, 'jobs'), id, 'try-0');
    await expect.poll(() => fs.existsSync(tryDir), { timeout: 10_000 }).toBe(false);
  });

  it('serves the dx helpers from a helper host: they work with no Node on the PATH', async () => {
    // Only bash and env are reachable: a helper that had to start Node would fail.
    const applet = await newApplet(user.client, project, {
      name: 'host',
      inputSpec: [{ name: 'reads', class: 'file' }],
      outputSpec: [
        { name: 'copy', class: 'file' },
        { name: 'count', class: 'int' },
      ],
      code: `main() {
  test -n "$PANX_HELPER_PORT" && test -r "$PANX_HELPER_KEY_FILE" && test -z "\${PANX_HELPER_KEY:-}"
  mkdir -p tools && ln -s "$(command -v env)" tools/env
  local bins
  bins=$(dirname "$(command -v dx-download-all-inputs)")
  helper() { PATH="$bins:$HOME/tools" "$@"; }
  helper dx-download-all-inputs
  mkdir -p out/copy && cp "$reads_path" out/copy/copy.fq
  helper dx-upload-all-outputs
  local id count
  id=$(echo "$reads" | sed 's/.*"\\(file-[^"]*\\)".*/\\1/')
  count=$(helper dx cat "$id" | wc -c)
  helper dx-jobutil-add-output count "$count" --class=int
}`,
    });
    const reads = await uploadFile(user.client, project, [Buffer.from('@r\nACGT\n+\nIIII\n')], { name: 'host_R1.fq' });
    const id = await run(applet, { reads: { $dnanexus_link: reads } });
    const job = await waitForJob(user.client, id);
    expect(job.state, JSON.stringify(await logOf(user.client, id))).toBe('done');
    expect((job.output as { count: number }).count).toBe(15);
    const copy = (job.output as { copy: { $dnanexus_link: string } }).copy.$dnanexus_link;
    expect(await user.client.call('file-xxxx/describe', copy, { project })).toMatchObject({ name: 'copy.fq', size: 15, state: 'closed' });
  });

  it('fails with the type and message of job_error.json, and with the exit code otherwise', async () => {
    const reported = await newApplet(user.client, project, {
      name: 'reports',
      code: `main() { echo '{"error": {"type": "AppError", "message": "bad input, says the app"}}' > job_error.json; exit 1; }`,
    });
    const crashed = await newApplet(user.client, project, { name: 'crashes', code: 'main() { exit 3; }' });
    const [a, b] = await Promise.all([run(reported, {}), run(crashed, {})]);
    expect(await waitForJob(user.client, a)).toMatchObject({ state: 'failed', failureReason: 'AppError', failureMessage: 'bad input, says the app' });
    const job = await waitForJob(user.client, b);
    expect(job).toMatchObject({ state: 'failed', failureReason: 'AppInternalError' });
    expect(job.failureMessage).toContain('exit code 3');
  });

  it('checks runSpec.execDepends before the entry point runs: present packages pass, a missing one fails the job naming it', async () => {
    const present = await newApplet(user.client, project, {
      name: 'depends-present',
      code: 'main() { echo ran; }',
      runSpec: { execDepends: [{ name: 'bash' }, { name: 'coreutils' }, { name: 'panx-no-such-package', stages: ['elsewhere'] }] },
    });
    const missing = await newApplet(user.client, project, {
      name: 'depends-missing',
      code: 'main() { echo never; }',
      runSpec: { execDepends: [{ name: 'bash' }, { name: 'panx-no-such-package' }] },
    });
    const [a, b] = await Promise.all([run(present, {}), run(missing, {})]);
    expect((await waitForJob(user.client, a)).state, JSON.stringify(await logOf(user.client, a))).toBe('done');
    const failed = await waitForJob(user.client, b);
    expect(failed).toMatchObject({ state: 'failed', failureReason: 'ExecutionError' });
    expect(failed.failureMessage).toContain('not installed on this worker: panx-no-such-package');
    expect((await logOf(user.client, b)).some((line) => line.msg === 'never')).toBe(false);
  });

  it('runs python3 through dxpy.run()', async () => {
    const python = await newApplet(user.client, project, {
      name: 'py',
      interpreter: 'python3',
      outputSpec: [{ name: 'n', class: 'int' }],
      code: `import dxpy

@dxpy.entry_point('main')
def main():
    return {'n': 42}

dxpy.run()
`,
    });
    const id = await run(python, {});
    const job = await waitForJob(user.client, id);
    expect(job.state, JSON.stringify(await logOf(user.client, id))).toBe('done');
    expect(job.output).toEqual({ n: 42 });
  });
});
