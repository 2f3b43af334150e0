import type { Readable } from 'node:stream';
import { audit } from '../access/audit.js';
import { requireEditOf } from '../access/checks.js';
import { type GrantDeps, type GrantsInput, resolveDocumentAccess } from '../access/grants.js';
import { artifactKeys } from '../domain/artifacts.js';
import type { Log } from '../domain/log.js';
import type { ObjectStore, SearchIndex } from '../domain/ports.js';
import type { AuditStore, DocumentStore, WorkspaceStore } from '../domain/stores.js';
import type { DocumentCounts, DocumentRecord, Principal, Workspace } from '../domain/types.js';
import { errors } from '../errors.js';

export interface DocumentDeps {
  documents: DocumentStore;
  objects: ObjectStore;
  index: SearchIndex;
  log: Log;
}

type WorkspaceDeps = { workspaces: Pick<WorkspaceStore, 'getWorkspace'> };
type ListingDeps = WorkspaceDeps & { documents: Pick<DocumentStore, 'listDocuments' | 'countsByStatus'> };

export async function getWorkspace(
  deps: WorkspaceDeps,
  principal: Principal,
  workspaceId: string,
): Promise<Workspace> {
  const ws = await deps.workspaces.getWorkspace(principal, workspaceId);
  if (!ws) throw errors.workspaceNotFound(workspaceId);
  return ws;
}

/** The account's workspaces, newest first, with their documents counted by state. */
export function listWorkspaces(
  workspaces: Pick<WorkspaceStore, 'listWorkspaces'>,
  principal: Principal,
): Promise<(Workspace & { counts: DocumentCounts })[]> {
  return workspaces.listWorkspaces(principal);
}

export async function listDocuments(deps: ListingDeps, principal: Principal, workspaceId: string) {
  await getWorkspace(deps, principal, workspaceId);
  return deps.documents.listDocuments(principal, workspaceId);
}

export async function getDocument(
  documents: Pick<DocumentStore, 'getDocument'>,
  principal: Principal,
  documentId: string,
) {
  const doc = await documents.getDocument(principal, documentId);
  if (!doc) throw errors.documentNotFound(documentId);
  return doc;
}

/**
 * The extracted Markdown (with page markers) that chunk offsets point into, as a stream from storage
 * (a 30 MB text is not held whole for each reader); text_not_available until parsed.
 */
export async function getDocumentText(
  deps: Pick<DocumentDeps, 'documents' | 'objects'>,
  principal: Principal,
  documentId: string,
): Promise<{ document: DocumentRecord; text: Readable }> {
  const document = await getDocument(deps.documents, principal, documentId);
  const text = await deps.objects.get(artifactKeys.text(documentId));
  if (!text) throw errors.textNotAvailable(document.id, document.status);
  return { document, text };
}

export async function getDocumentContent(
  deps: Pick<DocumentDeps, 'documents' | 'objects'> & { audit: Pick<AuditStore, 'append'> },
  principal: Principal,
  documentId: string,
): Promise<{ document: DocumentRecord; body: Readable }> {
  const document = await getDocument(deps.documents, principal, documentId);
  const body = await deps.objects.get(document.storageKey);
  if (!body) throw errors.documentNotFound(documentId);
  await audit(deps.audit, principal, {
    action: 'document.downloaded',
    targetType: 'document',
    targetId: document.id,
    details: { workspaceId: document.workspaceId, filename: document.filename },
  });
  return { document, body };
}

/** Sets who of its workspace's readers may read a document: on the next request, without reprocessing. */
export async function setDocumentAccess(
  deps: GrantDeps & {
    documents: Pick<DocumentStore, 'getDocument' | 'setAccess'>;
    workspaces: Pick<WorkspaceStore, 'getWorkspace'>;
    audit: Pick<AuditStore, 'append'>;
  },
  principal: Principal,
  documentId: string,
  input: GrantsInput | null,
): Promise<DocumentRecord> {
  const found = await getDocument(deps.documents, principal, documentId);
  await requireEditOf(deps.workspaces, principal, found.workspaceId);
  const access = await resolveDocumentAccess(deps, principal.accountId, input);
  const updated = await deps.documents.setAccess(principal.accountId, documentId, access);
  if (!updated) throw errors.documentNotFound(documentId);
  await audit(deps.audit, principal, {
    action: 'document.access_changed',
    targetType: 'document',
    targetId: documentId,
    details: { workspaceId: updated.workspaceId, access },
  });
  return updated;
}

/**
 * Removes a document: it leaves search at once (marked deleted in the database, which search
 * consults, then its index rows and artifacts are removed).
 */
export async function deleteDocument(
  deps: DocumentDeps & {
    workspaces: Pick<WorkspaceStore, 'getWorkspace'>;
    audit: Pick<AuditStore, 'append'>;
  },
  principal: Principal,
  documentId: string,
): Promise<DocumentRecord> {
  const found = await getDocument(deps.documents, principal, documentId);
  await requireEditOf(deps.workspaces, principal, found.workspaceId);
  const doc = await deps.documents.markDeleted(principal.accountId, documentId);
  if (!doc) throw errors.documentNotFound(documentId);
  await audit(deps.audit, principal, {
    action: 'document.deleted',
    targetType: 'document',
    targetId: doc.id,
    details: { workspaceId: doc.workspaceId, filename: doc.filename },
  });
  try {
    await deps.index.deleteDocument(doc.workspaceId, doc.id);
    await deps.objects.delete(artifactKeys.all(doc.id));
  } catch (err) {
    // Search already ignores the document (it is marked deleted); leftovers are only storage.
    deps.log.warn({ err, documentId }, 'document deleted but its index rows or artifacts remain');
  }
  return doc;
}

export interface Availability {
  workspaceId: string;
  searchable: { documentId: string; filename: string }[];
  pending: { documentId: string; filename: string; status: string; stage: string }[];
  unavailable: { documentId: string; filename: string; status: string; code: string | null }[];
  counts: DocumentCounts;
  complete: boolean;
}

/** Which documents of a workspace search covers now, and which are still being indexed. */
export async function getAvailability(
  deps: ListingDeps,
  principal: Principal,
  workspaceId: string,
): Promise<Availability> {
  const docs = await listDocuments(deps, principal, workspaceId);
  const counts = await deps.documents.countsByStatus(principal, workspaceId);
  const pick = (d: DocumentRecord) => ({ documentId: d.id, filename: d.filename });
  const pending = docs.filter((d) => d.status === 'queued' || d.status === 'processing');
  return {
    workspaceId,
    searchable: docs.filter((d) => d.status === 'ready').map(pick),
    pending: pending.map((d) => ({ ...pick(d), status: d.status, stage: d.stage })),
    unavailable: docs
      .filter((d) => d.status === 'failed' || d.status === 'needs_ocr' || d.status === 'cancelled')
      .map((d) => ({ ...pick(d), status: d.status, code: d.errorCode })),
    counts,
    complete: pending.length === 0,
  };
}
