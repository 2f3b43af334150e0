/**
 * Retrieval and answer metrics with their standard definitions (as in trec_eval / BEIR): graded gain
 * rel / log2(rank + 1), ideal ranking from the judgments, queries without a relevant hit score 0.
 */

/** Relevance judgments of one query: document id → grade (> 0 is relevant). */
export type Judgments = ReadonlyMap<string, number>;

export function dcg(gains: readonly number[]): number {
  return gains.reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
}

/** nDCG@k of one ranked list of document ids (duplicates after the first are ignored). */
export function ndcgAt(k: number, ranked: readonly string[], judged: Judgments): number {
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = dcg(ideal);
  if (idcg === 0) return 0;
  const seen = new Set<string>();
  const gains: number[] = [];
  for (const id of ranked) {
    if (seen.has(id)) continue;
    seen.add(id);
    gains.push(judged.get(id) ?? 0);
    if (gains.length === k) break;
  }
  return dcg(gains) / idcg;
}

/** Share of the relevant documents found in the first k distinct ids. */
export function recallAt(k: number, ranked: readonly string[], judged: Judgments): number {
  const relevant = [...judged].filter(([, g]) => g > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set([...new Set(ranked)].slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Nearest-rank percentile (p in 0..100) of a sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Whether `answer` contains one of the gold answers, both normalised the SQuAD way. */
export function containsGold(answer: string, golds: readonly string[]): boolean {
  const a = ` ${normalizeAnswer(answer)} `;
  return golds.some((g) => {
    const n = normalizeAnswer(g);
    return n.length > 0 && a.includes(` ${n} `);
  });
}

/** `[n]` markers of an answer that no citation carries. */
export function unresolvedMarkers(answer: string, citationNumbers: readonly number[]): number[] {
  const known = new Set(citationNumbers);
  return [...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])).filter((n) => !known.has(n));
}
