import type { EventEmitter } from 'node:events';
import pino, { type DestinationStream, type Logger } from 'pino';

interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
}

/** Log lines held while the destination refuses writes (a full disk): past this, new lines are dropped. */
const HELD_LOG_BYTES_MAX = 16 * 1024 * 1024;

/**
 * Structured JSON logs. Signed upload/download URLs carry their credential in the query string, so
 * request URLs are logged without it; tokens and passwords are redacted wherever they appear.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    serializers: {
      req: (request: LoggedRequest) => ({ method: request.method, url: request.url?.split('?')[0], remoteAddress: request.ip }),
    },
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.password', '*.access_token', '*.token', 'config.admin', 'config.signingSecret'],
      censor: '[redacted]',
    },
  };
  // stdout unless told otherwise (the tests read the log from a stream of their own).
  const stream = destination ?? pino.destination({ dest: 1, sync: false, maxLength: HELD_LOG_BYTES_MAX });
  const logger = pino(options, stream);
  survivesWriteErrors(stream, (failures, code) =>
    logger.warn({ failedWrites: failures, code }, 'the log could not be written for a while (lines in between may be lost)'),
  );
  return logger;
}

/**
 * A log destination that fails (ENOSPC when the disk the log goes to is full, EIO, ...) emits
 * 'error', which nothing handled: the process died of it, taking every request in flight with it.
 * Now the failures are counted, and said once writing works again (pino's destination retries the
 * lines it holds with the next write, and emits 'write' when one goes through).
 */
export function survivesWriteErrors(stream: DestinationStream, report: (failures: number, code: string | undefined) => void): void {
  const events = stream as Partial<EventEmitter>;
  if (typeof events.on !== 'function') return;
  let failures = 0;
  let code: string | undefined;
  let last: unknown;
  events.on.call(stream, 'error', (error: NodeJS.ErrnoException) => {
    // pino's own listener emits a failure once more on its way out: count it once.
    if (error === last) return;
    last = error;
    failures += 1;
    code = error.code;
  });
  events.on.call(stream, 'write', () => {
    if (failures === 0) return;
    const [count, lastCode] = [failures, code];
    failures = 0;
    report(count, lastCode);
  });
}
