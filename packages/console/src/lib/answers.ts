import { splitCitationMarkers } from './text.js';

/** What an answer is: the documents' own sentences, a model's words, or no answer. */
export type AnswerKind = 'extractive' | 'model' | 'declined';

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
