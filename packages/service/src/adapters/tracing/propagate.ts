import { context, isSpanContextValid, propagation, trace } from '@opentelemetry/api';

/** The instrumentation scope every span of the service is recorded under. */
export const TRACER_NAME = 'docslurp';

/**
 * The `traceparent` of the active span, for a request the service sends (model providers, webhook
 * receivers). Empty when tracing is off: no propagator is registered then.
 */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The trace and span ids of the active span, for log lines; undefined outside any span. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return isSpanContextValid(span.spanContext()) ? { traceId, spanId } : undefined;
}
