import type { ChatModel, ChatRequest, ChatUsage } from '../../domain/ports.js';
import { withoutTrailingSlashes } from '../../strings.js';
import { fetchWithRetry, type RetryPolicy } from './http-retry.js';

export interface OpenAiChatOptions {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  maxTokens: number;
  temperature: number;
  timeoutMs: number;
  retry: RetryPolicy;
}

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

const usageOf = (u: Usage | undefined | null): ChatUsage | undefined =>
  u ? { promptTokens: u.prompt_tokens ?? 0, completionTokens: u.completion_tokens ?? 0 } : undefined;

/** Server-sent events of a response body: the `data:` payload of each event. */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let cut = buffer.search(/\r?\n\r?\n/);
    while (cut !== -1) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) yield data;
      cut = buffer.search(/\r?\n\r?\n/);
    }
  }
}

/** Any server that speaks OpenAI's `POST /chat/completions` (OpenAI, Ollama, vLLM, llama.cpp, LiteLLM…). */
export class OpenAiChatModel implements ChatModel {
  readonly model: string;

  constructor(private readonly options: OpenAiChatOptions) {
    this.model = options.model;
  }

  private async post(req: ChatRequest, stream: boolean): Promise<Response> {
    return fetchWithRetry(
      `${withoutTrailingSlashes(this.options.baseUrl)}/chat/completions`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.options.model,
          messages: req.messages,
          max_tokens: req.maxTokens ?? this.options.maxTokens,
          temperature: req.temperature ?? this.options.temperature,
          stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
        }),
      },
      { ...this.options.retry, timeoutMs: this.options.timeoutMs, what: 'chat model' },
      req.signal,
    );
  }

  async complete(req: ChatRequest) {
    const res = await this.post(req, false);
    const json = (await res.json()) as {
      choices?: { message?: { content?: string | null } }[];
      usage?: Usage;
    };
    const text = json.choices?.[0]?.message?.content;
    if (typeof text !== 'string') throw new Error('chat model returned no message content');
    return { text, usage: usageOf(json.usage) };
  }

  async *stream(req: ChatRequest): AsyncGenerator<{ delta: string } | { usage: ChatUsage }> {
    const res = await this.post(req, true);
    if (!res.body) throw new Error('chat model returned an empty stream');
    for await (const data of sseData(res.body)) {
      if (data === '[DONE]') return;
      const chunk = JSON.parse(data) as {
        choices?: { delta?: { content?: string | null } }[];
        usage?: Usage | null;
        error?: { message?: string };
      };
      if (chunk.error) throw new Error(`chat model stream failed: ${chunk.error.message ?? 'unknown error'}`);
      const delta = chunk.choices?.[0]?.delta?.content;
      if (delta) yield { delta };
      const usage = usageOf(chunk.usage);
      if (usage) yield { usage };
    }
  }
}
