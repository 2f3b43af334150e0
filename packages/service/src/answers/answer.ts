import { admitQuestion, type QuotaDeps } from '../accounts/quotas.js';
import type { ChatMessage, ChatModel, ChatUsage, DocumentScope } from '../domain/ports.js';
import type { Stopwatch } from '../domain/stopwatch.js';
import type { Principal, SearchHit } from '../domain/types.js';
import { errors } from '../errors.js';
import { analyseQuestion, type Question } from '../search/question.js';
import { checkRequest, REQUEST_DEFAULTS } from '../search/request.js';
import { scopeOf, searchContextOf } from '../search/scope.js';
import { type SearchDeps, type SearchFilters, type SearchMode, searchPassages } from '../search/search.js';
import type { CompoundSplitter } from '../text/compounds.js';
import type { Language } from '../text/language.js';
import { countedTermOf, wordsAbsentFromWorkspace, wordsToLookUp } from './absent.js';
import { type Answer, composeExtractiveAnswer, type ExtractiveOptions } from './extractive.js';
import { composeLlmAnswer, streamLlmAnswer } from './llm.js';
import {
  questionTermsIn,
  type RelevanceThresholds,
  TERM_COUNT_CAP,
  type TermStats,
  termStatsOf,
} from './relevance.js';

export interface AnswerRequest {
  workspaceId: string;
  q: string;
  /** Passages to draw the answer from (REQUEST_DEFAULTS.answerTopK when not given). */
  topK?: number | undefined;
  filters?: SearchFilters | undefined;
  /** How passages are found: the search's default (hybrid when the workspace has vectors) unless given. */
  mode?: SearchMode | undefined;
  /**
   * Earlier turns of the conversation, oldest first: a follow-up question borrows the user turns'
   * words for retrieval (search/follow-up.ts), and a chat model reads them all.
   */
  history?: ChatMessage[] | undefined;
  /** Records the time of each stage, when the caller asked for it. */
  stopwatch?: Stopwatch | undefined;
  /**
   * A question a person asked (chat, a chat completion, MCP's ask): counted against the account's
   * daily quota once the request is found well-formed, or refused when the quota is spent. An
   * evaluation's questions are not counted.
   */
  counted?: boolean | undefined;
}

export interface AnswerDeps extends SearchDeps {
  /** The account quotas a counted question is admitted by (every face's deps have them). */
  quotas?: QuotaDeps['quotas'] | undefined;
  quotaDefaults?: QuotaDeps['quotaDefaults'] | undefined;
  chatModel?: ChatModel | undefined;
  /** Thresholds of the relevance decision and the answerer's options (tuning aids); the defaults otherwise. */
  relevance?: RelevanceThresholds | undefined;
  extractive?: ExtractiveOptions | undefined;
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

/**
 * The question analysed (its language decides how the answer is read and declined), then its
 * passages, found with the same analysis.
 */
async function retrieve(
  deps: AnswerDeps,
  principal: Principal,
  req: AnswerRequest,
): Promise<{ hits: SearchHit[]; question: Question; scope: DocumentScope }> {
  const topK = req.topK ?? REQUEST_DEFAULTS.answerTopK;
  checkRequest({ ...req, topK }, deps.requestLimits);
  if (req.counted) {
    if (!deps.quotas || !deps.quotaDefaults) throw new Error('a counted question needs the quota store');
    await admitQuestion({ quotas: deps.quotas, quotaDefaults: deps.quotaDefaults }, principal);
  }
  const context = await searchContextOf(deps, principal, req.workspaceId);
  // A follow-up borrows the earlier user turns' words for retrieval (search/follow-up.ts).
  const question = await analyseQuestion(deps, req.q, context, true, { history: req.history });
  const hits = await searchPassages(deps, principal, {
    workspaceId: req.workspaceId,
    q: req.q,
    topK,
    filters: req.filters,
    mode: req.mode,
    maxChunksPerDocument: REQUEST_DEFAULTS.answerPassagesPerDocument,
    question,
    context,
    stopwatch: req.stopwatch,
  });
  // The answerer's counts of the workspace's words are over what the caller may see, as its passages are.
  return { hits, question, scope: scopeOf(undefined, context.visibility) };
}

/**
 * The extractive answer, after one look-up in the workspace: its rows, how many hold each term of the
 * question, and whether it holds the names of things the question uses and no passage does.
 */
async function extractive(
  deps: AnswerDeps,
  workspaceId: string,
  hits: SearchHit[],
  asked: Question,
  scope: DocumentScope,
): Promise<Answer> {
  // A translated question is weighed in the senses its passages use, not every sense it was searched with.
  const question = asked.inSensesOf(
    hits.map((h) => ({ text: h.text, language: asked.readingOf(h.language) })),
  );
  const { lexicon } = question;
  let absentFromWorkspace = new Set<string>();
  let stats: TermStats | undefined;
  if (hits.length > 0) {
    // Only WordNet tells nouns apart: the names of things are looked up in the workspace in English only.
    const candidates =
      lexicon && question.language.code === 'en' ? wordsToLookUp(question.text, hits, lexicon) : [];
    const languages = [...new Set(hits.map((h) => question.readingOf(h.language)))];
    const wanted = questionTermsIn(question, languages);
    const terms = [...new Set(wanted.values())];
    const { rows, counts } = await deps.index.termCounts(
      workspaceId,
      [...terms.map((term) => ({ term })), ...candidates.map(countedTermOf)],
      TERM_COUNT_CAP,
      scope,
    );
    const held = new Map(terms.map((t, i) => [t, counts[i]!]));
    if (question.split) {
      countInsideCompounds(held, hits, question.reading);
      compoundsAsOneThing(held, hits, question.reading, question.split, question.text);
    }
    stats = termStatsOf(wanted, rows, held);
    absentFromWorkspace = wordsAbsentFromWorkspace(rows, candidates, counts.slice(terms.length));
  }
  return composeExtractiveAnswer(question, hits, deps.extractive, {
    absentFromWorkspace,
    stats,
    relevance: deps.relevance,
  });
}

/**
 * The index keeps a compound's last part beside it, not the others (search/indexing.ts): a question's
 * "Benutzer" that the workspace writes only in "Benutzerkonto" would count as a word it never names,
 * and the question be declined. Such a term is counted in the retrieved passages instead, read with
 * their compounds' parts.
 */
function countInsideCompounds(held: Map<string, number>, hits: SearchHit[], reading: Language): void {
  const missing = [...held].filter(([, n]) => n === 0).map(([t]) => t);
  if (missing.length === 0) return;
  const passages = hits
    .filter((h) => (h.language ?? 'en') === reading.code)
    .map((h) => new Set(reading.contentTerms(h.text)));
  for (const t of missing) held.set(t, passages.filter((p) => p.has(t)).length);
}

/** How many content words apart a compound's parts may stand in a passage and still name it. */
const PARTS_WINDOW = 3;

/**
 * A question's compound names one thing: "Lastverteilung" (load balancing) is not asked about by a
 * manual that says "Last" in one place and "Verteilung" in another. Unless a retrieved passage holds
 * its parts together (the compound itself, or "die Warteschlange des Druckers" for
 * "Druckerwarteschlange"), its parts count as words the workspace does not hold, as the whole word
 * did before compounds were split, and the decision may decline. (Reading such a compound whole in
 * the question instead, which also takes its parts from the quotes' coverage, lost three answers on
 * the German tune questions: decision 0021.)
 */
function compoundsAsOneThing(
  held: Map<string, number>,
  hits: SearchHit[],
  reading: Language,
  split: CompoundSplitter,
  question: string,
): void {
  const passages = hits
    .filter((h) => (h.language ?? 'en') === reading.code)
    .map((h) => reading.contentTerms(h.text));
  for (const { word } of reading.tokens(question)) {
    const parts = split(word)?.map((p) => reading.term(p));
    if (!parts || parts.some((t) => !held.has(t))) continue;
    if (!passages.some((terms) => partsTogether(terms, parts))) for (const t of parts) held.set(t, 0);
  }
}

/** Whether each part stands within PARTS_WINDOW content words of the next one somewhere in `terms`. */
function partsTogether(terms: string[], parts: string[]): boolean {
  const at = (t: string) => terms.flatMap((x, i) => (x === t ? [i] : []));
  for (let k = 0; k + 1 < parts.length; k++) {
    const a = at(parts[k]!);
    const b = at(parts[k + 1]!);
    if (!a.some((x) => b.some((y) => Math.abs(x - y) <= PARTS_WINDOW))) return false;
  }
  return true;
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
  const { hits, question, scope } = await retrieve(deps, principal, req);
  if (!deps.chatModel) {
    const answer = await extractive(deps, req.workspaceId, hits, question, scope);
    req.stopwatch?.lap('answer');
    return { ...answer, usage: undefined };
  }
  const answer = await composeLlmAnswer(
    deps.chatModel,
    req.q,
    hits,
    req.history ?? [],
    question.language,
  ).catch(modelFailure);
  req.stopwatch?.lap('model');
  return answer;
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
  const { hits, question, scope } = await retrieve(deps, principal, req);
  const model = deps.chatModel;
  if (!model) {
    const answer = await extractive(deps, req.workspaceId, hits, question, scope);
    return (async function* () {
      // One delta per cited sentence; concatenated, the deltas are exactly the answer.
      for (const piece of piecesAfterMarkers(answer.answer)) yield { delta: piece };
      return { ...answer, usage: undefined };
    })();
  }
  return (async function* () {
    try {
      return yield* streamLlmAnswer(model, req.q, hits, req.history ?? [], question.language, signal);
    } catch (err) {
      modelFailure(err);
    }
  })();
}
