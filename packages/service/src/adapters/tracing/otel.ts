import {
  type Tracer as ApiTracer,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { TracingConfig } from '../../config/tracing.js';
import type { RequestSpan, SpanIds, Tracer } from '../../domain/tracing.js';
import { TRACER_NAME } from './propagate.js';

class OtelRequestSpan implements RequestSpan {
  readonly ids: SpanIds;
  private readonly context: Context;
  private ended = false;

  constructor(
    private readonly span: Span,
    parent: Context,
  ) {
    const { traceId, spanId } = span.spanContext();
    this.ids = { traceId, spanId };
    this.context = trace.setSpan(parent, span);
  }

  run<T>(fn: () => T): T {
    return context.with(this.context, fn);
  }

  end({ route, status }: { route: string; status?: number | undefined }): void {
    // A request aborted by its client may still answer afterwards: the first ending counts.
    if (this.ended) return;
    this.ended = true;
    this.span.setAttribute('http.route', route);
    if (status === undefined)
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: 'the client went away before the answer' });
    else {
      this.span.setAttribute('http.response.status_code', status);
      if (status >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();
  }
}

const nameOf = (method: string, route: string) => `${method} ${route}`;

class OtelTracer implements Tracer {
  constructor(
    private readonly tracer: ApiTracer,
    private readonly provider: { forceFlush(): Promise<void> },
  ) {}

  startRequest(request: {
    method: string;
    route: string;
    url: string;
    headers: Record<string, string | string[] | undefined>;
  }): RequestSpan {
    // A caller's `traceparent` makes this request a child of its span: the trace goes on.
    const parent = propagation.extract(context.active(), request.headers, {
      get: (carrier, key) => carrier[key],
      keys: (carrier) => Object.keys(carrier),
    });
    const span = this.tracer.startSpan(
      nameOf(request.method, request.route),
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'url.path': request.url.split('?', 1)[0] ?? request.url,
        },
      },
      parent,
    );
    return new OtelRequestSpan(span, parent);
  }

  stage(name: string, startMs: number, endMs: number): void {
    this.tracer.startSpan(name, { startTime: startMs }, context.active()).end(endMs);
  }

  flush(): Promise<void> {
    return this.provider.forceFlush();
  }
}

let started: { key: string; tracer: Promise<Tracer> } | undefined;

/**
 * Starts the OpenTelemetry SDK once per process (a provider is global: the context manager and the
 * propagator with it) and gives the service's tracer. The SDK is imported only here, when tracing
 * is configured: a service without it loads none of it.
 */
export function startTracing(config: TracingConfig): Promise<Tracer> {
  const key = JSON.stringify(config);
  if (started) {
    if (started.key !== key)
      throw new Error('tracing was already started in this process with another configuration');
    return started.tracer;
  }
  const tracer = (async (): Promise<Tracer> => {
    const [node, otlp, resources, core] = await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
    ]);
    // OTEL_RESOURCE_ATTRIBUTES (and OTEL_SERVICE_NAME, which the detector reads too) add to the name.
    const resource = resources
      .resourceFromAttributes({ 'service.name': config.serviceName })
      .merge(resources.detectResources({ detectors: [resources.envDetector] }));
    const provider = new node.NodeTracerProvider({
      resource,
      spanProcessors: [new node.BatchSpanProcessor(new otlp.OTLPTraceExporter({ url: config.endpoint }))],
    });
    provider.register({ propagator: new core.W3CTraceContextPropagator() });
    return new OtelTracer(trace.getTracer(TRACER_NAME), provider);
  })();
  started = { key, tracer };
  return tracer;
}
