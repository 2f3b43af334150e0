import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'docslurp' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['req.headers.authorization', '*.authorization', '*.password', '*.secret'],
      censor: '[redacted]',
    },
  });
}
