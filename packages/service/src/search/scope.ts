import type { DocumentScope } from '../domain/ports.js';
import type { SearchContext, WorkspaceStore } from '../domain/stores.js';
import type { Principal, Visibility } from '../domain/types.js';
import { errors } from '../errors.js';

/** The workspace as the principal sees it; not found when it may not see it. */
export async function searchContextOf(
  deps: { workspaces: Pick<WorkspaceStore, 'searchContext'> },
  principal: Principal,
  workspaceId: string,
): Promise<SearchContext> {
  const context = await deps.workspaces.searchContext(principal, workspaceId);
  if (!context) throw errors.workspaceNotFound(workspaceId);
  return context;
}

/**
 * The documents a query may consider: those the caller asked for (ids, or the ones its filters
 * matched), of those it may see. Passed into the index's query, so ranking never sees the others.
 */
export function scopeOf(asked: string[] | undefined, visibility: Visibility): DocumentScope {
  if (!visibility) return { documentIds: asked };
  if ('only' in visibility) {
    const seen = new Set(visibility.only);
    return { documentIds: asked ? asked.filter((id) => seen.has(id)) : visibility.only };
  }
  if (!asked) return { excludeDocumentIds: visibility.except };
  const hidden = new Set(visibility.except);
  return { documentIds: asked.filter((id) => !hidden.has(id)) };
}
