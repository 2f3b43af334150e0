import { splitCitationMarkers } from './text.js';

/** What an answer is: the documents' own sentences, a model's words, or no answer. */
export type AnswerKind = 'extractive' | 'model' | 'declined';

interface Quoted {
  n: number;
  text: string;
}

/**
 * The answer's kind, as the API says it (`kind`). A server from before `kind` does not say: then, as
 * before, an answer that has exactly the shape of the extractive answerer's (each cited quote, its
 * own bracketed numbers in parentheses, followed by its marker, joined by spaces: service
 * answers/extractive.ts) is taken for quotes. Delete the guess once every server sends `kind`.
 */
export function answerKind(a: { answer: string; citations: Quoted[]; kind?: unknown }): AnswerKind {
  if (a.kind === 'extractive' || a.kind === 'model' || a.kind === 'declined') return a.kind;
  if (a.citations.length === 0) return 'declined';
  const neutralise = (text: string) => text.replace(/\[(\s*\d+(?:\s*[,;]\s*\d+)*\s*)\]/g, '($1)');
  const shape = a.citations.map((c) => `${neutralise(c.text)} [${c.n}]`).join(' ');
  return a.answer === shape ? 'extractive' : 'model';
}

/** An extractive answer's quotes: the words before each marker, with the markers that follow them. */
export function quotesIn(answer: string): { text: string; ns: number[] }[] {
  const quotes: { text: string; ns: number[] }[] = [];
  let pending = '';
  for (const part of splitCitationMarkers(answer)) {
    if ('text' in part) {
      pending += part.text;
      continue;
    }
    const text = pending.trim();
    pending = '';
    const last = quotes.at(-1);
    if (text === '' && last) last.ns.push(part.n);
    else quotes.push({ text, ns: [part.n] });
  }
  if (pending.trim()) quotes.push({ text: pending.trim(), ns: [] });
  return quotes;
}
