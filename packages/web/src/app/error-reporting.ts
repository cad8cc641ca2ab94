import { api } from '../lib/api';
import { setRootError } from './app-state';

/**
 * SPEC §8: render errors are reported and the error page shown; uncaught background errors are reported
 * outside development, with names and e-mail addresses masked by ellipses, and set the root-error flag.
 * Reports go to `system/reportClientError` (the server logs them); they need a signed-in user.
 */

export type ClientErrorKind = 'render' | 'background' | 'boot';

interface ReportingContext {
  signedIn: boolean;
  /** The signed-in user's names and handle: masked wherever they appear. */
  names: string[];
  release: string | undefined;
  development: boolean;
}

const context: ReportingContext = { signedIn: false, names: [], release: undefined, development: false };

export function configureErrorReporting(next: Partial<ReportingContext>): void {
  Object.assign(context, next);
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const QUOTED = /"[^"\n]{1,200}"|“[^”\n]{1,200}”/g;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** E-mail addresses, the given names (whole words, any case) and quoted names become `...`. */
export function maskMessage(text: string, names: readonly string[]): string {
  let masked = text.replace(EMAIL, '...').replace(QUOTED, '"..."');
  const words = [...new Set(names.map((name) => name.trim()).filter((name) => name.length >= 2))].sort((a, b) => b.length - a.length);
  for (const name of words) {
    masked = masked.replace(new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(name)}(?![\\p{L}\\p{N}_])`, 'giu'), '...');
  }
  return masked;
}

const recent = new Map<string, number>();

/** Sends one report (same message at most once a minute); never throws. */
export function reportClientError(kind: ClientErrorKind, error: unknown): void {
  const raw = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const message = maskMessage(raw, context.names).slice(0, 4000);
  const now = Date.now();
  if ((recent.get(message) ?? 0) > now - 60_000) return;
  recent.set(message, now);
  if (recent.size > 100) recent.clear();
  const stack = error instanceof Error && error.stack ? maskMessage(error.stack, context.names).slice(0, 16_000) : undefined;
  console.error(`[panx] ${kind} error:`, error);
  if (!context.signedIn) return;
  try {
    api()
      .call('system/reportClientError', {
        kind,
        message,
        ...(stack ? { stack } : {}),
        url: globalThis.location?.pathname ?? '',
        userAgent: globalThis.navigator?.userAgent.slice(0, 512),
        ...(context.release ? { release: context.release.slice(0, 64) } : {}),
      })
      .catch(() => {});
  } catch {
    // the API client is not ready (start-up): the console has it
  }
}

/** An uncaught error of a background task (SPEC §8): report outside development and raise the root-error flag. */
export function backgroundFailure(error: unknown): void {
  if (!context.development) reportClientError('background', error);
  else console.error('[panx] background error:', error);
  setRootError(error);
}

/** Runs a background task; a failure is a root error. */
export function runInBackground(task: () => Promise<unknown>): void {
  task().catch(backgroundFailure);
}

/** Benign browser noise that must not take the app down. */
function isNoise(message: string): boolean {
  return /ResizeObserver loop/i.test(message) || /^Script error\.?$/.test(message);
}

export function installGlobalErrorHandlers(target: Window = window): () => void {
  const onRejection = (event: PromiseRejectionEvent) => backgroundFailure(event.reason);
  const onError = (event: ErrorEvent) => {
    if (isNoise(event.message)) return;
    if (!context.development) reportClientError('background', event.error ?? event.message);
  };
  target.addEventListener('unhandledrejection', onRejection);
  target.addEventListener('error', onError);
  return () => {
    target.removeEventListener('unhandledrejection', onRejection);
    target.removeEventListener('error', onError);
  };
}
