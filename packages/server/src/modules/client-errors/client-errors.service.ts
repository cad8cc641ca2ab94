import type { Logger } from 'pino';

export interface ClientErrorReport {
  kind: 'render' | 'background' | 'boot';
  message: string;
  stack?: string;
  url?: string;
  userAgent?: string;
  release?: string;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const QUOTED = /"[^"\n]{1,200}"|“[^”\n]{1,200}”/g;
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi;

/**
 * SPEC §8: names and e-mail addresses in a reported message are masked with ellipses. E-mail addresses
 * and quoted text (how API messages quote project, file and user names) become `...`; bearer tokens are
 * dropped too, should a message ever carry one.
 */
export function maskClientErrorText(text: string): string {
  return text.replace(BEARER, '$1...').replace(EMAIL, '...').replace(QUOTED, '"..."');
}

/** Drops the query string and fragment: they may carry search terms or one-time codes. */
export function pathOnly(url: string): string {
  return url.split(/[?#]/)[0] ?? '';
}

/**
 * Logs web-app errors with pino at `warn`, masked. A caller may report at most `perMinute` errors a
 * minute, so that a page stuck in an error loop cannot flood the log.
 */
export class ClientErrorsService {
  private readonly windows = new Map<string, { start: number; count: number; dropped: number }>();

  constructor(
    private readonly log: Logger,
    private readonly perMinute = 30,
  ) {}

  report(userId: string, report: ClientErrorReport, now: number): { logged: boolean } {
    const window = this.windows.get(userId);
    if (!window || now - window.start >= 60_000) {
      if (window?.dropped) this.log.warn({ clientError: { user: userId, dropped: window.dropped } }, 'client errors dropped (rate limit)');
      this.windows.set(userId, { start: now, count: 1, dropped: 0 });
      if (this.windows.size > 10_000) this.prune(now);
    } else if (window.count >= this.perMinute) {
      window.dropped++;
      return { logged: false };
    } else {
      window.count++;
    }
    this.log.warn(
      {
        clientError: {
          kind: report.kind,
          user: userId,
          message: maskClientErrorText(report.message),
          ...(report.stack ? { stack: maskClientErrorText(report.stack) } : {}),
          ...(report.url ? { url: pathOnly(report.url) } : {}),
          ...(report.userAgent ? { userAgent: report.userAgent } : {}),
          ...(report.release ? { release: report.release } : {}),
        },
      },
      'client error',
    );
    return { logged: true };
  }

  private prune(now: number): void {
    for (const [user, window] of this.windows) if (now - window.start >= 60_000) this.windows.delete(user);
  }
}
