import type { Log } from '../domain/log.js';
import type {
  ChatMessage,
  Dictionaries,
  IndexHit,
  LanguageDetector,
  Lexicons,
  SearchIndex,
} from '../domain/ports.js';
import type { Stopwatch } from '../domain/stopwatch.js';
import type { DocumentOrigin, DocumentStore, SearchContext, WorkspaceStore } from '../domain/stores.js';
import type { Citation, Principal, SearchHit } from '../domain/types.js';
import { errors } from '../errors.js';
import type { EmbeddingService } from './embeddings.js';
import { type Snippet, snippetOf } from './passages.js';
import { analyseQuestion, type Question } from './question.js';
import {
  codesOf,
  fuse,
  rescoredInOrder,
  rescoreLexical,
  rowLanguage,
  withDocumentEvidence,
} from './ranking.js';
import { lexicalCandidates } from './readings.js';
import { checkRequest, type RequestLimits, type SearchFilters } from './request.js';
import { type RerankStage, rerankCandidates } from './rerank.js';
import { scopeOf, searchContextOf } from './scope.js';
import { DuplicateFilter } from './word-codes.js';

export type SearchMode = 'lexical' | 'vector' | 'hybrid';
export type { SearchFilters };

export interface SearchRequest {
  workspaceId: string;
  q: string;
  topK: number;
  /** Default: hybrid when the workspace has vectors the service can query, else lexical. */
  mode?: SearchMode | undefined;
  filters?: SearchFilters | undefined;
  maxChunksPerDocument?: number | undefined;
  /** The query analysed, when the caller has done so already (the answerer); else analysed here. */
  question?: Question | undefined;
  /** Earlier turns of a conversation, which a follow-up borrows words from (an evaluation's questions). */
  history?: readonly ChatMessage[] | undefined;
  /** The workspace as the caller sees it, when the caller has read it already (the answerer). */
  context?: SearchContext | undefined;
  /** Records the time of each stage, when the caller asked for it. */
  stopwatch?: Stopwatch | undefined;
}

/** Resolves filters other than document ids to the ready documents they allow. */
export interface DocumentFilterStore {
  documentIdsMatching(workspaceId: string, filters: SearchFilters): Promise<string[]>;
}

export interface SearchOptions {
  /** Share of the vector ranking in hybrid fusion (0 = lexical only, 1 = vector only). */
  hybridVectorWeight: number;
  /** Reciprocal-rank constant of the fusion. */
  rrfK: number;
  /** Share of a document's other matching passages added to a passage's score. */
  documentEvidence: number;
  /** Lexical scores grow by this share times the passage's proximity to the query's word pairs. */
  proximityWeight: number;
  /** Lexical scores grow by this share times the share of the query's distinct words the passage has. */
  coverageWeight: number;
}

export const DEFAULT_SEARCH: SearchOptions = {
  hybridVectorWeight: 0.5,
  rrfK: 60,
  documentEvidence: 0,
  proximityWeight: 0.2,
  coverageWeight: 0,
};

export interface SearchDeps {
  log?: Pick<Log, 'warn'> | undefined;
  /** The service's limits, which every request is checked against (request.ts); every face's deps have them. */
  requestLimits?: RequestLimits | undefined;
  workspaces: Pick<WorkspaceStore, 'searchContext'>;
  documents: Pick<DocumentStore, 'liveDocuments'>;
  index: SearchIndex;
  filters?: DocumentFilterStore | undefined;
  embeddings?: EmbeddingService | undefined;
  searchOptions?: SearchOptions | undefined;
  /** A cross-encoder that reorders the best candidates, when one is configured. */
  rerank?: RerankStage | undefined;
  /** Tells the question's language; without one, questions are read in the workspace's languages. */
  languages?: LanguageDetector | undefined;
  /**
   * Each language's words: the word list a question's compounds are split by (German), and for the
   * extractive answerer the ordinary words that tell when a question names something absent.
   */
  lexicons?: Lexicons | undefined;
  /** Bilingual dictionaries a question is translated by for a workspace in other languages. */
  dictionaries?: Dictionaries | undefined;
}

export interface RankedHit extends SearchHit {
  snippet: Snippet;
}

/** Where an indexed document came from; uploads and URL lists have no source and one version. */
const NO_ORIGIN: DocumentOrigin = { source: null, sourceItem: null, version: 1 };

export function citationOf(hit: IndexHit, origin: DocumentOrigin = NO_ORIGIN): Citation {
  const r = hit.row;
  return {
    documentId: r.documentId,
    filename: r.filename,
    sourceUrl: r.sourceUrl,
    mediaType: r.mediaType,
    page: r.pageStart,
    pageEnd: r.pageEnd,
    charStart: r.charStart,
    charEnd: r.charEnd,
    chunkId: r.id,
    headingPath: r.headingPath,
    score: hit.score,
    source: origin.source,
    sourceItem: origin.sourceItem,
    version: origin.version,
  };
}

/**
 * The first `topK` hits that are neither near-duplicates of a better one nor over the per-document
 * cap. Stops as soon as the page is full, so duplicate checks cost little on large candidate lists.
 */
function firstDistinct(
  hits: Iterable<IndexHit>,
  topK: number,
  maxPerDocument: number | undefined,
): IndexHit[] {
  const duplicates = new DuplicateFilter();
  const perDocument = new Map<string, number>();
  const out: IndexHit[] = [];
  for (const h of hits) {
    if (out.length >= topK) break;
    const n = perDocument.get(h.row.documentId) ?? 0;
    if (maxPerDocument && n >= maxPerDocument) continue;
    if (!duplicates.accept(codesOf(h.row))) continue;
    perDocument.set(h.row.documentId, n + 1);
    out.push(h);
  }
  return out;
}

const hasFilters = (f: SearchFilters | undefined) =>
  !!f && (f.filenames !== undefined || f.mediaTypes !== undefined || f.metadata !== undefined);

/**
 * Ranked rows of a workspace for a query, with where their documents came from. Lexical (BM25 over
 * text and headings) and, when the workspace has vectors, vector candidates are fused; duplicates are
 * removed. The index may briefly hold rows of a document that was just deleted or is being
 * re-processed: results are kept only for documents the database says are ready, so a deletion takes
 * effect at once.
 */
async function rankedRows(
  deps: SearchDeps,
  principal: Principal,
  req: SearchRequest,
): Promise<{ hits: IndexHit[]; live: Map<string, DocumentOrigin>; question: Question }> {
  checkRequest(req, deps.requestLimits);
  const workspace = req.context ?? (await searchContextOf(deps, principal, req.workspaceId));
  const question =
    req.question ?? (await analyseQuestion(deps, req.q, workspace, false, { history: req.history }));
  const options = deps.searchOptions ?? DEFAULT_SEARCH;
  const filters: SearchFilters = { ...req.filters };
  let documentIds = filters.documentIds;
  if (hasFilters(filters)) {
    if (!deps.filters) throw errors.invalidRequest('Filters other than documentIds are not available here.');
    documentIds = await deps.filters.documentIdsMatching(req.workspaceId, filters);
  }
  const scope = scopeOf(documentIds, workspace.visibility);
  req.stopwatch?.lap('prepare');
  if (scope.documentIds?.length === 0) return { hits: [], live: new Map(), question };

  const vectors = req.mode === 'lexical' ? undefined : await deps.embeddings?.spaceForSearch(req.workspaceId);
  if (req.mode === 'vector' && !vectors) throw errors.vectorSearchUnavailable(req.workspaceId);
  const mode: SearchMode = req.mode ?? (vectors ? 'hybrid' : 'lexical');
  // Ask for more than needed: stale rows, duplicates and the per-document cap all thin the list.
  const limit = Math.max(60, req.topK * 2);
  const [lexical, near] = await Promise.all([
    mode === 'vector' ? [] : lexicalCandidates(deps.index, req.workspaceId, question, limit, scope),
    vectors && mode !== 'lexical'
      ? vectors.embedder
          // A follow-up's vector is its own words and those it borrowed (search/follow-up.ts).
          .embedQuery(question.retrievalText)
          .then((vector) =>
            deps.index.vectorSearch(req.workspaceId, vectors.space, { vector, limit, ...scope }),
          )
          .catch((err: unknown) => {
            // Asked for vectors explicitly: say so. By default, an unreachable model leaves BM25.
            if (req.mode)
              throw errors.modelUnavailable(`The embedding model failed: ${(err as Error).message}`);
            deps.log?.warn({ err, workspaceId: req.workspaceId }, 'vector search skipped: embedding failed');
            return [];
          })
      : [],
  ]);
  req.stopwatch?.lap('retrieval');
  const { proximityWeight, coverageWeight } = options;
  // Lexical hits without document evidence (which needs every score) are rescored only as far as
  // the page needs; other rankings need the whole rescored list.
  const lazy = mode === 'lexical' && options.documentEvidence <= 0;
  const ranked = lazy
    ? lexical
    : mode === 'hybrid'
      ? fuse(
          rescoreLexical(lexical, question, proximityWeight, coverageWeight),
          near,
          options.hybridVectorWeight,
          options.rrfK,
        )
      : mode === 'vector'
        ? near
        : rescoreLexical(lexical, question, proximityWeight, coverageWeight);

  const live = await deps.documents.liveDocuments(req.workspaceId, [
    ...new Set(ranked.map((h) => h.row.documentId)),
  ]);
  const liveHits = ranked.filter((h) => live.has(h.row.documentId));
  const ordered = lazy
    ? rescoredInOrder(liveHits, question, proximityWeight, coverageWeight)
    : withDocumentEvidence(liveHits, options.documentEvidence);
  // Lexical hits are rescored lazily, as the page is cut: the reranker's candidates are rescored in
  // its stage, the rest in ranking's.
  if (deps.rerank) req.stopwatch?.lap('ranking');
  // Second stage (off unless configured): the best candidates reordered before the page is cut.
  const reranked = await rerankCandidates(deps.rerank, question.retrievalText, ordered, deps.log);
  const page = firstDistinct(reranked, req.topK, req.maxChunksPerDocument);
  req.stopwatch?.lap(deps.rerank ? 'rerank' : 'ranking');
  return { hits: page, live, question };
}

function passageOf(h: IndexHit, live: Map<string, DocumentOrigin>): SearchHit {
  return {
    text: h.row.text,
    score: h.score,
    citation: citationOf(h, live.get(h.row.documentId)),
    language: rowLanguage(h.row).code,
  };
}

/** Ranked passages of a workspace for a query, for those that read the passages whole (the answerer, MCP). */
export async function searchPassages(
  deps: SearchDeps,
  principal: Principal,
  req: SearchRequest,
): Promise<SearchHit[]> {
  const { hits, live } = await rankedRows(deps, principal, req);
  return hits.map((h) => passageOf(h, live));
}

/** Ranked passages, each with a snippet that marks the query's words: what a search responds with. */
export async function searchWorkspace(
  deps: SearchDeps,
  principal: Principal,
  req: SearchRequest,
): Promise<RankedHit[]> {
  const { hits, live, question } = await rankedRows(deps, principal, req);
  const ranked = hits.map((h) => {
    const rowLang = rowLanguage(h.row);
    return {
      ...passageOf(h, live),
      snippet: snippetOf(h.row.text, h.row.charStart, question.queryTerms(rowLang), {
        codes: codesOf(h.row),
        language: rowLang,
      }),
    };
  });
  req.stopwatch?.lap('snippets');
  return ranked;
}
