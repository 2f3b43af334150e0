import type { ChatMessage, ChatModel, ChatUsage } from '../domain/ports.js';
import type { SearchHit } from '../domain/types.js';
import { trimEndWhile } from '../strings.js';
import { ENGLISH, type Language, languageFor } from '../text/language.js';
import { type Answer, type AnswerCitation, declined as declineIn } from './extractive.js';
import { markerChecker, neutraliseMarkers } from './markers.js';

/** What the model is told to reply, exactly, when the sources lack the answer. */
export const NOT_IN_SOURCES = 'NOT_IN_WORKSPACE';

const SYSTEM_PROMPT = `You answer questions about a user's documents using only the numbered sources you are given.
Rules:
- Use only facts stated in the sources. Do not use outside knowledge.
- After every sentence that uses a source, cite it with its number in square brackets, e.g. [2] or [1][3].
- Cite only numbers that appear in the list of sources.
- Be brief: a few sentences.
- Answer in the language of the question, whatever the language of the sources.
- If the sources do not contain the answer, reply with exactly ${NOT_IN_SOURCES} and nothing else.`;

function describe(hit: SearchHit, n: number): string {
  const c = hit.citation;
  const where = [c.filename, c.page !== null ? `page ${c.page}` : null, c.headingPath.join(' > ') || null]
    .filter(Boolean)
    .join(', ');
  // The passage's own bracketed numbers must not look like the numbers of the sources.
  return `[${n}] (${neutraliseMarkers(where)})\n${neutraliseMarkers(hit.text.trim())}`;
}

/** The prompt: the rules, earlier turns of the conversation, then the sources and the question. */
export function buildMessages(
  question: string,
  hits: SearchHit[],
  history: ChatMessage[] = [],
): ChatMessage[] {
  const sources = hits.map((h, i) => describe(h, i + 1)).join('\n\n');
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    ...history.filter((m) => m.role !== 'system'),
    { role: 'user', content: `Sources:\n\n${sources}\n\nQuestion: ${question}` },
  ];
}

function citationsFor(hits: SearchHit[], cited: number[]): AnswerCitation[] {
  return cited.map((n) => {
    const hit = hits[n - 1]!;
    return { ...hit.citation, n, text: hit.text };
  });
}

/**
 * Where an unfinished marker at the end of a streamed text begins (its last "[" followed only by
 * digits, commas, semicolons or spaces, with the whitespace before it); -1 when there is none.
 */
export function unfinishedMarkerAt(raw: string): number {
  const bracket = raw.lastIndexOf('[');
  if (bracket < 0) return -1;
  for (let i = bracket + 1; i < raw.length; i++) if (!/[\d,; ]/.test(raw[i]!)) return -1;
  let start = bracket;
  while (start > 0 && /\s/.test(raw[start - 1]!)) start--;
  return start;
}

function saysNotInSources(text: string): boolean {
  return (
    trimEndWhile(text.trim(), (c) => c === '.' || /\s/.test(c)).toUpperCase() === NOT_IN_SOURCES ||
    text.trim().startsWith(NOT_IN_SOURCES)
  );
}

const checkerFor = (hits: SearchHit[]) =>
  markerChecker(
    hits.map((h) => h.text),
    hits.map((h) => languageFor(h.language ?? 'en')),
  );

/** The model's answer with checked markers, or the "not in the workspace" answer. */
export function finishAnswer(raw: string, hits: SearchHit[], language: Language = ENGLISH): Answer {
  if (saysNotInSources(raw)) return declineIn(language);
  const { text, cited } = checkerFor(hits)(raw);
  if (!text) return declineIn(language);
  return { answer: text, citations: citationsFor(hits, cited), kind: 'model' };
}

export interface LlmAnswer extends Answer {
  usage: ChatUsage | undefined;
}

export async function composeLlmAnswer(
  model: ChatModel,
  question: string,
  hits: SearchHit[],
  history: ChatMessage[],
  language: Language = ENGLISH,
  signal?: AbortSignal,
): Promise<LlmAnswer> {
  if (hits.length === 0) return { ...declineIn(language), usage: undefined };
  const { text, usage } = await model.complete({ messages: buildMessages(question, hits, history), signal });
  return { ...finishAnswer(text, hits, language), usage };
}

/**
 * Streams the model's answer with markers checked on the fly: text is held back only while it may
 * still be the start of a marker (or of the "not in the workspace" reply), so every delta sent is
 * final. The deltas concatenated equal the finished answer.
 */
export async function* streamLlmAnswer(
  model: ChatModel,
  question: string,
  hits: SearchHit[],
  history: ChatMessage[],
  language: Language = ENGLISH,
  signal?: AbortSignal,
): AsyncGenerator<{ delta: string }, LlmAnswer> {
  const decline = declineIn(language);
  if (hits.length === 0) {
    yield { delta: decline.answer };
    return { ...decline, usage: undefined };
  }
  let raw = '';
  let sent = 0;
  let usage: ChatUsage | undefined;
  let declinedAnswer = false;
  let out = '';
  const checkMarkers = checkerFor(hits);
  const emit = (final: boolean) => {
    if (
      !final &&
      raw.trimStart().length < NOT_IN_SOURCES.length &&
      NOT_IN_SOURCES.startsWith(raw.trimStart())
    ) {
      return '';
    }
    if (saysNotInSources(raw)) {
      declinedAnswer = true;
      return '';
    }
    // Everything up to a possible unfinished marker (an open "[" with digits, commas or spaces) is final.
    const open = final ? -1 : unfinishedMarkerAt(raw);
    const upTo = open === -1 ? raw.length : open;
    if (upTo <= sent) return '';
    const cleanedAll = checkMarkers(raw.slice(0, upTo)).text;
    const piece = cleanedAll.slice(out.length);
    sent = upTo;
    out = cleanedAll;
    return piece;
  };
  for await (const item of model.stream({ messages: buildMessages(question, hits, history), signal })) {
    if ('usage' in item) {
      usage = item.usage;
      continue;
    }
    raw += item.delta;
    const piece = emit(false);
    if (piece) yield { delta: piece };
  }
  const last = emit(true);
  if (declinedAnswer || (!out && !last)) {
    yield { delta: decline.answer };
    return { ...decline, usage };
  }
  if (last) yield { delta: last };
  const finished = finishAnswer(raw, hits, language);
  return { answer: out, citations: finished.citations, kind: 'model', usage };
}
