import { NOT_FOUND_ANSWER } from '../../packages/service/src/answers/extractive.js';
import type { ServiceClient } from './driver.js';
import { type AnswerableQuestion, answerPattern, type UnanswerableQuestion } from './manual-set.js';
import { mean, percentile } from './metrics.js';

/** Passages a search returns for each question: what a user sees first. */
export const TOP_K = 5;

/**
 * Text as the answer patterns are matched against: Markdown's code and strong markers and backslash
 * escapes dropped, links reduced to their text, `[n]` citation markers removed, whitespace collapsed.
 * The patterns are written against the page's plain text, so markup the service adds must not decide.
 */
export function comparableText(text: string): string {
  return text
    .replace(/\[(\d+)\]/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|~<>])/g, '$1')
    .replace(/`+|\*\*/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface AnswerableResult {
  id: string;
  q: string;
  split: string;
  kind: string;
  page: string;
  answer: string;
  /**
   * Whether the answer is in the service's extracted text of its page (GET /v1/documents/{id}/text):
   * when it is not, no ranking can find it and the loss is the parser's.
   */
  extracted: boolean;
  /** File names of the top passages, best first, and whether each passage matches the answer. */
  top: { filename: string; matches: boolean }[];
  /** Rank (1-based) of the first passage that matches the answer, or null. */
  answerRank: number | null;
  pageHit: boolean;
  chat: { answer: string; containsAnswer: boolean; declined: boolean; cited: string[] };
}

export interface UnanswerableResult {
  id: string;
  q: string;
  split: string;
  kind: string;
  top: string[];
  chat: { answer: string; declined: boolean; cited: string[] };
}

interface Hit {
  text: string;
  citation: { filename: string };
}

/**
 * Asks every question as a user would: `POST /v1/search` (topK 5, the default mode) and
 * `POST /v1/search/chat` (its defaults), and records what came back.
 */
export async function askManual(
  client: ServiceClient,
  workspaceId: string,
  answerable: readonly AnswerableQuestion[],
  unanswerable: readonly UnanswerableQuestion[],
) {
  const searchMs: number[] = [];
  const chatMs: number[] = [];
  const ask = async (q: string) => {
    const t0 = performance.now();
    const search = await client.search({ workspaceId, q, topK: TOP_K });
    const t1 = performance.now();
    const chat = await client.chat({ workspaceId, q });
    searchMs.push(t1 - t0);
    chatMs.push(performance.now() - t1);
    const hits = search.results as Hit[];
    const answer = chat.answer as string;
    return {
      hits,
      answer,
      declined: answer.trim() === NOT_FOUND_ANSWER,
      cited: (chat.citations as { filename: string }[]).map((c) => c.filename),
    };
  };
  const extracted = await extractedTexts(
    client,
    workspaceId,
    answerable.map((q) => q.page),
  );
  const answered: AnswerableResult[] = [];
  for (const q of answerable) {
    const pattern = answerPattern(q.answer);
    const r = await ask(q.q);
    const top = r.hits.map((h) => ({
      filename: h.citation.filename,
      matches: pattern.test(comparableText(h.text)),
    }));
    const rank = top.findIndex((t) => t.matches);
    answered.push({
      id: q.id,
      q: q.q,
      split: q.split,
      kind: q.kind,
      page: q.page,
      answer: q.answer,
      extracted: pattern.test(comparableText(extracted.get(q.page) ?? '')),
      top,
      answerRank: rank < 0 ? null : rank + 1,
      pageHit: top.some((t) => t.filename === q.page),
      chat: {
        answer: r.answer,
        containsAnswer: !r.declined && pattern.test(comparableText(r.answer)),
        declined: r.declined,
        cited: r.cited,
      },
    });
  }
  const declinedOnes: UnanswerableResult[] = [];
  for (const q of unanswerable) {
    const r = await ask(q.q);
    declinedOnes.push({
      id: q.id,
      q: q.q,
      split: q.split,
      kind: q.kind,
      top: r.hits.map((h) => h.citation.filename),
      chat: { answer: r.answer, declined: r.declined, cited: r.cited },
    });
  }
  return {
    answerable: answered,
    unanswerable: declinedOnes,
    latencyMs: {
      searchP50: percentile(searchMs, 50),
      searchP99: percentile(searchMs, 99),
      chatP50: percentile(chatMs, 50),
      chatP99: percentile(chatMs, 99),
    },
  };
}

/** The service's extracted text of each named document of the workspace, by file name. */
async function extractedTexts(client: ServiceClient, workspaceId: string, filenames: string[]) {
  const { documents } = (await client.get(`/v1/workspaces/${workspaceId}/documents`)) as {
    documents: { id: string; filename: string }[];
  };
  const ids = new Map(documents.map((d) => [d.filename, d.id]));
  const texts = new Map<string, string>();
  for (const name of new Set(filenames)) {
    const id = ids.get(name);
    if (!id) throw new Error(`${name} is not a document of workspace ${workspaceId}`);
    texts.set(name, await client.getText(`/v1/documents/${id}/text`));
  }
  return texts;
}

export interface ManualScores {
  answerable: number;
  /** Share of answerable questions whose answer is in the service's extracted text of its page. */
  answerExtracted: number;
  /** Share of answerable questions with a top-5 passage that matches the answer. */
  answerRecall5: number;
  /** Share with a top-5 passage from the page that answers it. */
  pageHit5: number;
  /** Mean of 1 / rank of the first answer-matching passage (0 when none is in the top 5). */
  mrr5: number;
  /** Share of chat answers that contain the answer. */
  chatContains: number;
  /** Answerable questions the chat declined. */
  falseDeclines: number;
  unanswerable: number;
  /** Unanswerable questions the chat declined. */
  declined: number;
  /** declined / unanswerable. */
  declineRate: number;
}

export function scoreManual(
  answered: readonly AnswerableResult[],
  unanswered: readonly UnanswerableResult[],
): ManualScores {
  const share = (n: number, of: number) => (of === 0 ? Number.NaN : n / of);
  const declined = unanswered.filter((r) => r.chat.declined).length;
  return {
    answerable: answered.length,
    answerExtracted: share(answered.filter((r) => r.extracted).length, answered.length),
    answerRecall5: share(answered.filter((r) => r.answerRank !== null).length, answered.length),
    pageHit5: share(answered.filter((r) => r.pageHit).length, answered.length),
    mrr5: answered.length ? mean(answered.map((r) => (r.answerRank ? 1 / r.answerRank : 0))) : Number.NaN,
    chatContains: share(answered.filter((r) => r.chat.containsAnswer).length, answered.length),
    falseDeclines: answered.filter((r) => r.chat.declined).length,
    unanswerable: unanswered.length,
    declined,
    declineRate: share(declined, unanswered.length),
  };
}
