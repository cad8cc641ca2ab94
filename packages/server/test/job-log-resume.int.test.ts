/**
 * The log websocket's Panx resume option: a client that reconnects with `starting` (the `line` of the
 * last line it received) gets every later line once, and nothing before it.
 */
import type { PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { newApplet, waitForJob } from './engine-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

interface Frame {
  source: string;
  level: string;
  msg: string;
  line: number;
}

function watch(t: TestPlatform, id: string, first: Record<string, unknown>): { frames: Frame[]; closed: Promise<{ code: number; reason: string }> } {
  const socket = new WebSocket(`${t.url.replace(/^http/, 'ws')}/${id}/getLog/websocket`);
  const frames: Frame[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as Frame));
  socket.once('open', () => socket.send(JSON.stringify(first)));
  return { frames, closed };
}

describe('the log websocket resumes after a line (sqlite+local)', () => {
  let t: TestPlatform;
  let user: { id: string; client: PanxClient; token: string };
  let project: string;

  beforeAll(async () => {
    t = await startTestPlatform(undefined, { engine: { local: { cores: 4, memoryMB: 8_000 }, tickMs: 200 } });
    user = await t.newUser();
    ({ id: project } = await user.client.call('project/new', { name: 'resume' }));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('sends only the lines after `starting`, each once, then END_LOG', async () => {
    const applet = await newApplet(user.client, project, {
      name: 'counter',
      code: 'main() { for i in $(seq 1 30); do echo "line $i"; done; echo "err" >&2; }',
    });
    const { id } = (await user.client.post(applet, 'run', { project, input: {} })) as { id: string };
    await waitForJob(user.client, id);

    const all = watch(t, id, { access_token: user.token, token_type: 'Bearer', tail: true });
    expect((await all.closed).code).toBe(1000);
    const app = all.frames.filter((frame) => frame.source === 'APP');
    expect(app.map((frame) => frame.msg)).toEqual([...Array.from({ length: 30 }, (_, i) => `line ${i + 1}`), 'err']);
    const lines = all.frames.filter((frame) => frame.msg !== 'END_LOG').map((frame) => frame.line);
    expect(new Set(lines).size).toBe(lines.length);

    // Resume after "line 12": the rest arrives once, in order.
    const cut = app[11] as Frame;
    const resumed = watch(t, id, { access_token: user.token, token_type: 'Bearer', tail: true, starting: cut.line });
    expect((await resumed.closed).code).toBe(1000);
    const rest = resumed.frames.filter((frame) => frame.msg !== 'END_LOG');
    const expected = all.frames.filter((frame) => frame.msg !== 'END_LOG' && frame.line > cut.line);
    expect(rest.map((frame) => frame.line)).toEqual(expected.map((frame) => frame.line));
    expect(rest.filter((frame) => frame.source === 'APP').map((frame) => frame.msg)).toEqual([
      ...Array.from({ length: 18 }, (_, i) => `line ${i + 13}`),
      'err',
    ]);
    expect(resumed.frames[resumed.frames.length - 1]).toMatchObject({ source: 'SYSTEM', msg: 'END_LOG' });
  });

  it('refuses a `starting` that is not a line number, with the reason in the close frame', async () => {
    const applet = await newApplet(user.client, project, { name: 'quiet', code: 'main() { echo hi; }' });
    const { id } = (await user.client.post(applet, 'run', { project, input: {} })) as { id: string };
    await waitForJob(user.client, id);
    const refused = watch(t, id, { access_token: user.token, token_type: 'Bearer', starting: 'yesterday' });
    const { code, reason } = await refused.closed;
    expect(code).toBe(4422);
    expect(JSON.parse(reason)).toMatchObject({ type: 'InvalidInput' });
    expect(JSON.parse(reason).message).toContain('starting');
  });
});
