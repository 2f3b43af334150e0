import { createHash } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';
import { artifactKeys } from '../domain/artifacts.js';
import type { JobQueue, ObjectStore } from '../domain/ports.js';
import type { StagedFile, WorkspaceStore } from '../domain/stores.js';
import type { DocumentRecord, Principal, RunView, Workspace } from '../domain/types.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';

export interface IncomingFile {
  filename: string;
  mediaType: string | null;
  stream: Readable;
}

/**
 * Keeps a file name readable and harmless: no directories, no control characters, at most 255
 * characters (the extension kept). The original bytes are never changed.
 */
export function sanitizeFilename(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  let name = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/^[.\s]+/, '')
    .trim();
  if (name.length > 255) {
    const ext = /\.[A-Za-z0-9]{1,10}$/.exec(name)?.[0] ?? '';
    name = name.slice(0, 255 - ext.length) + ext;
  }
  return name || 'unnamed';
}

/** Streams one file into object storage while hashing and counting it; nothing is held whole in memory. */
export async function stageFile(objects: ObjectStore, file: IncomingFile): Promise<StagedFile> {
  const documentId = newId('doc');
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  const storageKey = artifactKeys.original(documentId);
  file.stream.on('error', (err) => meter.destroy(err));
  await objects.put(storageKey, file.stream.pipe(meter), file.mediaType ?? 'application/octet-stream');
  return {
    documentId,
    storageKey,
    filename: sanitizeFilename(file.filename),
    declaredMediaType: file.mediaType,
    sizeBytes: size,
    sha256: hash.digest('hex'),
  };
}

export interface UploadRequest {
  workspaceId: string | undefined;
  idempotencyKey: string | undefined;
  metadata: Record<string, unknown>;
  files: StagedFile[];
  /** Anything else that distinguishes two requests for idempotency (e.g. which fetch headers were given). */
  hashExtra?: string | undefined;
}

export interface UploadResult {
  workspace: Workspace;
  /** The run as clients see it, read in the upload's own transaction. */
  run: RunView;
  documents: DocumentRecord[];
  replayed: boolean;
}

/** What makes two uploads "the same request" for idempotency: target, metadata and file contents. */
export function uploadRequestHash(req: UploadRequest): string {
  const canonical = JSON.stringify({
    workspaceId: req.workspaceId ?? null,
    metadata: req.metadata,
    files: req.files.map((f) => [f.filename, f.sizeBytes, f.sha256, f.sourceUrl ?? null]),
    extra: req.hashExtra ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Records an upload whose files are already staged: one transaction creates (or appends to) the
 * workspace, the run and its documents; jobs are enqueued after it commits. A replay of an idempotent
 * request answers with the original records and discards the newly staged copies.
 */
export async function createUpload(
  deps: {
    workspaces: Pick<WorkspaceStore, 'createUpload'>;
    jobs: Pick<JobQueue, 'enqueueDocuments'>;
    objects: ObjectStore;
  },
  principal: Principal,
  req: UploadRequest,
): Promise<UploadResult> {
  const discardStaged = () => deps.objects.delete(req.files.map((f) => f.storageKey)).catch(() => {});
  if (req.files.length === 0) {
    throw errors.noFiles();
  }
  const outcome = await deps.workspaces
    .createUpload({
      accountId: principal.accountId,
      workspaceId: req.workspaceId,
      newWorkspaceId: newId('ws'),
      runId: newId('run'),
      files: req.files,
      metadata: req.metadata,
      idempotency: req.idempotencyKey
        ? { key: req.idempotencyKey, requestHash: uploadRequestHash(req) }
        : undefined,
    })
    .catch(async (err: unknown) => {
      await discardStaged();
      throw err;
    });
  switch (outcome.kind) {
    case 'workspace_not_found':
      await discardStaged();
      throw errors.workspaceNotFound(req.workspaceId ?? '');
    case 'idempotency_conflict':
      await discardStaged();
      throw errors.idempotencyConflict(req.idempotencyKey ?? '');
    case 'replayed':
      await discardStaged();
      return { workspace: outcome.workspace, run: outcome.run, documents: outcome.documents, replayed: true };
    case 'created':
      // If this enqueue is lost (crash, queue down), the reconciler finds the documents and enqueues them.
      await deps.jobs.enqueueDocuments(outcome.documents.map((d) => d.id)).catch(() => {});
      return {
        workspace: outcome.workspace,
        run: outcome.run,
        documents: outcome.documents,
        replayed: false,
      };
  }
}
