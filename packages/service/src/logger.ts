import pino, { type Logger } from 'pino';

/** The process's logger, as the faces and the wiring name it (pino is imported here and in adapters only). */
export type { Logger };

type TraceIds = { traceId: string; spanId: string };

/** Set on a logger whose bindings already name a span: the mixin adds nothing to its lines then. */
const namesSpan = Symbol('docslurp.namesSpan');

export interface LoggerOptions {
  /** The active span's ids, added to every line written inside one (tracing on, issue 43). */
  traceIds?: (() => TraceIds | undefined) | undefined;
  /** Where lines go (default standard output); tests read them. */
  destination?: pino.DestinationStream | undefined;
}

export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const { traceIds, destination } = options;
  return pino(
    {
      level,
      base: { service: 'docslurp' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers.authorization', '*.authorization', '*.password', '*.secret'],
        censor: '[redacted]',
      },
      // Without tracing there is no mixin at all: a line costs what it did.
      ...(traceIds && {
        mixin: (_line: object, _level: number, logger: Logger) =>
          (logger as Logger & { [namesSpan]?: true })[namesSpan] ? {} : (traceIds() ?? {}),
      }),
    },
    destination,
  );
}

/**
 * A child logger whose lines name a span (a request's): its children inherit the ids, and the
 * mixin, which would name the same span again, stays silent for all of them.
 */
export function loggerOfSpan(log: Logger, ids: TraceIds): Logger {
  const child = log.child(ids) as Logger & { [namesSpan]?: true };
  child[namesSpan] = true;
  return child;
}
