import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP JSON export carries it (ids in hex). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  /** `service.name` of the resource that sent it. */
  service: string;
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}

const attributeValue = (v: Record<string, unknown>) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributesOf = (kvs: KeyValue[] | undefined) =>
  Object.fromEntries((kvs ?? []).map((kv) => [kv.key, attributeValue(kv.value)]));

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  /** Every span received so far, and the paths and content types they were POSTed with. */
  spans: ReceivedSpan[];
  requests: { path: string; contentType: string | undefined }[];
  close(): Promise<void>;
}

/**
 * An OTLP/HTTP trace receiver on loopback, as a collector's `otlp` receiver on port 4318: it takes
 * JSON exports (`resourceSpans[].scopeSpans[].spans[]`) at `/v1/traces` and keeps their spans.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'] });
      if (req.url !== '/v1/traces' || !req.headers['content-type']?.startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes?: KeyValue[] };
          scopeSpans: {
            spans: (Omit<ReceivedSpan, 'attributes' | 'service'> & { attributes?: KeyValue[] })[];
          }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        const service = String(attributesOf(rs.resource.attributes)['service.name']);
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            spans.push({
              ...s,
              parentSpanId: s.parentSpanId ?? '',
              links: s.links ?? [],
              attributes: attributesOf(s.attributes),
              service,
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
