/** The parts of an OpenAPI document this file reads and changes. */
interface Response {
  content?: Record<string, { schema?: unknown }>;
  'x-stream'?: { description: string; content: Record<string, { schema?: unknown }> };
}
interface Document {
  paths?: Record<string, Record<string, unknown>>;
}

const EVENT_STREAM = 'text/event-stream';

/**
 * A 200 that is JSON or, when the request says `stream: true`, server-sent events: the JSON stays the
 * response's content and the stream moves to an extension beside it, `x-stream`. Declared as a second
 * media type of the same response, the stream made a generated client (openapi-typescript with
 * openapi-fetch) type a plain call's data as the JSON answer or a string, whose fields strict
 * TypeScript refuses to read (TS2339); a caller who wants the stream asks for it explicitly anyway
 * (openapi-fetch's parseAs: 'stream', docs/api.md).
 */
export function streamsBesideJson(doc: Document): void {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(operations) as { responses?: Record<string, Response> }[]) {
      const ok = op.responses?.['200'];
      const stream = ok?.content?.[EVENT_STREAM];
      if (!ok?.content || !stream || !ok.content['application/json']) continue;
      delete ok.content[EVENT_STREAM];
      ok['x-stream'] = {
        description:
          'Sent instead of the JSON answer when the request body has `stream: true` (Content-Type: text/event-stream)',
        content: { [EVENT_STREAM]: stream },
      };
    }
  }
}
