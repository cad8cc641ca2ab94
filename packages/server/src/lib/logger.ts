import type { EventEmitter } from 'node:events';
import fs from 'node:fs';
import pino, { type DestinationStream, type Logger } from 'pino';

interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
}

/** Log lines waiting to be written (the destination refuses writes, or its reader fell behind): past this, new lines are dropped. */
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
  survivesWriteErrors(stream, (failures, code, droppedLines) =>
    logger.warn({ failedWrites: failures, code, droppedLines }, 'log lines were lost: the log could not be written, or its reader fell behind'),
  );
  return logger;
}

/** The parts of pino's destination (sonic-boom) that the exit flush below works with. */
interface HeldLines {
  fd: number;
  _bufs: (string | Buffer)[];
  _writingBuf: string | Buffer;
  _writing: boolean;
  _len: number;
  flushSync(): void;
}

function isHeldLines(stream: unknown): stream is HeldLines {
  const boom = stream as Partial<HeldLines>;
  return typeof boom.flushSync === 'function' && Array.isArray(boom._bufs) && typeof boom.fd === 'number';
}

/**
 * A log destination that fails (ENOSPC when the disk the log goes to is full, EIO, ...) emits
 * 'error'; unhandled, that would end the process and every request in flight with it. Here the
 * failures are counted, with the lines dropped meanwhile (past the destination's `maxLength`),
 * and said once a write goes through again (pino's destination retries the lines it holds with the
 * next line logged, and emits 'write' when one goes through).
 *
 * pino flushes its destination at exit with sonic-boom's `flushSync`, which retries a failing write
 * every 100 ms for ever: a server stopping while its log's disk was full never exited. The flush is
 * replaced by one that writes what is held once and drops it if that fails.
 */
export function survivesWriteErrors(stream: DestinationStream, report: (failures: number, code: string | undefined, droppedLines: number) => void): void {
  const events = stream as Partial<EventEmitter>;
  if (typeof events.on !== 'function') return;
  let failures = 0;
  let dropped = 0;
  let code: string | undefined;
  let last: unknown;
  const failed = (error: NodeJS.ErrnoException) => {
    // pino's own listener emits a failure once more on its way out: count it once.
    if (error === last) return;
    last = error;
    failures += 1;
    code = error.code;
  };
  events.on.call(stream, 'error', failed);
  events.on.call(stream, 'drop', () => {
    dropped += 1;
  });
  events.on.call(stream, 'write', () => {
    if (failures === 0 && dropped === 0) return;
    const counts = [failures, code, dropped] as const;
    failures = 0;
    dropped = 0;
    report(...counts);
  });
  if (isHeldLines(stream)) stream.flushSync = () => flushOnce(stream, failed);
}

/** Writes what the destination holds, once: on a failure the rest is dropped (and the failure counted). */
function flushOnce(boom: HeldLines, failed: (error: NodeJS.ErrnoException) => void): void {
  const held = boom._bufs.splice(0);
  // A write in flight keeps its bytes (its callback still comes); one that failed is held again.
  if (!boom._writing && boom._writingBuf.length > 0) {
    held.unshift(boom._writingBuf);
    boom._writingBuf = '';
  }
  boom._len = boom._writing ? boom._writingBuf.length : 0;
  let busyWaits = 0;
  for (const lines of held) {
    const bytes = Buffer.isBuffer(lines) ? lines : Buffer.from(lines);
    for (let done = 0; done < bytes.length; ) {
      try {
        done += fs.writeSync(boom.fd, bytes, done);
      } catch (error) {
        // A pipe that is full for now (a non-blocking stdout) is waited for, up to 2 s; anything else drops the rest.
        const code = (error as NodeJS.ErrnoException).code;
        if ((code === 'EAGAIN' || code === 'EBUSY') && busyWaits++ < 200) {
          Atomics.wait(PAUSE, 0, 0, 10);
          continue;
        }
        failed(error as NodeJS.ErrnoException);
        return;
      }
    }
  }
}

/** Something to wait on for a synchronous pause. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
