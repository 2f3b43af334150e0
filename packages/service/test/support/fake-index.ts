/** An in-memory search index for unit tests (see fakes.ts for the rules the fakes keep). */
import type {
  CountedTerm,
  DocumentRows,
  IndexHit,
  IndexQuery,
  IndexRow,
  SearchIndex,
  TermCounts,
  VectorRow,
  VectorSpace,
} from '../../src/domain/ports.js';

/**
 * A workspace's chunks in memory: one row set per document, replaced whole. Search ranks rows by how
 * many of the query's words they contain (enough for tests that care which rows are there, not how
 * well they rank). `failWith` makes the next writes fail, as an unreachable index would.
 */
export class MemorySearchIndex implements SearchIndex {
  readonly rows = new Map<string, IndexRow[]>();
  /** Writes fail with this error while it is set. */
  failWith: Error | undefined;

  private workspace(workspaceId: string): IndexRow[] {
    return this.rows.get(workspaceId) ?? [];
  }

  private write(): void {
    if (this.failWith) throw this.failWith;
  }

  async replaceDocument(workspaceId: string, documentId: string, rows: IndexRow[]): Promise<void> {
    this.write();
    this.rows.set(workspaceId, [
      ...this.workspace(workspaceId).filter((r) => r.documentId !== documentId),
      ...rows,
    ]);
  }

  async replaceDocuments(workspaceId: string, documents: DocumentRows<IndexRow>[]): Promise<void> {
    this.write();
    const replaced = new Set(documents.map((d) => d.documentId));
    this.rows.set(workspaceId, [
      ...this.workspace(workspaceId).filter((r) => !replaced.has(r.documentId)),
      ...documents.flatMap((d) => d.rows),
    ]);
  }

  async countRowsByDocument(workspaceId: string, documentIds: string[]): Promise<Map<string, number>> {
    const rows = this.workspace(workspaceId);
    return new Map(documentIds.map((id) => [id, rows.filter((r) => r.documentId === id).length]));
  }

  async countDocumentRows(workspaceId: string, documentId: string): Promise<number> {
    return this.workspace(workspaceId).filter((r) => r.documentId === documentId).length;
  }

  async countRows(workspaceId: string): Promise<number> {
    return this.workspace(workspaceId).length;
  }

  async termCounts(workspaceId: string, terms: CountedTerm[], cap: number): Promise<TermCounts> {
    const rows = this.workspace(workspaceId);
    const held = rows.map((r) => new Set((r.terms ?? '').split(' ')));
    return {
      rows: rows.length,
      counts: terms.map((t) => Math.min(cap, held.filter((h) => h.has(t.term)).length)),
    };
  }

  async deleteDocument(workspaceId: string, documentId: string): Promise<void> {
    this.write();
    this.rows.set(
      workspaceId,
      this.workspace(workspaceId).filter((r) => r.documentId !== documentId),
    );
  }

  async search(workspaceId: string, query: IndexQuery): Promise<IndexHit[]> {
    // Terms against the rows' terms when both have them (rows written by indexRowsOf), else words in
    // text. Expansions count as the query's own terms, as in the LanceDB adapter's one match query.
    const terms = query.terms && [...query.terms.split(' ').filter(Boolean), ...(query.expansions ?? [])];
    const words = query.text.toLowerCase().split(/\W+/).filter(Boolean);
    const score = (row: IndexRow) =>
      terms && row.terms !== undefined
        ? terms.filter((t) => row.terms!.split(' ').includes(t)).length
        : words.filter((w) => row.text.toLowerCase().includes(w)).length;
    return this.workspace(workspaceId)
      .filter((r) => !query.documentIds || query.documentIds.includes(r.documentId))
      .filter((r) => !query.language || (r.language ?? 'en') === query.language)
      .map((row) => ({ row, score: score(row) }))
      .filter((h) => h.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, query.limit);
  }

  async replaceVectors(_w: string, _s: VectorSpace, _documents: DocumentRows<VectorRow>[]): Promise<void> {
    this.write();
  }

  async vectorSearch(): Promise<IndexHit[]> {
    return [];
  }

  async vectorIds(): Promise<Set<string>> {
    return new Set();
  }

  async listRows(workspaceId: string, afterId: string | null, limit: number): Promise<IndexRow[]> {
    return this.workspace(workspaceId)
      .filter((r) => afterId === null || r.id > afterId)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  }

  async upsertVectors(): Promise<void> {
    this.write();
  }

  async dropVectorSpaces(): Promise<void> {}

  async dropWorkspace(workspaceId: string): Promise<void> {
    this.write();
    this.rows.delete(workspaceId);
  }

  async optimize(): Promise<{ oldVersions: number; keptSeconds: number }> {
    return { oldVersions: 0, keptSeconds: 60 };
  }

  async check(): Promise<void> {}

  async close(): Promise<void> {}
}
