import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors } from '../errors.js';

/**
 * Server-sent events on a hijacked reply. Events are `event: <name>` plus one JSON `data:` line.
 * An error after the stream started is sent as an `error` event with the usual error body.
 */
export class EventStream {
  private constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {}

  static open(request: FastifyRequest, reply: FastifyReply): EventStream {
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
      'x-content-type-options': 'nosniff',
    });
    return new EventStream(request, reply);
  }

  send(event: string, data: unknown): void {
    this.reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A bare `data:` event, as OpenAI-style streams send them. */
  data(payload: string): void {
    this.reply.raw.write(`data: ${payload}\n\n`);
  }

  fail(err: unknown): void {
    const e = err instanceof AppError ? err : errors.internal();
    if (!(err instanceof AppError)) this.request.log.error({ err }, 'stream failed');
    this.send('error', { error: { code: e.code, message: e.message, requestId: this.request.id } });
  }

  end(): void {
    this.reply.raw.end();
  }
}
