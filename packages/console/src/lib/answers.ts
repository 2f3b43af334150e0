/**
 * Whether an answer was written by a model or quoted from the passages. The API does not say which
 * (no field in the chat answer, nothing in /ready or the OpenAI-compatible endpoints), but the
 * extractive answerer that runs when no chat model is configured has one exact shape: each cited
 * quote, its bracketed numbers in parentheses, followed by its marker, joined by spaces
 * (packages/service/src/answers/extractive.ts). A model's answer has that shape only by accident.
 */

interface Quoted {
  n: number;
  text: string;
}

/** A quote's own bracketed numbers read "(2)", so that only the answer's markers are brackets. */
const neutralise = (text: string) => text.replace(/\[(\s*\d+(?:\s*[,;]\s*\d+)*\s*)\]/g, '($1)');

/** The answer's quotes, one per citation, when the answer is only quotes; undefined otherwise. */
export function quotesOf(answer: string, citations: Quoted[]): Quoted[] | undefined {
  if (citations.length === 0) return undefined;
  const quotes = citations.map((c) => ({ n: c.n, text: neutralise(c.text) }));
  return answer === quotes.map((q) => `${q.text} [${q.n}]`).join(' ') ? quotes : undefined;
}
