import type { Log } from '../domain/log.js';
import type { IndexHit, Reranker } from '../domain/ports.js';
import { passageText } from './embeddings.js';

/** The optional second stage of a search: a cross-encoder reorders the best candidates. */
export interface RerankStage {
  /** The reranker, or undefined while its model is not available (candidates keep their order). */
  reranker(): Reranker | undefined;
  /** How many of the best candidates are reordered (RERANK_CANDIDATES). */
  candidates: number;
  /** Duration of each reranking call and whether it succeeded (a Prometheus histogram). */
  observe?(seconds: number, outcome: 'ok' | 'failed'): void;
}

/**
 * The ranked candidates with the first `stage.candidates` reordered by the reranker's scores, which
 * then become their scores; the others follow in their order. A failing reranker leaves the order as
 * it was (with a warning), as an unreachable embedding model leaves lexical search.
 */
export async function rerankCandidates(
  stage: RerankStage | undefined,
  query: string,
  ranked: Iterable<IndexHit>,
  log?: Pick<Log, 'warn'>,
): Promise<Iterable<IndexHit>> {
  const reranker = stage?.reranker();
  if (!stage || !reranker) return ranked;
  // Taken from the iterator so that a lazily ranked list is only ranked as far as needed.
  const rest = ranked[Symbol.iterator]();
  const head: IndexHit[] = [];
  while (head.length < stage.candidates) {
    const next = rest.next();
    if (next.done) break;
    head.push(next.value);
  }
  if (head.length < 2) return chain(head, rest);
  const t0 = performance.now();
  let scores: number[];
  try {
    scores = await reranker.score(
      query,
      head.map((h) => passageText(h.row)),
    );
    if (scores.length !== head.length) throw new Error(`${scores.length} scores for ${head.length} passages`);
    stage.observe?.((performance.now() - t0) / 1000, 'ok');
  } catch (err) {
    stage.observe?.((performance.now() - t0) / 1000, 'failed');
    log?.warn(
      { err, model: reranker.model },
      'reranking skipped: the reranker failed; results keep their order',
    );
    return chain(head, rest);
  }
  const reordered = head
    .map((h, i) => ({ row: h.row, score: scores[i]!, at: i }))
    .sort((a, b) => b.score - a.score || a.at - b.at)
    .map(({ row, score }) => ({ row, score }));
  return chain(reordered, rest);
}

/** `first`, then whatever `rest` still yields, taken only as it is read. */
function* chain(first: IndexHit[], rest: Iterator<IndexHit>): Generator<IndexHit> {
  yield* first;
  for (let next = rest.next(); !next.done; next = rest.next()) yield next.value;
}
