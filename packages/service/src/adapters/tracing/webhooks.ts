import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { WebhookSender } from '../../domain/ports.js';
import { TRACER_NAME, traceHeaders } from './propagate.js';

/**
 * Each delivery attempt in a client span `webhook delivery`, whose `traceparent` goes to the
 * receiver (the signature covers the body only, so the header changes nothing the receiver checks).
 */
export function tracedWebhookSender(sender: WebhookSender): WebhookSender {
  return {
    send: (request) =>
      trace.getTracer(TRACER_NAME).startActiveSpan(
        'webhook delivery',
        {
          kind: SpanKind.CLIENT,
          // The host only: an endpoint's path or query may hold a token of the receiver's.
          attributes: { 'http.request.method': 'POST', 'server.address': new URL(request.url).hostname },
        },
        async (span) => {
          try {
            const response = await sender.send({
              ...request,
              headers: { ...request.headers, ...traceHeaders() },
            });
            if (response.statusCode !== null)
              span.setAttribute('http.response.status_code', response.statusCode);
            if (response.error) span.setStatus({ code: SpanStatusCode.ERROR, message: response.error });
            return response;
          } finally {
            span.end();
          }
        },
      ),
  };
}
