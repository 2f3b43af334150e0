import type { Log } from '../domain/log.js';
import type {
  DocumentRows,
  Embedder,
  EmbeddingStateStore,
  IndexRow,
  SearchIndex,
  VectorSpace,
} from '../domain/ports.js';
import type { StageObserver } from '../domain/stopwatch.js';

/** The configured embedder, and how to reach the model of older vectors when it is still served. */
export interface Embeddings {
  /** Undefined while the configured model is not available yet (a model still being downloaded). */
  readonly current: Embedder | undefined;
  /** An embedder for vectors of `model`, if this deployment can still make them. */
  forModel(model: string): Embedder | undefined;
}

/**
 * The same embedders, each embedding of passages (a batch of documents' chunks, a rebuild's page)
 * told to `observer` as a stage `embedding`: with tracing on, a span under the job's.
 */
export function observedEmbeddings(source: Embeddings, observer: StageObserver): Embeddings {
  const observed = (embedder: Embedder | undefined): Embedder | undefined =>
    embedder && {
      model: embedder.model,
      embedQuery: (text, signal) => embedder.embedQuery(text, signal),
      async embedPassages(texts, signal) {
        const start = Date.now();
        try {
          return await embedder.embedPassages(texts, signal);
        } finally {
          observer.stage('embedding', start, Date.now());
        }
      },
    };
  return {
    get current() {
      return observed(source.current);
    },
    forModel: (model) => observed(source.forModel(model)),
  };
}

export interface EmbeddingDeps {
  embeddings: Embeddings;
  index: SearchIndex;
  state: EmbeddingStateStore;
  log: Log;
}

/** What a chunk's vector is made from: its title and headings give a short passage its context. */
export function passageText(row: Pick<IndexRow, 'heading' | 'text'>): string {
  return row.heading ? `${row.heading}\n\n${row.text}` : row.text;
}

const BACKFILL_PAGE = 256;

/**
 * Vectors of a workspace: written per document as it is indexed, rebuilt in the background when the
 * configured model differs from the one the workspace recorded, and chosen for each search so that
 * a query is only ever compared with vectors of its own model and dimension.
 */
export class EmbeddingService {
  constructor(private readonly deps: EmbeddingDeps) {}

  get model(): string | undefined {
    return this.deps.embeddings.current?.model;
  }

  /**
   * Embeds freshly indexed documents' chunks with the configured model, in one pass. Without the model
   * (not downloaded yet) the workspace is marked incomplete, and maintenance embeds the documents later.
   */
  async embedDocuments(workspaceId: string, documents: DocumentRows<IndexRow>[], signal?: AbortSignal) {
    const rows = documents.flatMap((d) => d.rows);
    if (rows.length === 0) return;
    const embedder = this.deps.embeddings.current;
    if (!embedder) {
      const recorded = await this.deps.state.getEmbeddingState(workspaceId);
      if (recorded?.complete)
        await this.deps.state.setEmbeddingState(workspaceId, { ...recorded, complete: false });
      return;
    }
    const vectors = await embedder.embedPassages(rows.map(passageText), signal);
    const space: VectorSpace = { model: embedder.model, dimension: vectors[0]!.length };
    let next = 0;
    await this.deps.index.replaceVectors(
      workspaceId,
      space,
      documents.map((d) => ({
        documentId: d.documentId,
        rows: d.rows.map((r) => ({ id: r.id, documentId: d.documentId, vector: vectors[next++]! })),
      })),
    );
    // The first documents of a workspace fix its model; documents that were indexed before without
    // vectors (another model, or none) make the state incomplete until maintenance fills them in.
    const others = await this.deps.state.countOtherReadyDocuments(
      workspaceId,
      documents.map((d) => d.documentId),
    );
    await this.deps.state.initEmbeddingState(workspaceId, { ...space, complete: others === 0 });
  }

  /**
   * Brings a workspace's vectors to the configured model: embeds every chunk that lacks a vector in
   * its space, a page at a time (safe to stop and run again), then records the model and drops the
   * vectors of older spaces. Search keeps using the recorded model meanwhile.
   */
  async maintain(workspaceId: string, signal?: AbortSignal): Promise<{ embedded: number }> {
    const embedder = this.deps.embeddings.current;
    if (!embedder) return { embedded: 0 };
    const recorded = await this.deps.state.getEmbeddingState(workspaceId);
    if (recorded?.model === embedder.model && recorded.complete) return { embedded: 0 };
    let space: VectorSpace | undefined =
      recorded?.model === embedder.model
        ? { model: recorded.model, dimension: recorded.dimension }
        : undefined;
    let have = space ? await this.deps.index.vectorIds(workspaceId, space) : new Set<string>();
    let embedded = 0;
    let after: string | null = null;
    for (;;) {
      signal?.throwIfAborted();
      const page = await this.deps.index.listRows(workspaceId, after, BACKFILL_PAGE);
      if (page.length === 0) break;
      after = page[page.length - 1]!.id;
      const missing = page.filter((r) => !have.has(r.id));
      if (missing.length === 0) continue;
      const vectors = await embedder.embedPassages(missing.map(passageText), signal);
      if (!space) {
        space = { model: embedder.model, dimension: vectors[0]!.length };
        have = await this.deps.index.vectorIds(workspaceId, space);
      }
      await this.deps.index.upsertVectors(
        workspaceId,
        space,
        missing.map((r, i) => ({ id: r.id, documentId: r.documentId, vector: vectors[i]! })),
      );
      embedded += missing.length;
    }
    if (!space) return { embedded };
    await this.deps.state.setEmbeddingState(workspaceId, { ...space, complete: true });
    await this.deps.index.dropVectorSpaces(workspaceId, space);
    if (embedded > 0 || recorded?.model !== space.model) {
      this.deps.log.info({ workspaceId, model: space.model, embedded }, 'workspace vectors complete');
    }
    return { embedded };
  }

  /** Workspaces whose vectors are not (yet) complete in the configured model. */
  async pendingWorkspaces(limit = 100): Promise<string[]> {
    const model = this.model;
    return model ? this.deps.state.workspacesNeedingEmbeddings(model, limit) : [];
  }

  /**
   * The vector space to search a workspace with, and the embedder for its queries: the recorded
   * model's, while it can still be reached; otherwise none (the search is lexical until the
   * rebuild completes).
   */
  async spaceForSearch(workspaceId: string): Promise<{ space: VectorSpace; embedder: Embedder } | undefined> {
    const recorded = await this.deps.state.getEmbeddingState(workspaceId);
    if (!recorded) return undefined;
    const current = this.deps.embeddings.current;
    const embedder =
      current && recorded.model === current.model ? current : this.deps.embeddings.forModel(recorded.model);
    if (!embedder) return undefined;
    return { space: { model: recorded.model, dimension: recorded.dimension }, embedder };
  }
}
