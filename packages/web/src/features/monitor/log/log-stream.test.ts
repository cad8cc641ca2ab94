import { describe, expect, it } from 'vitest';
import { LogBuffer, type LogMessage } from './log-buffer';
import { backoffDelay, LogStream, logSocketUrl, type SocketLike, type StreamState } from './log-stream';

const msg = (line: number, text = `l${line}`): LogMessage => ({ timestamp: line, source: 'APP', level: 'STDOUT', job: 'job-x', line, msg: text });
const END = { timestamp: 0, source: 'SYSTEM', level: 'INFO', job: 'job-x', line: 0, msg: 'END_LOG' };

class FakeSocket implements SocketLike {
  readyState = 0;
  onopen: SocketLike['onopen'] = null;
  onmessage: SocketLike['onmessage'] = null;
  onclose: SocketLike['onclose'] = null;
  onerror: SocketLike['onerror'] = null;
  sent: Record<string, unknown>[] = [];
  closedWith: number | undefined;
  constructor(readonly url: string) {}
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(code = 1000): void {
    this.closedWith = code;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  deliver(frame: unknown): void {
    this.onmessage?.({ data: JSON.stringify(frame) } as MessageEvent);
  }
  drop(code: number, reason = ''): void {
    this.readyState = 3;
    this.onclose?.({ code, reason } as CloseEvent);
  }
}

function harness(pages: { messages: LogMessage[]; next: unknown }[] = []) {
  const sockets: FakeSocket[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const states: StreamState[] = [];
  const buffer = new LogBuffer();
  const asked: (number | undefined)[] = [];
  let page = 0;
  const stream = new LogStream({
    url: 'ws://h/job-x/getLog/websocket',
    token: () => 'tok',
    tryNumber: 1,
    buffer,
    createSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    loadPage: async (starting) => {
      asked.push(starting);
      return pages[page++] ?? { messages: [], next: null };
    },
    onLines: () => {},
    onState: (state) => states.push(state),
    schedule: (fn, ms) => {
      timers.push({ fn, ms });
      return () => {};
    },
    random: () => 1,
  });
  return { stream, sockets, timers, states, buffer, asked };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('LogStream', () => {
  it('reads the history in pages, then follows the websocket from the last line with the token in the first frame', async () => {
    const h = harness([
      { messages: [msg(1), msg(2)], next: 2 },
      { messages: [msg(3)], next: null },
    ]);
    h.stream.start();
    await tick();
    expect(h.asked).toEqual([undefined, 2]);
    expect(h.sockets).toHaveLength(1);
    h.sockets[0]?.open();
    expect(h.sockets[0]?.sent[0]).toMatchObject({ access_token: 'tok', token_type: 'Bearer', tail: true, try: 1, starting: 3 });
    h.sockets[0]?.deliver(msg(4));
    h.sockets[0]?.deliver(msg(3)); // a repeat is ignored
    h.sockets[0]?.deliver({ not: 'a line' });
    expect(h.buffer.length).toBe(4);
    expect(h.stream.current.status).toBe('live');
    h.sockets[0]?.deliver(END);
    h.sockets[0]?.drop(1000);
    expect(h.stream.current.status).toBe('ended');
    expect(h.timers).toHaveLength(0);
  });

  it('reconnects after a drop with back-off, from the last line held: nothing lost, nothing repeated', async () => {
    const h = harness();
    h.stream.start();
    await tick();
    h.sockets[0]?.open();
    expect(h.sockets[0]?.sent[0]).toMatchObject({ starting: 0 });
    for (const line of [1, 2, 3]) h.sockets[0]?.deliver(msg(line));
    h.sockets[0]?.drop(1006);
    expect(h.stream.current).toMatchObject({ status: 'reconnecting', reconnects: 1, retryInMs: 500 });
    h.timers[0]?.fn();
    await tick();
    expect(h.asked).toEqual([undefined, 3]);
    h.sockets[1]?.open();
    expect(h.sockets[1]?.sent[0]).toMatchObject({ starting: 3 });
    // the server answers from line 4 on; should it repeat one, it is dropped
    for (const line of [3, 4, 5]) h.sockets[1]?.deliver(msg(line));
    expect(Array.from({ length: h.buffer.length }, (_, i) => h.buffer.lineId(i))).toEqual([1, 2, 3, 4, 5]);
    // a second drop before the socket opens again: the delay grows
    h.sockets[1]?.drop(1001);
    h.timers[1]?.fn();
    await tick();
    h.sockets[2]?.drop(1006);
    expect(h.timers.map((timer) => timer.ms)).toEqual([500, 500, 1000]);
    expect(h.stream.current.reconnects).toBe(3);
  });

  it('stops on a refusal (bad token, no access) and says why', async () => {
    const h = harness();
    h.stream.start();
    await tick();
    h.sockets[0]?.open();
    h.sockets[0]?.drop(4401, JSON.stringify({ type: 'InvalidAuthentication', message: 'The token is not valid' }));
    expect(h.stream.current).toMatchObject({ status: 'error', message: 'The token is not valid' });
    expect(h.timers).toHaveLength(0);
  });

  it('retries when the history cannot be read, and stop() closes and silences the socket', async () => {
    const sockets: FakeSocket[] = [];
    const timers: (() => void)[] = [];
    let fail = true;
    const stream = new LogStream({
      url: 'ws://h/x',
      token: () => undefined,
      buffer: new LogBuffer(),
      createSocket: (url) => {
        const socket = new FakeSocket(url);
        sockets.push(socket);
        return socket;
      },
      loadPage: async () => {
        if (fail) throw new Error('offline');
        return { messages: [], next: null };
      },
      onLines: () => {},
      onState: () => {},
      schedule: (fn) => {
        timers.push(fn);
        return () => {};
      },
      random: () => 0,
    });
    stream.start();
    await tick();
    expect(stream.current).toMatchObject({ status: 'reconnecting', message: 'offline', retryInMs: 250 });
    fail = false;
    timers[0]?.();
    await tick();
    expect(sockets).toHaveLength(1);
    stream.stop();
    expect(sockets[0]?.closedWith).toBe(1000);
    expect(sockets[0]?.onclose).toBeNull();
  });

  it('does not retry when the API refuses to read the log', async () => {
    const timers: (() => void)[] = [];
    const stream = new LogStream({
      url: 'ws://h/x',
      token: () => 't',
      buffer: new LogBuffer(),
      createSocket: () => {
        throw new Error('no socket expected');
      },
      loadPage: async () => {
        throw Object.assign(new Error('The job job-x could not be found'), { status: 404, type: 'ResourceNotFound' });
      },
      onLines: () => {},
      onState: () => {},
      schedule: (fn) => {
        timers.push(fn);
        return () => {};
      },
    });
    stream.start();
    await tick();
    expect(stream.current).toMatchObject({ status: 'error', message: 'The job job-x could not be found' });
    expect(timers).toHaveLength(0);
  });
});

describe('helpers', () => {
  it('backs off exponentially up to 15 s with jitter', () => {
    expect([0, 1, 2, 3, 10].map((attempt) => backoffDelay(attempt, () => 1))).toEqual([500, 1000, 2000, 4000, 15_000]);
    expect(backoffDelay(0, () => 0)).toBe(250);
  });

  it('builds the websocket address from the API base URL', () => {
    expect(logSocketUrl('http://api.example.org:8080', 'job-A')).toBe('ws://api.example.org:8080/job-A/getLog/websocket');
    expect(logSocketUrl('https://example.org/api/', 'job-A')).toBe('wss://example.org/api/job-A/getLog/websocket');
    expect(logSocketUrl('', 'job-A', 'https://panx.example/panx/projects')).toBe('wss://panx.example/job-A/getLog/websocket');
  });
});
