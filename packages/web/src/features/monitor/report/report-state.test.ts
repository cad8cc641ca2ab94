import { describe, expect, it } from 'vitest';
import { browserFacts, buildReport, failureReportReducer, initialReportState, LOG_TAIL_LINES, MESSAGE_MAX, messageProblem } from './report-state';

describe('failure report state', () => {
  it('goes INITIAL → SENDING → DONE and ignores edits and repeated sends meanwhile', () => {
    let state = failureReportReducer(initialReportState(), { type: 'edit', message: 'It failed' });
    expect(state).toEqual({ status: 'INITIAL', message: 'It failed' });
    state = failureReportReducer(state, { type: 'send' });
    expect(state.status).toBe('SENDING');
    expect(failureReportReducer(state, { type: 'send' })).toBe(state);
    expect(failureReportReducer(state, { type: 'edit', message: 'changed' })).toBe(state);
    state = failureReportReducer(state, { type: 'success', reportId: 'report-1' });
    expect(state).toEqual({ status: 'DONE', message: 'It failed', reportId: 'report-1' });
    expect(failureReportReducer(state, { type: 'error', error: 'late' })).toBe(state);
    expect(failureReportReducer(state, { type: 'initialize' })).toEqual({ status: 'INITIAL', message: '' });
  });

  it('goes to ERROR on failure, keeps the message, and editing or sending again retries', () => {
    let state = failureReportReducer({ status: 'INITIAL', message: 'x' }, { type: 'send' });
    state = failureReportReducer(state, { type: 'error', error: 'The server could not be reached' });
    expect(state).toEqual({ status: 'ERROR', message: 'x', error: 'The server could not be reached' });
    expect(failureReportReducer(state, { type: 'send' }).status).toBe('SENDING');
    expect(failureReportReducer(state, { type: 'edit', message: 'xy' })).toEqual({ status: 'INITIAL', message: 'xy' });
  });

  it('does not send an empty or oversized message', () => {
    expect(messageProblem('   ')).toMatch(/what went wrong/);
    expect(messageProblem('a'.repeat(MESSAGE_MAX + 1))).toMatch(/At most 10,000/);
    expect(messageProblem('ok')).toBeUndefined();
    const blank = { status: 'INITIAL' as const, message: ' ' };
    expect(failureReportReducer(blank, { type: 'send' })).toBe(blank);
    // success or error without a send in flight change nothing
    expect(failureReportReducer(blank, { type: 'success', reportId: 'r' })).toBe(blank);
  });
});

describe('the report body', () => {
  it('keeps the last lines of the log, shortens long ones and trims the message', () => {
    const lines = Array.from({ length: 120 }, (_, i) => `line ${i + 1}`);
    lines.push('y'.repeat(5000));
    const body = buildReport({ execution: 'job-x', message: '  broken \n', tryNumber: 1, logLines: lines, browser: { language: 'en' } });
    expect(body.message).toBe('broken');
    expect(body.try).toBe(1);
    expect(body.logTail).toHaveLength(LOG_TAIL_LINES);
    expect(body.logTail[0]).toBe(`line ${121 - LOG_TAIL_LINES + 1}`);
    expect(body.logTail[LOG_TAIL_LINES - 1]).toHaveLength(2001);
    expect(buildReport({ execution: 'analysis-x', message: 'm', logLines: [], browser: {} })).not.toHaveProperty('try');
  });

  it('describes the browser without query strings', () => {
    expect(
      browserFacts({
        navigator: { userAgent: 'UA', language: 'en-GB', platform: 'Linux' },
        screen: { width: 1280, height: 800 },
        devicePixelRatio: 2,
        location: { pathname: '/panx/executions/job-1' },
        timeZone: 'Europe/London',
      }),
    ).toEqual({ userAgent: 'UA', language: 'en-GB', platform: 'Linux', screen: '1280x800@2', timeZone: 'Europe/London', url: '/panx/executions/job-1' });
    expect(browserFacts({})).toEqual({});
  });
});
