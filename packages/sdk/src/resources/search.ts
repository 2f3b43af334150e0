import { DocSlurpError } from '../errors.js';
import { ChatStream } from '../sse.js';
import type { RequestOptions } from '../transport.js';
import type { ChatAnswer, SearchResponse, Sent } from '../types.js';
import { type Api, DEFAULT_TIMEOUT_MS } from './api.js';

export interface SearchParams {
  workspaceId: string;
  q: string;
  /** How many passages to return (server default 10). */
  topK?: number;
  filters?: { documentIds?: string[] };
}

export interface ChatParams {
  workspaceId: string;
  q: string;
  /** How many passages the answer may draw on (server default 8). */
  topK?: number;
  /**
   * Earlier turns of the conversation, oldest first: a follow-up ("How do I enable it?") borrows the
   * user turns' words to find its passages; a chat model reads them all.
   */
  history?: { role: 'user' | 'assistant'; content: string }[];
  /** Answer as a stream of deltas (`for await`). */
  stream?: boolean;
}

/** Passages and answers; neither is repeated automatically, since each costs the server a search. */
export class Search {
  constructor(private readonly api: Api) {}

  search(params: SearchParams, options: RequestOptions | undefined): Promise<SearchResponse> {
    return this.api.post('/v1/search', params satisfies Sent<'search'>, false, options);
  }

  chat(params: ChatParams, options: RequestOptions | undefined): Promise<ChatAnswer | ChatStream> {
    if (!params.stream) {
      return this.api.post<ChatAnswer>('/v1/search/chat', params satisfies Sent<'chat'>, false, options);
    }
    return this.api.send<ChatStream>(
      {
        method: 'POST',
        path: '/v1/search/chat',
        json: params,
        accept: 'text/event-stream',
        retryable: false,
        defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
        keepsBody: true,
        read: async (response, { requestId, release }) => {
          if (!response.body) {
            throw new DocSlurpError('The answer stream has no body.', {
              code: 'invalid_response',
              requestId,
            });
          }
          return new ChatStream(response.body, requestId, options?.signal, release);
        },
      },
      options,
    );
  }
}
