import pino, { type DestinationStream, type Logger } from 'pino';

interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
}

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
  return destination ? pino(options, destination) : pino(options);
}
