import { asLogMessage, isEndOfLog, type LogBuffer, type LogMessage } from './log-buffer';

/** The part of the browser's WebSocket the stream uses (tests pass a fake). */
export interface SocketLike {
  readonly readyState: number;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type StreamStatus =
  /** reading the lines already written (REST pages) */
  | 'history'
  /** connected, new lines arrive as the job prints them */
  | 'live'
  /** the connection dropped; it is tried again after `retryInMs` */
  | 'reconnecting'
  /** END_LOG: the job finished and every line is here */
  | 'ended'
  /** the server refused (permissions, unknown job): not retried */
  | 'error';

export interface StreamState {
  status: StreamStatus;
  /** Why the stream stopped or dropped, in words. */
  message?: string;
  retryInMs?: number;
  /** How many times the connection was re-opened. */
  reconnects: number;
}

export interface LogStreamOptions {
  /** `ws(s)://host/job-xxxx/getLog/websocket` */
  url: string;
  token: () => string | undefined;
  tryNumber?: number;
  buffer: LogBuffer;
  createSocket: (url: string) => SocketLike;
  /** One REST `getLog` page after `starting` (undefined: from the first line). */
  loadPage?: (starting: number | undefined) => Promise<{ messages: LogMessage[]; next: unknown }>;
  onLines: () => void;
  onState: (state: StreamState) => void;
  schedule?: (fn: () => void, ms: number) => () => void;
  random?: () => number;
}

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 15_000;

/** Exponential back-off with jitter: 0.5–1× of 500 ms, 1 s, 2 s, … capped at 15 s. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const full = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempt));
  return Math.round(full * (0.5 + random() * 0.5));
}

/** The websocket address of a job's log, from the API's base URL (http → ws, https → wss). */
export function logSocketUrl(apiBaseUrl: string, jobId: string, origin = globalThis.location?.href ?? 'http://localhost/'): string {
  const url = new URL(apiBaseUrl.replace(/\/+$/, '') || '/', origin);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const base = url.pathname.replace(/\/+$/, '');
  url.pathname = `${base}/${encodeURIComponent(jobId)}/getLog/websocket`;
  url.search = '';
  url.hash = '';
  return url.toString();
}

/** Codes of refusals (4000 + an HTTP status below 500): asking again would get the same answer. */
function isRefusal(code: number): boolean {
  return code >= 4400 && code < 4500;
}

function reasonText(reason: string): string {
  try {
    const parsed = JSON.parse(reason) as { type?: string; message?: string };
    if (parsed && typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: shown as it is
  }
  return reason || 'The connection closed';
}

/**
 * Follows a job log: reads what is written in REST pages, then opens the log websocket (DNAnexus
 * `dx watch` protocol, reference §7.4: the token goes in the first frame) asking for the lines after the
 * last one held (`starting`, a Panx option). A dropped connection is re-opened with back-off from the
 * same cursor, so no line is lost or repeated; END_LOG ends it.
 */
export class LogStream {
  private socket: SocketLike | undefined;
  private stopped = false;
  private attempt = 0;
  private cancelTimer: (() => void) | undefined;
  private state: StreamState = { status: 'history', reconnects: 0 };
  private readonly schedule: (fn: () => void, ms: number) => () => void;
  private readonly random: () => number;

  constructor(private readonly options: LogStreamOptions) {
    this.schedule =
      options.schedule ??
      ((fn, ms) => {
        const timer = setTimeout(fn, ms);
        return () => clearTimeout(timer);
      });
    this.random = options.random ?? Math.random;
  }

  get current(): StreamState {
    return this.state;
  }

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    const socket = this.socket;
    this.socket = undefined;
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      socket.close(1000, 'viewer closed');
    }
  }

  /** Closes the connection as a network failure would (for tests and benchmarks). */
  dropConnection(): void {
    this.socket?.close(4999, 'dropped on purpose');
  }

  private setState(state: Omit<StreamState, 'reconnects'>): void {
    this.state = { ...state, reconnects: this.state.reconnects };
    this.options.onState(this.state);
  }

  private async run(): Promise<void> {
    if (this.options.loadPage) {
      this.setState({ status: 'history' });
      try {
        for (;;) {
          const page = await this.options.loadPage(this.options.buffer.cursor);
          if (this.stopped) return;
          const added = this.options.buffer.append(page.messages.map(asLogMessage).filter((m): m is LogMessage => m !== undefined));
          if (added) this.options.onLines();
          if (page.next === null || page.next === undefined || !page.messages.length) break;
        }
      } catch (error) {
        if (this.stopped) return;
        const message = error instanceof Error ? error.message : String(error);
        // An API refusal (no such job, no access, signed out) is not retried; network and server errors are.
        const status = (error as { status?: unknown } | null)?.status;
        if (typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429) this.setState({ status: 'error', message });
        else this.retry(message);
        return;
      }
    }
    this.connect();
  }

  private connect(): void {
    if (this.stopped) return;
    const socket = this.options.createSocket(this.options.url);
    this.socket = socket;
    let ended = false;
    socket.onopen = () => {
      const cursor = this.options.buffer.cursor;
      socket.send(
        JSON.stringify({
          access_token: this.options.token(),
          token_type: 'Bearer',
          recurseJobs: false,
          tail: true,
          metricsFormat: 'text',
          starting: cursor ?? 0,
          ...(this.options.tryNumber !== undefined ? { try: this.options.tryNumber } : {}),
        }),
      );
      this.attempt = 0;
      this.setState({ status: 'live' });
    };
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(event.data);
      } catch {
        return;
      }
      const message = asLogMessage(parsed);
      if (!message) return;
      if (isEndOfLog(message)) {
        ended = true;
        return;
      }
      if (this.options.buffer.append([message])) this.options.onLines();
    };
    socket.onerror = () => {
      // the close event follows and decides
    };
    socket.onclose = (event) => {
      if (this.socket !== socket || this.stopped) return;
      this.socket = undefined;
      if (ended || event.code === 1000) {
        this.setState({ status: 'ended' });
      } else if (isRefusal(event.code)) {
        this.setState({ status: 'error', message: reasonText(event.reason) });
      } else {
        this.retry(event.code === 1001 ? 'The server is restarting' : event.reason ? reasonText(event.reason) : 'The connection dropped');
      }
    };
  }

  private retry(message: string): void {
    const delay = backoffDelay(this.attempt++, this.random);
    this.state = { ...this.state, reconnects: this.state.reconnects + 1 };
    this.setState({ status: 'reconnecting', message, retryInMs: delay });
    this.cancelTimer = this.schedule(() => {
      this.cancelTimer = undefined;
      void this.run();
    }, delay);
  }
}
