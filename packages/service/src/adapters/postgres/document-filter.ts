import type { DocumentFilterStore, SearchFilters } from '../../search/search.js';
import type { Pool } from './db.js';

/** Search filters over the documents table: ids, file names, media types and upload metadata. */
export class PgDocumentFilter implements DocumentFilterStore {
  constructor(private readonly pool: Pool) {}

  async documentIdsMatching(workspaceId: string, filters: SearchFilters): Promise<string[]> {
    const params: unknown[] = [workspaceId];
    const param = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const where = [`workspace_id = $1`, `status = 'ready'`];
    if (filters.documentIds) where.push(`id = ANY(${param(filters.documentIds)}::text[])`);
    if (filters.filenames) where.push(`filename = ANY(${param(filters.filenames)}::text[])`);
    if (filters.mediaTypes) {
      const exact = filters.mediaTypes.filter((t) => !t.endsWith('/*'));
      const families = filters.mediaTypes.filter((t) => t.endsWith('/*')).map((t) => `${t.slice(0, -1)}%`);
      where.push(
        `(media_type = ANY(${param(exact)}::text[]) OR media_type LIKE ANY(${param(families)}::text[]))`,
      );
    }
    for (const [key, value] of Object.entries(filters.metadata ?? {})) {
      const alternatives = Array.isArray(value) ? value : [value];
      const any = alternatives.map((v) => `metadata @> ${param(JSON.stringify({ [key]: v }))}::jsonb`);
      where.push(any.length ? `(${any.join(' OR ')})` : 'false');
    }
    const r = await this.pool.query<{ id: string }>(
      `SELECT id FROM documents WHERE ${where.join(' AND ')}`,
      params,
    );
    return r.rows.map((x) => x.id);
  }
}
