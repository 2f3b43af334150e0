import {
  type Link,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { TRACER_NAME, traceHeaders } from './propagate.js';

/**
 * The field of a job's data that carries the enqueuer's `traceparent`. Job payload schemas strip
 * fields they do not declare, so handlers never see it.
 */
const TRACE_FIELD = 'trace';

/** A job's data with the active span's `traceparent`, when there is one. */
export function enqueuedWithTrace<T extends object>(payloads: readonly T[]): readonly T[] {
  const traceparent = traceHeaders().traceparent;
  if (!traceparent) return payloads;
  return payloads.map((data) => ({ ...data, [TRACE_FIELD]: traceparent }));
}

function spanContextOf(data: unknown): SpanContext | undefined {
  const traceparent = (data as Record<string, unknown> | null)?.[TRACE_FIELD];
  if (typeof traceparent !== 'string') return undefined;
  return trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
}

/**
 * Runs a job's handler in a span `job <name>`: a child of its enqueuer's span when it was taken
 * alone, linked to each enqueuer's span when jobs were taken together (a batch has many parents).
 */
export function inJobSpan<T>(
  name: string,
  jobData: readonly unknown[],
  handle: () => Promise<T>,
): Promise<T> {
  const origins = jobData.map(spanContextOf);
  const parent =
    jobData.length === 1 && origins[0] ? trace.setSpanContext(ROOT_CONTEXT, origins[0]) : ROOT_CONTEXT;
  const links: Link[] =
    jobData.length === 1
      ? []
      : origins.filter((c): c is SpanContext => c !== undefined).map((c) => ({ context: c }));
  return trace
    .getTracer(TRACER_NAME)
    .startActiveSpan(
      `job ${name}`,
      { kind: SpanKind.CONSUMER, links, attributes: { 'messaging.batch.message_count': jobData.length } },
      parent,
      async (span) => {
        try {
          return await handle();
        } catch (err) {
          span.recordException(err as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
          throw err;
        } finally {
          span.end();
        }
      },
    );
}
