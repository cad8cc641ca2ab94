/**
 * The failure-report modal (SPEC §3/§4): states INITIAL, SENDING, DONE, ERROR and the transitions
 * initialise → send → success or error; and the report sent to `system/reportFailure`, built from the
 * user's message, the execution, the tail of its log and the browser.
 */
export type FailureReportStatus = 'INITIAL' | 'SENDING' | 'DONE' | 'ERROR';

export interface FailureReportState {
  status: FailureReportStatus;
  message: string;
  /** The inbox's id of the report once sent. */
  reportId?: string;
  error?: string;
}

export type FailureReportAction =
  | { type: 'initialize' }
  | { type: 'edit'; message: string }
  | { type: 'send' }
  | { type: 'success'; reportId: string }
  | { type: 'error'; error: string };

export const MESSAGE_MAX = 10_000;
/** Lines of the log's tail sent with a report (the server keeps at most 200). */
export const LOG_TAIL_LINES = 50;
const LOG_LINE_MAX = 2000;

export function initialReportState(): FailureReportState {
  return { status: 'INITIAL', message: '' };
}

/** Why the message cannot be sent yet, or undefined. */
export function messageProblem(message: string): string | undefined {
  if (!message.trim()) return 'Say what went wrong, or what you expected';
  if (message.length > MESSAGE_MAX) return `At most ${MESSAGE_MAX.toLocaleString('en')} characters (${message.length.toLocaleString('en')} now)`;
  return undefined;
}

export function failureReportReducer(state: FailureReportState, action: FailureReportAction): FailureReportState {
  switch (action.type) {
    case 'initialize':
      return initialReportState();
    case 'edit':
      // Editing after an error returns to INITIAL; nothing changes while sending or once sent.
      if (state.status === 'SENDING' || state.status === 'DONE') return state;
      return { status: 'INITIAL', message: action.message };
    case 'send':
      if (state.status === 'SENDING' || state.status === 'DONE' || messageProblem(state.message)) return state;
      return { status: 'SENDING', message: state.message };
    case 'success':
      if (state.status !== 'SENDING') return state;
      return { status: 'DONE', message: state.message, reportId: action.reportId };
    case 'error':
      if (state.status !== 'SENDING') return state;
      return { status: 'ERROR', message: state.message, error: action.error };
  }
}

export interface BrowserFacts {
  userAgent?: string;
  language?: string;
  platform?: string;
  screen?: string;
  timeZone?: string;
  url?: string;
}

/** What the page may tell support about the browser: no query strings, nothing from storage. */
export function browserFacts(env: {
  navigator?: { userAgent?: string; language?: string; platform?: string };
  screen?: { width: number; height: number };
  devicePixelRatio?: number;
  location?: { pathname: string };
  timeZone?: string;
}): BrowserFacts {
  const facts: BrowserFacts = {};
  if (env.navigator?.userAgent) facts.userAgent = env.navigator.userAgent.slice(0, 512);
  if (env.navigator?.language) facts.language = env.navigator.language.slice(0, 64);
  if (env.navigator?.platform) facts.platform = env.navigator.platform.slice(0, 128);
  if (env.screen) facts.screen = `${env.screen.width}x${env.screen.height}@${env.devicePixelRatio ?? 1}`.slice(0, 32);
  if (env.timeZone) facts.timeZone = env.timeZone.slice(0, 64);
  if (env.location) facts.url = env.location.pathname.slice(0, 2000);
  return facts;
}

/** The body of `system/reportFailure`. */
export function buildReport(input: { execution: string; message: string; tryNumber?: number; logLines: readonly string[]; browser: BrowserFacts }) {
  const logTail = input.logLines.slice(-LOG_TAIL_LINES).map((line) => (line.length > LOG_LINE_MAX ? `${line.slice(0, LOG_LINE_MAX)}…` : line));
  return {
    execution: input.execution,
    message: input.message.trim(),
    ...(input.tryNumber !== undefined ? { try: input.tryNumber } : {}),
    logTail,
    browser: input.browser,
  };
}
