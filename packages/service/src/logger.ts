import pino, { type Logger } from 'pino';

/** The process's logger, as the faces and the wiring name it (pino is imported here and in adapters only). */
export type { Logger };

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
