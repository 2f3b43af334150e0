import { ConnectionError, DocSlurpError, StreamError } from './errors.js';
import type { AnswerCitation, ChatAnswer } from './types.js';

export interface ServerSentEvent {
  event: string;
  data: string;
}

/**
 * Incremental parser for `text/event-stream` (the WHATWG "server-sent events" format): feed it decoded
 * text in chunks of any size; it returns the events completed so far. Lines may end in LF, CRLF or CR,
 * even when a CRLF pair is split between two chunks.
 */
export class EventStreamParser {
  private buffer = '';
  private skipLeadingLf = false;
  private eventType = '';
  private data: string[] = [];

  push(chunk: string): ServerSentEvent[] {
    let text = chunk;
    if (this.skipLeadingLf && text.startsWith('\n')) text = text.slice(1);
    this.skipLeadingLf = false;
    this.buffer += text;
    const events: ServerSentEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      this.line(this.buffer.slice(start, i), events);
      if (c === '\r') {
        if (i + 1 < this.buffer.length) {
          if (this.buffer[i + 1] === '\n') i++;
        } else {
          // The LF of this CRLF may be the first character of the next chunk.
          this.skipLeadingLf = true;
        }
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private line(line: string, events: ServerSentEvent[]): void {
    if (line === '') {
      if (this.data.length > 0)
        events.push({ event: this.eventType || 'message', data: this.data.join('\n') });
      this.eventType = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.eventType = value;
    else if (field === 'data') this.data.push(value);
  }
}

/** One piece of a streamed answer. The pieces' `text`, concatenated, is the answer. */
export interface ChatDelta {
  text: string;
}

/**
 * A streamed answer: iterate it with `for await` to get the deltas as they arrive, then read `answer`
 * and `citations` (or call `finalAnswer()`, which also works without iterating). It can be iterated once.
 */
export class ChatStream implements AsyncIterable<ChatDelta> {
  /** The request id, for the server's logs. */
  readonly requestId: string;
  private citationsSeen: AnswerCitation[] | undefined;
  private result: ChatAnswer | undefined;
  private started = false;
  private failure: unknown;
  private finished: Promise<void> | undefined;

  constructor(
    private readonly body: ReadableStream<Uint8Array>,
    requestId: string,
    private readonly signal: AbortSignal | undefined,
    private readonly release: () => void,
  ) {
    this.requestId = requestId;
  }

  /**
   * The whole answer. Read it once the stream has ended (after the `for await` loop); before that it
   * throws a DocSlurpError with code `stream_not_finished`, so that the type needs no `undefined`.
   */
  get answer(): string {
    if (this.result) return this.result.answer;
    throw this.notFinished('answer');
  }

  /**
   * The citations the answer's [n] markers point to. They arrive after the last delta: read them after
   * the `for await` loop; before they have arrived this throws (code `stream_not_finished`).
   */
  get citations(): AnswerCitation[] {
    const citations = this.result?.citations ?? this.citationsSeen;
    if (citations) return citations;
    throw this.notFinished('citations');
  }

  private notFinished(what: string): DocSlurpError {
    return new DocSlurpError(
      `The ${what} of a streamed answer can be read once the stream has ended: after the for await loop, or from await stream.finalAnswer().`,
      { code: 'stream_not_finished', requestId: this.requestId },
    );
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatDelta> {
    if (this.started) {
      throw new DocSlurpError('This answer stream has already been read; a stream can be iterated once.', {
        code: 'stream_consumed',
        requestId: this.requestId,
      });
    }
    this.started = true;
    return this.deltas();
  }

  /** Reads the rest of the stream (if nobody iterates it) and returns the answer and its citations. */
  async finalAnswer(): Promise<ChatAnswer> {
    if (!this.started) {
      this.finished = (async () => {
        for await (const _ of this) {
          // Only the final record matters here.
        }
      })();
    }
    await this.finished?.catch(() => {});
    if (this.result) return this.result;
    throw (
      this.failure ??
      new DocSlurpError('The answer stream was stopped before it ended.', {
        code: 'stream_stopped',
        requestId: this.requestId,
      })
    );
  }

  /** Stops reading and closes the connection. */
  async cancel(): Promise<void> {
    await this.body.cancel().catch(() => {});
    this.release();
  }

  private async *deltas(): AsyncGenerator<ChatDelta> {
    const reader = this.body.getReader();
    const decoder = new TextDecoder();
    const parser = new EventStreamParser();
    let drained = false;
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (this.signal?.aborted) throw this.signal.reason;
          throw new ConnectionError(
            `The answer stream broke off: ${err instanceof Error ? err.message : String(err)}`,
            { requestId: this.requestId, cause: err },
          );
        }
        drained = chunk.done;
        // An event without its closing blank line at the end is incomplete and, as the format says, dropped.
        const text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
        for (const event of parser.push(text)) {
          const delta = this.handle(event);
          if (delta) yield delta;
          if (this.result) return;
        }
        if (chunk.done) {
          throw new ConnectionError('The answer stream ended before its "done" event.', {
            requestId: this.requestId,
          });
        }
      }
    } catch (err) {
      this.failure = err;
      throw err;
    } finally {
      // Runs on normal end, on error, and when the consumer breaks out of its loop.
      if (!drained) await reader.cancel().catch(() => {});
      reader.releaseLock();
      this.release();
    }
  }

  private handle(event: ServerSentEvent): ChatDelta | undefined {
    const data = parseData(event, this.requestId);
    switch (event.event) {
      case 'delta':
        return { text: String((data as { text?: unknown }).text ?? '') };
      case 'citations':
        this.citationsSeen = (data as { citations: AnswerCitation[] }).citations;
        return undefined;
      case 'done':
        this.result = data as ChatAnswer;
        return undefined;
      case 'error': {
        const e =
          (data as { error?: { code?: unknown; message?: unknown; requestId?: unknown } }).error ?? {};
        throw new StreamError(typeof e.message === 'string' ? e.message : 'The answer stream failed.', {
          code: typeof e.code === 'string' ? e.code : 'stream_error',
          requestId: typeof e.requestId === 'string' ? e.requestId : this.requestId,
        });
      }
      default:
        // Event types added later are not for this client version.
        return undefined;
    }
  }
}

function parseData(event: ServerSentEvent, requestId: string): unknown {
  try {
    return JSON.parse(event.data);
  } catch {
    throw new DocSlurpError(`The answer stream sent a "${event.event}" event that is not JSON.`, {
      code: 'invalid_response',
      requestId,
    });
  }
}
