import type { StageObserver } from './stopwatch.js';

/** The W3C ids of a span, as log lines carry them. */
export interface SpanIds {
  traceId: string;
  spanId: string;
}

/** The span of one HTTP request (issue 43): its handler runs in it, so what it calls is its child. */
export interface RequestSpan {
  readonly ids: SpanIds;
  /** Runs `fn` with this span as the active one. */
  run<T>(fn: () => T): T;
  /**
   * Ends the span with the matched route and the answer's status (500 or more is an error); without
   * a status, the client went away first. Only the first call counts.
   */
  end(outcome: { route: string; status?: number | undefined }): void;
}

/**
 * Traces to an OpenTelemetry collector, when configured. A stage observer: each stage a stopwatch
 * laps becomes a span under the active one.
 */
export interface Tracer extends StageObserver {
  /** A request's span, continuing the caller's trace when its headers carry a `traceparent`. */
  startRequest(request: {
    method: string;
    route: string;
    url: string;
    headers: Record<string, string | string[] | undefined>;
  }): RequestSpan;
  /** Sends the spans not yet sent (at shutdown, and in tests). */
  flush(): Promise<void>;
}
