import { audit } from '../access/audit.js';
import { requireEdit, requireManager } from '../access/checks.js';
import { type GrantDeps, resolveWorkspaceAccess, type WorkspaceAccessInput } from '../access/grants.js';
import type { Log } from '../domain/log.js';
import type { ObjectStore, SearchIndex } from '../domain/ports.js';
import type {
  AuditStore,
  DeletedWorkspace,
  WorkspaceDeletionStore,
  WorkspaceStore,
} from '../domain/stores.js';
import type { Principal, Workspace, WorkspaceAccess } from '../domain/types.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { SUPPORTED_LANGUAGES } from '../text/language.js';

/** Longest name and description a workspace may have, in characters. */
export const WORKSPACE_NAME_MAX = 200;
export const WORKSPACE_DESCRIPTION_MAX = 2000;

/**
 * A name as people will see it in lists and headings: trimmed, on one line, not empty. Names are
 * labels, not keys: two workspaces may share one (the id tells them apart).
 */
export function workspaceName(raw: string, field = 'name'): string {
  const name = raw.trim();
  if (name === '') throw errors.invalidRequest(`The field "${field}" may not be empty.`);
  if (/[\u0000-\u001f\u007f]/.test(name))
    throw errors.invalidRequest(`The field "${field}" may not contain line breaks or control characters.`);
  if ([...name].length > WORKSPACE_NAME_MAX)
    throw errors.invalidRequest(`The field "${field}" may be at most ${WORKSPACE_NAME_MAX} characters.`);
  return name;
}

/** An empty description is no description. */
function description(raw: string | null | undefined): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const text = raw.trim();
  if ([...text].length > WORKSPACE_DESCRIPTION_MAX)
    throw errors.invalidRequest(`The description may be at most ${WORKSPACE_DESCRIPTION_MAX} characters.`);
  return text === '' ? null : text;
}

/** What a workspace's `language` may be: `auto` (each document's own, detected) or a supported language. */
export const WORKSPACE_LANGUAGES: readonly string[] = ['auto', ...SUPPORTED_LANGUAGES];

function workspaceLanguage(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const code = raw.trim().toLowerCase();
  if (!WORKSPACE_LANGUAGES.includes(code))
    throw errors.invalidRequest(
      `The language "${raw}" is not one this service reads; use "auto" or one of ${SUPPORTED_LANGUAGES.join(', ')}.`,
    );
  return code;
}

export interface WorkspaceFields {
  name: string;
  description?: string | null | undefined;
  metadata?: Record<string, unknown> | undefined;
  /** `auto` or an ISO 639-1 code: the language its documents are indexed and its questions read in. */
  language?: string | undefined;
  /** Who may read and edit it; null (the default) for the whole account. */
  access?: WorkspaceAccessInput | null | undefined;
}

export type WorkspaceDeps = GrantDeps & {
  workspaces: Pick<WorkspaceStore, 'createWorkspace' | 'getWorkspace' | 'updateWorkspace'>;
  audit: Pick<AuditStore, 'append'>;
};

/** An empty workspace, for uploads to name with `workspaceId` later. */
export async function createWorkspace(
  deps: WorkspaceDeps,
  principal: Principal,
  fields: WorkspaceFields,
): Promise<Workspace> {
  if (principal.role === 'reader') throw errors.permissionDenied('Readers cannot create workspaces.');
  if (fields.access) requireManager(principal, 'decide who may see a workspace');
  const access = await resolveWorkspaceAccess(deps, principal.accountId, fields.access ?? null);
  const workspace = await deps.workspaces.createWorkspace({
    id: newId('ws'),
    accountId: principal.accountId,
    name: workspaceName(fields.name),
    description: description(fields.description) ?? null,
    metadata: fields.metadata ?? {},
    language: workspaceLanguage(fields.language),
    access,
  });
  if (access) await audit(deps.audit, principal, accessChanged(workspace, access));
  return workspace;
}

const accessChanged = (workspace: Workspace, access: WorkspaceAccess) => ({
  action: 'workspace.access_changed',
  targetType: 'workspace',
  targetId: workspace.id,
  details: { access },
});

/** Renames a workspace, or changes its description, metadata or access; what is not given stays. */
export async function updateWorkspace(
  deps: WorkspaceDeps,
  principal: Principal,
  workspaceId: string,
  changes: { [K in keyof WorkspaceFields]?: WorkspaceFields[K] | undefined },
): Promise<Workspace> {
  const found = await deps.workspaces.getWorkspace(principal, workspaceId);
  if (!found) throw errors.workspaceNotFound(workspaceId);
  if (changes.access !== undefined) requireManager(principal, 'decide who may see a workspace');
  else requireEdit(principal, found);
  const access =
    changes.access === undefined
      ? undefined
      : await resolveWorkspaceAccess(deps, principal.accountId, changes.access);
  const updated = await deps.workspaces.updateWorkspace(principal.accountId, workspaceId, {
    name: changes.name === undefined ? undefined : workspaceName(changes.name),
    description: description(changes.description),
    metadata: changes.metadata,
    language: workspaceLanguage(changes.language),
    access,
  });
  if (!updated) throw errors.workspaceNotFound(workspaceId);
  if (access !== undefined) await audit(deps.audit, principal, accessChanged(updated, access));
  return updated;
}

export interface StorageDeps {
  deletions: WorkspaceDeletionStore;
  index: Pick<SearchIndex, 'dropWorkspace'>;
  objects: Pick<ObjectStore, 'delete'>;
}

/** Objects removed per round trip: one S3 DeleteObjects request. */
const OBJECTS_PER_ROUND = 1000;

/**
 * Removes what a deleted workspace left outside the database: its index tables (chunks and vectors),
 * then its stored objects, a page at a time, each page forgotten once removed. Answers whether the
 * deletion is complete; it is not when a worker handed it more meanwhile (a later pass finishes).
 * Safe to run twice, and in two processes at once.
 */
export async function removeDeletedStorage(
  deps: StorageDeps,
  workspaceId: string,
  generation: number,
): Promise<boolean> {
  await deps.index.dropWorkspace(workspaceId);
  for (;;) {
    const keys = await deps.deletions.objectsToDelete(workspaceId, OBJECTS_PER_ROUND);
    if (keys.length === 0) break;
    await deps.objects.delete(keys);
    await deps.deletions.objectsDeleted(workspaceId, keys);
  }
  return deps.deletions.deletionFinished(workspaceId, generation);
}

export interface WorkspaceDeletion extends DeletedWorkspace {
  /** `done`: nothing of it is left; `pending`: workers remove the rest (storage failed meanwhile). */
  storage: 'done' | 'pending';
}

/**
 * Deletes a workspace with everything in it. Its rows go in one transaction (runs in progress end
 * there: their documents are gone, and a worker holding one stops at its next lease renewal), so it
 * is gone from search and from every listing at once; then its index tables and stored objects are
 * removed before the answer. When storage fails on the way, the answer still says what was deleted,
 * and the workers' reconcilers remove the rest.
 */
export async function deleteWorkspace(
  deps: StorageDeps & {
    workspaces: Pick<WorkspaceStore, 'deleteWorkspace' | 'getWorkspace'>;
    audit: Pick<AuditStore, 'append'>;
    log: Log;
  },
  principal: Principal,
  workspaceId: string,
): Promise<WorkspaceDeletion> {
  if (principal.member) {
    if (!(await deps.workspaces.getWorkspace(principal, workspaceId)))
      throw errors.workspaceNotFound(workspaceId);
    requireManager(principal, 'delete workspaces');
  }
  const deleted = await deps.workspaces.deleteWorkspace(principal.accountId, workspaceId);
  if (!deleted) throw errors.workspaceNotFound(workspaceId);
  await audit(deps.audit, principal, {
    action: 'workspace.deleted',
    targetType: 'workspace',
    targetId: workspaceId,
    details: { name: deleted.workspace.name, documents: deleted.documents },
  });
  let storage: WorkspaceDeletion['storage'] = 'pending';
  try {
    const generation = await deps.deletions.claimDeletion(workspaceId);
    if (generation === undefined || (await removeDeletedStorage(deps, workspaceId, generation)))
      storage = 'done';
  } catch (err) {
    deps.log.warn({ err, workspaceId }, 'workspace deleted; its index tables or objects are removed later');
  }
  deps.log.info(
    { workspaceId, documents: deleted.documents, cancelledRuns: deleted.cancelledRuns, storage },
    'workspace deleted',
  );
  return { ...deleted, storage };
}
