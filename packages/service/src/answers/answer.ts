import type { ChatMessage, ChatModel, ChatUsage, Lexicon } from '../domain/ports.js';
import type { Principal, SearchHit } from '../domain/types.js';
import { errors } from '../errors.js';
import { type SearchDeps, type SearchFilters, searchWorkspace } from '../search/search.js';
import { wordsAbsentFromWorkspace, wordsToLookUp } from './absent.js';
import { type Answer, composeExtractiveAnswer } from './extractive.js';
import { composeLlmAnswer, streamLlmAnswer } from './llm.js';

export interface AnswerRequest {
  workspaceId: string;
  q: string;
  topK: number;
  filters?: SearchFilters | undefined;
  /** Earlier turns of the conversation (used by the chat model; the extractive answerer ignores them). */
  history?: ChatMessage[] | undefined;
}

export interface AnswerDeps extends SearchDeps {
  chatModel?: ChatModel | undefined;
  /** Ordinary English words, so that the extractive answerer can tell when a question names something absent. */
  lexicon?: Lexicon | undefined;
}

/** The text cut after each marker and the whitespace after it: "a [1] b [2]" is "a [1] ", "b [2]". */
export function piecesAfterMarkers(text: string): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (const m of text.matchAll(/\[\d+\]\s*/g)) {
    const end = m.index + m[0].length;
    pieces.push(text.slice(from, end));
    from = end;
  }
  if (from < text.length) pieces.push(text.slice(from));
  return pieces.length > 0 ? pieces : [text];
}

export interface AnswerResult extends Answer {
  usage: ChatUsage | undefined;
}

async function retrieve(deps: AnswerDeps, principal: Principal, req: AnswerRequest) {
  return searchWorkspace(deps, principal, {
    workspaceId: req.workspaceId,
    q: req.q,
    topK: req.topK,
    filters: req.filters,
    maxChunksPerDocument: 3,
  });
}

/** The extractive answer, after looking up in the workspace the question's words no passage uses. */
async function extractive(deps: AnswerDeps, req: AnswerRequest, hits: SearchHit[]): Promise<Answer> {
  const lexicon = deps.lexicon;
  const candidates = lexicon && hits.length > 0 ? wordsToLookUp(req.q, hits, lexicon) : [];
  const absentFromWorkspace = await wordsAbsentFromWorkspace(deps.index, req.workspaceId, candidates);
  return composeExtractiveAnswer(req.q, hits, undefined, { lexicon, absentFromWorkspace });
}

function modelFailure(err: unknown): never {
  throw errors.modelUnavailable(`The answer model failed: ${(err as Error).message}`);
}

/**
 * A grounded answer: retrieve passages, then answer only from them, citing each statement. With a
 * chat model configured it writes the answer; otherwise the extractive answerer quotes sentences.
 */
export async function answerQuestion(
  deps: AnswerDeps,
  principal: Principal,
  req: AnswerRequest,
): Promise<AnswerResult> {
  const hits = await retrieve(deps, principal, req);
  if (!deps.chatModel) return { ...(await extractive(deps, req, hits)), usage: undefined };
  return composeLlmAnswer(deps.chatModel, req.q, hits, req.history ?? []).catch(modelFailure);
}

/**
 * The same answer as a stream of text deltas, then the whole answer. Retrieval (and its errors:
 * unknown workspace, bad filters) happens before the first delta, so callers can still answer
 * those with a normal error response.
 */
export async function answerStream(
  deps: AnswerDeps,
  principal: Principal,
  req: AnswerRequest,
  signal?: AbortSignal,
): Promise<AsyncGenerator<{ delta: string }, AnswerResult>> {
  const hits = await retrieve(deps, principal, req);
  const model = deps.chatModel;
  if (!model) {
    const answer = await extractive(deps, req, hits);
    return (async function* () {
      // One delta per cited sentence; concatenated, the deltas are exactly the answer.
      for (const piece of piecesAfterMarkers(answer.answer)) yield { delta: piece };
      return { ...answer, usage: undefined };
    })();
  }
  return (async function* () {
    try {
      return yield* streamLlmAnswer(model, req.q, hits, req.history ?? [], signal);
    } catch (err) {
      modelFailure(err);
    }
  })();
}
