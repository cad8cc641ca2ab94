/**
 * The execution engine end to end over HTTP, on the local executor: applets built with applet/new
 * run as real processes, and everything is observed through the API (describe, getLog, the log
 * websocket, the project's data).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { downloadBytes, uploadFile, waitUntil } from './data-helpers.js';
import { API_BASH, describeJob, HELPERS_APPLET, logOf, newApplet, waitForJob } from './engine-helpers.js';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

/** Jobs are slow to run twice on two cores: SQLite by default, every backend with PANX_ENGINE_ALL_BACKENDS=1. */
const ENGINE_BACKENDS = process.env.PANX_ENGINE_ALL_BACKENDS === '1' ? BACKENDS : BACKENDS.slice(0, 1);

/**
 * Whether a process still runs. A killed process whose parent died too waits as a zombie until PID 1
 * reaps it, and this sandbox's PID 1 may never do so: a zombie counts as gone.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe.each(ENGINE_BACKENDS)('the execution engine, end to end over HTTP on $name', (backend) => {
  let t: TestPlatform;
  let user: { id: string; client: PanxClient; token: string };
  let project: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-engine-'));

  beforeAll(async () => {
    t = await startTestPlatform(backend, { engine: { local: { cores: 16, memoryMB: 64_000 }, tickMs: 200 } });
    user = await t.newUser();
    ({ id: project } = await user.client.call('project/new', { name: 'engine' }));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const run = async (applet: string, body: Record<string, unknown>) => ((await user.client.post(applet, 'run', { project, ...body })) as { id: string }).id;

  it('runs a bash applet: input variables, log, output string and file copied to the project', async () => {
    const applet = await newApplet(user.client, project, {
      name: 'hello',
      inputSpec: [
        { name: 'who', class: 'string' },
        { name: 'times', class: 'int', default: 2 },
        { name: 'reads', class: 'array:file', optional: true, patterns: ['*.fq'] },
      ],
      outputSpec: [
        { name: 'greeting', class: 'string' },
        { name: 'report', class: 'file' },
      ],
      code: `${API_BASH}
main() {
  for i in $(seq 1 $times); do echo "hello $who $i"; done
  echo "to stderr" >&2
  echo "reads: \${reads_name[*]} / \${reads_prefix[*]} / $(basename "\${reads_path[1]}")"
  echo "report for $who" > report.txt
  id=$(upload report.txt report.txt)
  jq -n --arg g "hello $who" --arg id "$id" '{greeting: $g, report: {"$dnanexus_link": $id}}' > job_output.json
}`,
    });
    const described = (await user.client.post(applet, 'describe', { project })) as Record<string, unknown>;
    expect(described).toMatchObject({ class: 'applet', name: 'hello', state: 'closed', dxapi: '1.0.0', runSpec: { interpreter: 'bash' } });
    expect((described.runSpec as Record<string, unknown>).code).toBeUndefined();
    expect(((await user.client.post(applet, 'get', {})) as { runSpec: { code: string } }).runSpec.code).toContain('main()');

    const a = await uploadFile(user.client, project, [Buffer.from('@r1\nACGT\n+\nIIII\n')], { name: 'a.fq' });
    const b = await uploadFile(user.client, project, [Buffer.from('@r2\nTTTT\n+\nIIII\n')], { name: 'b.fq' });
    const id = await run(applet, { input: { who: 'world', reads: [{ $dnanexus_link: a }, { $dnanexus_link: { project, id: b } }] }, folder: '/out' });
    const job = await waitForJob(user.client, id);
    const log = await logOf(user.client, id);
    expect(job.state, JSON.stringify({ job, log }, null, 2)).toBe('done');
    // Lines keep their order within each stream (stdout and stderr are read separately).
    const app = (level: string) => log.filter((line) => line.source === 'APP' && line.level === level).map((line) => line.msg);
    expect(app('STDOUT')).toEqual(['hello world 1', 'hello world 2', 'reads: a.fq b.fq / a b / b.fq']);
    expect(app('STDERR')).toEqual(['to stderr']);
    expect(log.some((line) => line.source === 'SYSTEM')).toBe(true);
    expect(job).toMatchObject({
      class: 'job',
      function: 'main',
      applet,
      project,
      folder: '/out',
      launchedBy: user.id,
      rootExecution: id,
      originJob: id,
      parentJob: null,
      try: 0,
      instanceType: 'mem2_hdd2_x2',
      runInput: { who: 'world' },
      originalInput: { who: 'world', times: 2 },
      input: { who: 'world', times: 2, reads: [{ $dnanexus_link: a }, { $dnanexus_link: b }] },
    });
    expect((job.workspace as string).startsWith('container-')).toBe(true);
    expect((job.stateTransitions as { newState: string }[]).map((s) => s.newState)).toEqual(['idle', 'runnable', 'running', 'waiting_on_output', 'done']);
    expect(job.startedRunning).toBeTypeOf('number');
    expect(job.totalPrice).toBeGreaterThan(0);
    const output = job.output as { greeting: string; report: { $dnanexus_link: string } };
    expect(output.greeting).toBe('hello world');
    const file = (await user.client.post(output.report.$dnanexus_link, 'describe', { project })) as Record<string, unknown>;
    expect(file).toMatchObject({ name: 'report.txt', folder: '/out', state: 'closed', project });
    expect((await downloadBytes(user.client, output.report.$dnanexus_link, project)).toString()).toBe('report for world\n');
    // The tree is finished: its workspace is gone, its token revoked.
    await expectApiError(user.client.post(job.workspace as string, 'describe', {}), 'ResourceNotFound');

    const found = (await user.client.post('system', 'findJobs', { project, describe: { fields: { state: true, name: true } } })) as {
      results: { id: string; describe: { state: string } }[];
    };
    expect(found.results.find((entry) => entry.id === id)?.describe.state).toBe('done');
    const executions = (await user.client.post('system', 'findExecutions', { originJob: [id], describe: true })) as { results: unknown[] };
    expect(executions.results).toHaveLength(1);
  });

  it('gives jobs the DNAnexus helpers: dx-download-all-inputs, dx-upload-all-outputs, dx-jobutil-new-job and -add-output', async () => {
    const applet = await newApplet(user.client, project, HELPERS_APPLET);
    const text = await uploadFile(user.client, project, [Buffer.from('shout this\n')], { name: 'quiet.txt' });
    const job = await waitForJob(user.client, await run(applet, { input: { text: { $dnanexus_link: text } }, folder: '/helpers' }));
    expect(job.state, JSON.stringify(await logOf(user.client, job.id, { recurseJobs: true }))).toBe('done');
    const output = job.output as { upper: { $dnanexus_link: string }; doubled: number };
    expect(output.doubled).toBe(42);
    expect(await user.client.post(output.upper.$dnanexus_link, 'describe', { project })).toMatchObject({ name: 'quiet.upper.txt', folder: '/helpers' });
    expect((await downloadBytes(user.client, output.upper.$dnanexus_link, project)).toString()).toBe('SHOUT THIS\n');
  });

  it('runs a python3 applet through dxpy.run()', async () => {
    const applet = await newApplet(user.client, project, {
      name: 'py',
      interpreter: 'python3',
      inputSpec: [{ name: 'n', class: 'int' }],
      outputSpec: [{ name: 'double', class: 'int' }],
      code: `import dxpy

@dxpy.entry_point("main")
def main(n):
    print("doubling", n)
    return {"double": n * 2}

dxpy.run()
`,
    });
    const job = await waitForJob(user.client, await run(applet, { input: { n: 21 } }));
    expect(job.state, JSON.stringify(await logOf(user.client, job.id))).toBe('done');
    expect(job.output).toEqual({ double: 42 });
    expect((await logOf(user.client, job.id)).map((line) => line.msg)).toContain('doubling 21');
  });

  it('scatters to 8 subjobs and gathers their outputs through job-based references', async () => {
    const applet = await newApplet(user.client, project, {
      name: 'scatter',
      inputSpec: [{ name: 'n', class: 'int' }],
      outputSpec: [{ name: 'total', class: 'int' }],
      code: `${API_BASH}
main() {
  refs=()
  for i in $(seq 1 $n); do
    sub=$(api job new "{\\"function\\":\\"square\\",\\"input\\":{\\"x\\":$i}}" | jq -r .id)
    refs+=("{\\"\\$dnanexus_link\\":{\\"job\\":\\"$sub\\",\\"field\\":\\"square\\"}}")
  done
  parts=$(IFS=,; echo "[\${refs[*]}]")
  gather=$(api job new "{\\"function\\":\\"gather\\",\\"input\\":{\\"parts\\":$parts}}" | jq -r .id)
  echo "{\\"total\\":{\\"job\\":\\"$gather\\",\\"field\\":\\"sum\\"}}" > job_output.json
}
square() {
  echo "squaring $x"
  echo "{\\"square\\": $((x * x))}" > job_output.json
}
gather() {
  sum=0
  for p in "\${parts[@]}"; do sum=$((sum + p)); done
  echo "{\\"sum\\": $sum}" > job_output.json
}`,
    });
    const id = await run(applet, { input: { n: 8 } });
    const job = await waitForJob(user.client, id, undefined, 120_000);
    const failedFrom = (job.failureFrom as { id?: string } | null)?.id;
    expect(job.state, JSON.stringify(await logOf(user.client, failedFrom ?? id))).toBe('done');
    expect(job.output).toEqual({ total: 204 });
    const tree = (await user.client.post('system', 'findJobs', { rootExecution: [id], describe: true, limit: 100 })) as {
      results: { id: string; describe: Record<string, unknown> }[];
    };
    expect(tree.results).toHaveLength(10);
    const subjobs = tree.results.filter((entry) => entry.id !== id).map((entry) => entry.describe);
    for (const sub of subjobs) {
      expect(sub).toMatchObject({ state: 'done', parentJob: id, originJob: id, rootExecution: id, workspace: job.workspace, project });
    }
    expect(subjobs.filter((sub) => sub.function === 'square')).toHaveLength(8);
    const gather = subjobs.find((sub) => sub.function === 'gather');
    expect(gather?.input).toEqual({ parts: [1, 4, 9, 16, 25, 36, 49, 64] });
    // The root's price includes its subjobs'.
    const prices = subjobs.map((sub) => sub.totalPrice as number);
    expect(job.totalPrice as number).toBeGreaterThan(Math.max(...prices));
  }, 150_000);

  it('waits on job-based references to another job tree, and on input files still open', async () => {
    const gate = path.join(scratch, 'gate');
    const producer = await newApplet(user.client, project, {
      name: 'producer',
      inputSpec: [{ name: 'gate', class: 'string' }],
      outputSpec: [{ name: 'value', class: 'int' }],
      code: `main() { while [ ! -e "$gate" ]; do sleep 0.1; done; echo '{"value": 42}' > job_output.json; }`,
    });
    const consumer = await newApplet(user.client, project, {
      name: 'consumer',
      inputSpec: [
        { name: 'x', class: 'int' },
        { name: 'data', class: 'file', optional: true },
      ],
      outputSpec: [{ name: 'seen', class: 'string' }],
      code: `main() { echo "{\\"seen\\": \\"$x\${data_name:+ $data_name}\\"}" > job_output.json; }`,
    });
    const first = await run(producer, { input: { gate } });
    const second = await run(consumer, { input: { x: { $dnanexus_link: { job: first, field: 'value' } } } });
    await waitForJob(user.client, second, ['waiting_on_input']);
    fs.writeFileSync(gate, '');
    expect((await waitForJob(user.client, second)).output).toEqual({ seen: '42' });

    const { id: open } = await user.client.call('file/new', { project, name: 'late.txt' });
    const third = await run(consumer, { input: { x: 1, data: { $dnanexus_link: open } } });
    await waitForJob(user.client, third, ['waiting_on_input']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await describeJob(user.client, third)).state).toBe('waiting_on_input');
    await user.client.call('file-xxxx/close', open, {});
    expect((await waitForJob(user.client, third)).output).toEqual({ seen: '1 late.txt' });
  });

  it('restarts a failed try when executionPolicy says so; each try keeps its log and times', async () => {
    const marker = path.join(scratch, 'tried');
    const applet = await newApplet(user.client, project, {
      name: 'flaky',
      inputSpec: [{ name: 'marker', class: 'string' }],
      outputSpec: [{ name: 'ok', class: 'boolean' }],
      code: `main() {
  if [ ! -e "$marker" ]; then touch "$marker"; echo "first try fails"; exit 3; fi
  echo "second try works"; echo '{"ok": true}' > job_output.json
}`,
    });
    const id = await run(applet, { input: { marker }, executionPolicy: { restartOn: { AppInternalError: 1 } } });
    const job = await waitForJob(user.client, id);
    expect(job).toMatchObject({ state: 'done', try: 1, output: { ok: true } });
    const firstTry = await describeJob(user.client, id, { try: 0 });
    expect(firstTry).toMatchObject({ state: 'failed', try: 0, failureReason: 'AppInternalError' });
    expect(firstTry.startedRunning).toBeTypeOf('number');
    expect(firstTry.stoppedRunning as number).toBeLessThanOrEqual(job.startedRunning as number);
    const firstLog = (await logOf(user.client, id, { try: 0 })).map((line) => line.msg);
    const secondLog = (await logOf(user.client, id)).map((line) => line.msg);
    expect(firstLog).toContain('first try fails');
    expect(firstLog).not.toContain('second try works');
    expect(secondLog).toContain('second try works');

    // Without a policy the same failure fails the job, with DNAnexus's reason and message.
    fs.rmSync(marker);
    const failed = await waitForJob(user.client, await run(applet, { input: { marker }, ignoreReuse: true }));
    expect(failed).toMatchObject({ state: 'failed', try: 0, failureReason: 'AppInternalError' });
    expect(failed.failureMessage).toMatch(/Error while running the command/);

    const reporting = await newApplet(user.client, project, {
      name: 'reporter',
      code: `main() { echo '{"error": {"type": "AppError", "message": "bad reads"}}' > job_error.json; exit 1; }`,
    });
    expect(await waitForJob(user.client, await run(reporting, { input: {} }))).toMatchObject({
      state: 'failed',
      failureReason: 'AppError',
      failureMessage: 'bad reads',
    });
  });

  it('fails a try that runs past its timeout policy (and restarts it when the policy says so)', async () => {
    const applet = await newApplet(user.client, project, {
      name: 'slow',
      runSpec: { timeoutPolicy: { '*': { minutes: 0.01 } } },
      code: 'main() { echo slow; sleep 30; }',
    });
    const job = await waitForJob(user.client, await run(applet, { input: {}, ignoreReuse: true }), undefined, 30_000);
    expect(job).toMatchObject({ state: 'failed', failureReason: 'JobTimeoutExceeded', timeout: 600 });
    const retried = await waitForJob(
      user.client,
      await run(applet, { input: {}, ignoreReuse: true, executionPolicy: { restartOn: { JobTimeoutExceeded: 1 } } }),
      undefined,
      30_000,
    );
    expect(retried).toMatchObject({ state: 'failed', failureReason: 'JobTimeoutExceeded', try: 1 });
  });

  it('terminates a running tree: every job ends terminated and its processes die', async () => {
    const pids = path.join(scratch, 'pids');
    fs.mkdirSync(pids);
    const applet = await newApplet(user.client, project, {
      name: 'sleeper',
      inputSpec: [{ name: 'dir', class: 'string' }],
      code: `${API_BASH}
main() {
  for i in 1 2; do api job new '{"function":"nap","input":{"dir":"'"$dir"'"}}' >/dev/null; done
}
nap() { sleep 300 & echo $! > "$dir/$DX_JOB_ID"; wait; }`,
    });
    const id = await run(applet, { input: { dir: pids } });
    await waitUntil('both subjobs sleep', async () => fs.readdirSync(pids).length === 2, 30_000);
    const sleepers = fs.readdirSync(pids).map((name) => Number(fs.readFileSync(path.join(pids, name), 'utf8')));
    expect(sleepers.every(alive)).toBe(true);
    await user.client.post(id, 'terminate', {});
    const root = await waitForJob(user.client, id);
    expect(root).toMatchObject({ state: 'terminated', failureReason: 'Terminated' });
    for (const name of fs.readdirSync(pids)) expect((await waitForJob(user.client, name)).state).toBe('terminated');
    await waitUntil('the sleeping processes are gone', async () => !sleepers.some(alive), 10_000);
  });

  it('reuses an identical finished job unless told not to', async () => {
    const applet = await newApplet(user.client, project, {
      name: 'deterministic',
      inputSpec: [{ name: 'word', class: 'string' }],
      outputSpec: [{ name: 'upper', class: 'string' }],
      code: `main() { echo "{\\"upper\\": \\"\${word^^}\\"}" > job_output.json; }`,
    });
    const first = await waitForJob(user.client, await run(applet, { input: { word: 'abc' } }));
    expect(first.output).toEqual({ upper: 'ABC' });
    const again = await waitForJob(user.client, await run(applet, { input: { word: 'abc' }, folder: '/elsewhere' }));
    expect(again).toMatchObject({ state: 'done', output: { upper: 'ABC' }, outputReusedFrom: first.id, startedRunning: null });
    const fresh = await waitForJob(user.client, await run(applet, { input: { word: 'abc' }, ignoreReuse: true }));
    expect(fresh).toMatchObject({ state: 'done', outputReusedFrom: null });
    expect(fresh.startedRunning).toBeTypeOf('number');
  });

  it('stops a tree at its cost limit, and refuses runs past the monthly compute limit', async () => {
    const applet = await newApplet(user.client, project, { name: 'long', code: 'main() { sleep 60; }' });
    const id = await run(applet, { input: {}, costLimit: 0.00003, ignoreReuse: true });
    const job = await waitForJob(user.client, id, undefined, 30_000);
    expect(job).toMatchObject({ state: 'failed', failureReason: 'CostLimitExceeded', costLimit: 0.00003 });
    expect(job.totalPrice as number).toBeGreaterThanOrEqual(0.00003);

    const { id: limited } = await user.client.call('project/new', { name: 'limited', monthlyComputeLimit: 0.00002 });
    const inLimited = await newApplet(user.client, limited, { name: 'long', code: 'main() { sleep 60; }' });
    const spender = ((await user.client.post(inLimited, 'run', { project: limited, input: {} })) as { id: string }).id;
    expect((await waitForJob(user.client, spender, undefined, 30_000)).failureReason).toBe('SpendingLimitExceeded');
    await expectApiError(user.client.post(inLimited, 'run', { project: limited, input: {} }), 'SpendingLimitExceeded');
  });

  it('refuses bad input with InvalidInput naming the field', async () => {
    const applet = await newApplet(user.client, project, {
      name: 'strict',
      inputSpec: [
        { name: 'reads', class: 'file', patterns: ['*.fq'] },
        { name: 'k', class: 'int', choices: [21, 31] },
        { name: 'label', class: 'string', optional: true },
      ],
      code: 'main() { :; }',
    });
    const reads = await uploadFile(user.client, project, [Buffer.from('x')], { name: 'r.fq' });
    const notReads = await uploadFile(user.client, project, [Buffer.from('x')], { name: 'r.bam' });
    const other = await t.newUser();
    const { id: otherProject } = await other.client.call('project/new', { name: 'private' });
    const secret = await uploadFile(other.client, otherProject, [Buffer.from('x')], { name: 's.fq' });
    const link = (id: string) => ({ $dnanexus_link: id });
    const cases: [Record<string, unknown>, string][] = [
      [{ input: { k: 21 } }, '"reads"'],
      [{ input: { reads: link(reads), k: '21' } }, '"k"'],
      [{ input: { reads: link(reads), k: 25 } }, '"k"'],
      [{ input: { reads: 'r.fq', k: 21 } }, '"reads"'],
      [{ input: { reads: link(notReads), k: 21 } }, '"reads"'],
      [{ input: { reads: link(secret), k: 21 } }, '"reads"'],
      [{ input: { reads: link('file-BBBBBBBBBBBBBBBBBBBBBBBB'), k: 21 } }, '"reads"'],
      [{ input: { reads: link(reads), k: 21, extra: 1 } }, '"extra"'],
      [{ input: { reads: link(reads), k: 21 }, systemRequirements: { '*': { instanceType: 'mem9_huge_x999' } } }, 'instanceType'],
      [{ input: { reads: link(reads), k: 21 }, dependsOn: ['job-BBBBBBBBBBBBBBBBBBBBBBBB'] }, 'dependsOn'],
    ];
    for (const [body, field] of cases) await expectApiError(user.client.post(applet, 'run', { project, ...body }), 'InvalidInput', field);
    await expectApiError(other.client.post(applet, 'run', { project: otherProject, input: {} }), 'ResourceNotFound');
    await expectApiError(user.client.post('job', 'new', { function: 'x' }), 'PermissionDenied');

    // A subjob that would wait on its own parent is a cycle.
    const cyclic = await newApplet(user.client, project, {
      name: 'cyclic',
      outputSpec: [{ name: 'answer', class: 'string' }],
      code: `main() {
  answer=$(curl -sS -X POST "$DX_APISERVER_PROTOCOL://$DX_APISERVER_HOST:$DX_APISERVER_PORT/job/new" \\
    -H "Authorization: Bearer $(jq -r .auth_token <<<"$DX_SECURITY_CONTEXT")" -H 'Content-Type: application/json' \\
    -d '{"function":"main","dependsOn":["'"$DX_JOB_ID"'"]}')
  jq -n --arg a "$answer" '{answer: $a}' > job_output.json
}`,
    });
    const job = await waitForJob(user.client, await run(cyclic, { input: {} }));
    const answer = JSON.parse((job.output as { answer: string }).answer) as { error: { type: string; message: string } };
    expect(answer.error.type).toBe('InvalidInput');
    expect(answer.error.message).toContain('dependsOn');
  });

  it('streams the log over the websocket as dx watch reads it, ending with END_LOG', async () => {
    const gate = path.join(scratch, 'watch-gate');
    const applet = await newApplet(user.client, project, {
      name: 'chatty',
      inputSpec: [{ name: 'gate', class: 'string' }],
      code: `main() { echo before; while [ ! -e "$gate" ]; do sleep 0.1; done; echo after; echo oops >&2; }`,
    });
    const id = await run(applet, { input: { gate } });
    await waitForJob(user.client, id, ['running']);
    const socket = new WebSocket(`${t.url.replace(/^http/, 'ws')}/${id}/getLog/websocket`);
    const frames: { source: string; level: string; msg: string; job: string }[] = [];
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    socket.on('message', (data) => frames.push(JSON.parse(String(data))));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(
      JSON.stringify({ access_token: user.token, token_type: 'Bearer', numRecentMessages: 262144, recurseJobs: false, tail: true, metricsFormat: 'text' }),
    );
    await waitUntil('the first line arrives', async () => frames.some((frame) => frame.msg === 'before'), 20_000);
    fs.writeFileSync(gate, '');
    expect(await closed).toBe(1000);
    const app = frames.filter((frame) => frame.source === 'APP').map((frame) => `${frame.level} ${frame.msg}`);
    expect(app).toEqual(['STDOUT before', 'STDOUT after', 'STDERR oops']);
    expect(frames[frames.length - 1]).toMatchObject({ source: 'SYSTEM', msg: 'END_LOG' });
    expect(frames.every((frame) => frame.job === id)).toBe(true);

    const refused = new WebSocket(`${t.url.replace(/^http/, 'ws')}/${id}/getLog/websocket`);
    const refusal = new Promise<{ code: number; reason: string }>((resolve) =>
      refused.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
    await new Promise((resolve) => refused.once('open', resolve));
    refused.send(JSON.stringify({ access_token: 'wrong', token_type: 'Bearer' }));
    const { code, reason } = await refusal;
    expect(code).not.toBe(1000);
    expect(JSON.parse(reason).type).toBe('InvalidAuthentication');
  });

  it('publishes apps, which authorized users run by name, version or tag', async () => {
    const { id: appId } = (await user.client.post('app', 'new', {
      name: `greeter${Date.now().toString(36)}`,
      version: '1.0.0',
      title: 'Greeter',
      categories: ['Demo'],
      inputSpec: [{ name: 'who', class: 'string' }],
      outputSpec: [{ name: 'greeting', class: 'string' }],
      runSpec: { interpreter: 'bash', code: 'main() { echo "{\\"greeting\\": \\"hi $who\\"}" > job_output.json; }' },
    })) as { id: string };
    const app = (await user.client.post(appId, 'describe', {})) as { name: string; version: string; published: number };
    expect(app).toMatchObject({ version: '1.0.0', published: 0, title: 'Greeter', categories: ['Demo'] });
    const other = await t.newUser();
    await expectApiError(other.client.post(`app-${app.name}`, 'describe', {}), 'ResourceNotFound');
    await user.client.post(appId, 'publish', { makeDefault: true });
    await user.client.post(appId, 'addAuthorizedUsers', { authorizedUsers: [other.id] });
    expect(((await other.client.post(`app-${app.name}`, 'describe', {})) as { id: string }).id).toBe(appId);
    expect(((await other.client.post(`app-${app.name}/1.0.0`, 'describe', {})) as { id: string }).id).toBe(appId);
    expect(((await other.client.post(`app-${app.name}/default`, 'describe', {})) as { id: string }).id).toBe(appId);
    const found = (await other.client.post('system', 'findApps', { name: app.name, describe: true })) as { results: { id: string }[] };
    expect(found.results.map((entry) => entry.id)).toEqual([appId]);
    await other.client.post(`app-${app.name}`, 'install', {});
    expect(((await other.client.post(appId, 'describe', {})) as { installed: boolean }).installed).toBe(true);

    const { id: otherProject } = await other.client.call('project/new', { name: 'runs apps' });
    const { id } = (await other.client.post(`app-${app.name}`, 'run', { project: otherProject, input: { who: 'you' } })) as { id: string };
    expect(await waitForJob(other.client, id)).toMatchObject({ state: 'done', app: appId, output: { greeting: 'hi you' } });
    expect(await user.client.post('system', 'findGlobalWorkflows', {})).toEqual({ results: [], next: null });

    // A second version, published without becoming the default; a tag of the developer's own.
    const { id: newer } = (await user.client.post('app', 'new', {
      name: app.name,
      version: '1.1.0',
      inputSpec: [{ name: 'who', class: 'string' }],
      outputSpec: [{ name: 'greeting', class: 'string' }],
      runSpec: { interpreter: 'bash', code: 'main() { echo "{\\"greeting\\": \\"hello $who\\"}" > job_output.json; }' },
    })) as { id: string };
    await user.client.post(newer, 'publish', {});
    await user.client.post(newer, 'addTags', { tags: ['beta'] });
    const resolve = async (ref: string) => ((await other.client.post(ref, 'describe', {})) as { id: string }).id;
    expect(await resolve(`app-${app.name}`)).toBe(appId);
    expect(await resolve(`app-${app.name}/1.1.0`)).toBe(newer);
    expect(await resolve(`app-${app.name}/beta`)).toBe(newer);
    const { id: beta } = (await other.client.post(`app-${app.name}/beta`, 'run', { project: otherProject, input: { who: 'you' } })) as { id: string };
    expect(await waitForJob(other.client, beta)).toMatchObject({ state: 'done', app: newer, output: { greeting: 'hello you' } });
    await user.client.post(newer, 'removeTags', { tags: ['beta'] });
    await expectApiError(other.client.post(`app-${app.name}/beta`, 'describe', {}), 'ResourceNotFound');

    // Categories, uninstalling, and taking an authorized user away.
    await user.client.post(appId, 'addCategories', { categories: ['Variation Calling'] });
    await user.client.post(appId, 'removeCategories', { categories: ['Demo'] });
    expect(await user.client.post(appId, 'listCategories', {})).toEqual({ categories: ['Variation Calling'] });
    await other.client.post(`app-${app.name}`, 'uninstall', {});
    expect(((await other.client.post(appId, 'describe', {})) as { installed: boolean }).installed).toBe(false);
    await expectApiError(other.client.post(appId, 'addCategories', { categories: ['Mine'] }), 'PermissionDenied');
    await user.client.post(appId, 'removeAuthorizedUsers', { authorizedUsers: [other.id] });
    await expectApiError(other.client.post(`app-${app.name}`, 'describe', {}), 'ResourceNotFound');
  });
});
