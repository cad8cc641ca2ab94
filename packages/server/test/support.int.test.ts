/**
 * The support inbox: system/reportFailure (a user reports an execution they can see) and
 * system/findFailureReports (administrators read them), on every backend.
 */
import type { PanxClient } from '@panx/client';
import { FAILURE_REPORT_LOG_LINE_MAX, FAILURE_REPORTS_PER_HOUR } from '@panx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApplet, waitForJob } from './engine-helpers.js';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

interface Report {
  id: string;
  created: number;
  reporter: string;
  execution: string;
  executionName: string;
  project: string;
  state: string;
  failureReason: string | null;
  failureMessage: string | null;
  tryNumber: number | null;
  message: string;
  logTail: string[];
  browser: Record<string, string>;
}

describe.each(BACKENDS)('failure reports on $name', (backend) => {
  let t: TestPlatform;
  let alice: { id: string; client: PanxClient; token: string };
  let bob: { id: string; client: PanxClient; token: string };
  let project: string;
  let failed: string;

  beforeAll(async () => {
    t = await startTestPlatform(backend, { engine: { local: { cores: 4, memoryMB: 8_000 }, tickMs: 200 } });
    alice = await t.newUser();
    bob = await t.newUser();
    ({ id: project } = await alice.client.call('project/new', { name: 'support' }));
    const applet = await newApplet(alice.client, project, {
      name: 'breaks',
      code: `main() { echo "step 1"; echo "cannot open reads.fq" >&2; echo '{"error":{"type":"AppError","message":"reads.fq is missing"}}' > job_error.json; exit 1; }`,
    });
    ({ id: failed } = (await alice.client.post(applet, 'run', { project, input: {}, name: 'broken run' })) as { id: string });
    await waitForJob(alice.client, failed);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('stores a report with what the server knows of the execution, and shows it to administrators only', async () => {
    const long = 'x'.repeat(FAILURE_REPORT_LOG_LINE_MAX + 50);
    const { id } = await alice.client.call('system/reportFailure', {
      execution: failed,
      message: '  The job cannot find its <b>reads</b>.  ',
      try: 0,
      logTail: ['step 1', 'cannot open reads.fq', long],
      browser: { userAgent: 'Mozilla/5.0 test', language: 'en-GB', screen: '1280x800@1', url: '/panx/projects/x/monitor' },
    });
    expect(id).toMatch(/^report-[0-9A-Za-z]{24}$/);

    const { results, next } = await t.admin.call('system/findFailureReports', {});
    const report = results.find((r) => r.id === id) as Report;
    expect(next).toBeNull();
    expect(report).toMatchObject({
      reporter: alice.id,
      execution: failed,
      executionName: 'broken run',
      project,
      state: 'failed',
      failureReason: 'AppError',
      failureMessage: 'reads.fq is missing',
      tryNumber: 0,
      message: 'The job cannot find its <b>reads</b>.',
      browser: { userAgent: 'Mozilla/5.0 test', language: 'en-GB', screen: '1280x800@1', url: '/panx/projects/x/monitor' },
    });
    expect(report.logTail.slice(0, 2)).toEqual(['step 1', 'cannot open reads.fq']);
    expect(report.logTail[2]).toHaveLength(FAILURE_REPORT_LOG_LINE_MAX + 1);
    expect(report.created).toBeGreaterThan(Date.now() - 60_000);

    await expectApiError(alice.client.call('system/findFailureReports', {}), 'PermissionDenied', 'administrators');
    const byExecution = await t.admin.call('system/findFailureReports', { execution: failed });
    expect(byExecution.results.map((r) => r.id)).toContain(id);
    const byOther = await t.admin.call('system/findFailureReports', { reporter: bob.id });
    expect(byOther.results).toEqual([]);
  });

  it('refuses executions the caller cannot see, unknown tries, empty messages and malformed input', async () => {
    await expectApiError(bob.client.call('system/reportFailure', { execution: failed, message: 'not mine' }), 'ResourceNotFound');
    await expectApiError(alice.client.call('system/reportFailure', { execution: 'job-BBBBBBBBBBBBBBBBBBBBBBBB', message: 'x' }), 'ResourceNotFound');
    await expectApiError(alice.client.call('system/reportFailure', { execution: failed, message: 'x', try: 7 }), 'InvalidInput', 'no try 7');
    await expectApiError(alice.client.call('system/reportFailure', { execution: failed, message: '   ' }), 'InvalidInput', 'message');
    await expectApiError(alice.client.call('system/reportFailure', { execution: project, message: 'x' }), 'InvalidInput', 'execution');
    await expectApiError(
      alice.client.call('system/reportFailure', { execution: failed, message: 'x', logTail: Array.from({ length: 201 }, () => 'l') }),
      'InvalidInput',
      'logTail',
    );
    await expectApiError(t.admin.call('system/findFailureReports', { starting: 'nonsense' }), 'InvalidInput', 'starting');

    // Once shared with VIEW, bob may report it.
    await alice.client.call('project-xxxx/invite', project, { invitee: bob.id, level: 'VIEW', suppressEmailNotification: true });
    const { id } = await bob.client.call('system/reportFailure', { execution: failed, message: 'seen from a shared project' });
    const { results } = await t.admin.call('system/findFailureReports', { reporter: bob.id });
    expect(results.map((r) => r.id)).toEqual([id]);
  });

  it('pages newest first and limits how many reports a user sends an hour', async () => {
    const carol = await t.newUser();
    await alice.client.call('project-xxxx/invite', project, { invitee: carol.id, level: 'VIEW', suppressEmailNotification: true });
    const ids: string[] = [];
    for (let i = 0; i < FAILURE_REPORTS_PER_HOUR; i++)
      ids.push((await carol.client.call('system/reportFailure', { execution: failed, message: `report ${i}` })).id);
    await expectApiError(carol.client.call('system/reportFailure', { execution: failed, message: 'one too many' }), 'RateLimitConditional', 'an hour');

    const seen: { message: string; created: number; id: string }[] = [];
    let starting: string | undefined;
    for (;;) {
      const page = await t.admin.call('system/findFailureReports', { reporter: carol.id, limit: 7, ...(starting ? { starting } : {}) });
      seen.push(...page.results);
      if (page.next === null) break;
      starting = page.next as string;
    }
    // every report once, newest first (reports of the same millisecond by id)
    expect(seen.map((r) => r.message).sort()).toEqual(Array.from({ length: FAILURE_REPORTS_PER_HOUR }, (_, i) => `report ${i}`).sort());
    const order = [...seen].sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1));
    expect(seen.map((r) => r.id)).toEqual(order.map((r) => r.id));
  });
});
