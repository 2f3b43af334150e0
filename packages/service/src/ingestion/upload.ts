import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { requireEditOf } from '../access/checks.js';
import { type GrantDeps, type GrantsInput, resolveDocumentAccess } from '../access/grants.js';
import { effectiveLimits, quotaError, uploadRefusal } from '../accounts/quotas.js';
import { artifactKeys } from '../domain/artifacts.js';
import { sanitizeFilename } from '../domain/filenames.js';
import type { JobQueue, ObjectStore, StorageSpace } from '../domain/ports.js';
import type { StagedFile, WorkspaceStore } from '../domain/stores.js';
import type {
  DocumentAccess,
  DocumentRecord,
  Principal,
  QuotaLimits,
  RunView,
  Workspace,
} from '../domain/types.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { type FileSample, Sampler } from '../parsing/upload-check.js';

export interface IncomingFile {
  filename: string;
  mediaType: string | null;
  stream: Readable;
}

const TOKEN = "[\\w!#$%&'*+.^`|~-]+";
const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\x00-\\x1f\\x7f]*"))*$`,
);

/**
 * A media type as a client declared it, when it is one (`type/subtype`, parameters allowed); anything
 * else (control characters, line breaks, free text) is dropped, since it ends up in a response header.
 */
export function mediaTypeOrNull(raw: string | null | undefined): string | null {
  const value = raw?.trim();
  return value && value.length <= 255 && MEDIA_TYPE.test(value) ? value : null;
}

/** A file in object storage, with its first and last bytes for checking its format (checkUpload). */
export interface Staged extends StagedFile {
  sample: FileSample;
}

/**
 * Files up to this size are read whole before they are stored, and stored while the form's next file
 * is read: a form of many small files no longer waits for each file's write (the store's round trips,
 * each behind the worker's work on the same event loop) before it reads the next one.
 */
const SMALL_FILE_BYTES = 256 * 1024;
/** Small files being stored at once for one form (at most this many of them held in memory). */
const WRITES_IN_FLIGHT = 16;

/**
 * Streams a form's files into object storage one after another while hashing and counting them; no
 * file is held whole in memory except small ones, until they are stored (and each file's first and
 * last MiB, to check its format). Call `settled` before recording the upload: it waits for the
 * writes still under way and throws the first that failed.
 *
 * The incoming stream may already have failed before it reaches here (a body that ended inside the
 * part, a client that went away): that failure must end the write, never leave it waiting for bytes
 * that will not come, and it is the caller's fault (`upload_incomplete`), not the storage's.
 */
export class Stager {
  private readonly writing = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly objects: ObjectStore,
    /** Every byte is counted against the disk's floor before it is written (STORAGE_MIN_FREE_MB). */
    private readonly space: StorageSpace,
  ) {}

  async stage(file: IncomingFile): Promise<Staged> {
    if (this.failure) throw this.failure.error;
    const documentId = newId('doc');
    const storageKey = artifactKeys.original(documentId);
    const filename = sanitizeFilename(file.filename);
    const declaredMediaType = mediaTypeOrNull(file.mediaType);
    const contentType = declaredMediaType ?? 'application/octet-stream';
    const hash = createHash('sha256');
    const sampler = new Sampler();
    let size = 0;
    const take = (chunk: Buffer) => {
      hash.update(chunk);
      sampler.add(chunk);
      size += chunk.length;
    };
    const chunks = file.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let incomplete = false;
    const next = async () => {
      try {
        return await chunks.next();
      } catch (err) {
        incomplete = true;
        throw err;
      }
    };
    const head: Buffer[] = [];
    try {
      for (;;) {
        const r = await next();
        if (r.done) {
          await this.space.reserve(size);
          while (this.writing.size >= WRITES_IN_FLIGHT) await Promise.race(this.writing);
          this.write(storageKey, Buffer.concat(head), contentType);
          break;
        }
        take(r.value);
        head.push(r.value);
        if (size > SMALL_FILE_BYTES) {
          // A large file: what was read goes first, then the rest as it arrives.
          const space = this.space;
          const body = async function* () {
            await space.reserve(size);
            yield* head;
            for (let r = await next(); !r.done; r = await next()) {
              take(r.value);
              await space.reserve(r.value.length);
              yield r.value;
            }
          };
          await this.objects.put(storageKey, Readable.from(body(), { objectMode: false }), contentType);
          break;
        }
      }
    } catch (err) {
      if (incomplete) throw errors.uploadIncomplete(filename);
      throw err;
    }
    return {
      documentId,
      storageKey,
      filename,
      declaredMediaType,
      sizeBytes: size,
      sha256: hash.digest('hex'),
      sample: sampler.sample(),
    };
  }

  private write(key: string, body: Buffer, contentType: string): void {
    const done: Promise<void> = this.objects.put(key, body, contentType).then(
      () => {
        this.writing.delete(done);
      },
      (error: unknown) => {
        this.writing.delete(done);
        this.failure ??= { error };
      },
    );
    this.writing.add(done);
  }

  /** Waits for the writes under way; throws the first failure of any. */
  async settled(): Promise<void> {
    while (this.writing.size > 0) await Promise.all(this.writing);
    if (this.failure) throw this.failure.error;
  }
}

export interface UploadRequest {
  workspaceId: string | undefined;
  /** The name of the workspace the upload creates (only without workspaceId). */
  workspaceName?: string | undefined;
  idempotencyKey: string | undefined;
  metadata: Record<string, unknown>;
  files: StagedFile[];
  /** Who of the workspace's readers may read the documents (users, groups); all of them when absent or null. */
  access?: GrantsInput | null | undefined;
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
    // Only when given: keys recorded before access existed still replay.
    ...(req.access ? { access: req.access } : {}),
    // Only when given: keys recorded before names existed still replay.
    ...(req.workspaceName !== undefined ? { workspaceName: req.workspaceName } : {}),
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Records an upload whose files are already staged: one transaction creates (or appends to) the
 * workspace, the run and its documents; jobs are enqueued after it commits. A replay of an idempotent
 * request answers with the original records and discards the newly staged copies.
 */
export type UploadDeps = GrantDeps & {
  workspaces: Pick<WorkspaceStore, 'createUpload' | 'getWorkspace'>;
  jobs: Pick<JobQueue, 'enqueueMany'>;
  objects: ObjectStore;
  /** The server's default quotas, checked with the account's own in the upload's transaction. */
  quotaDefaults: QuotaLimits;
};

export async function createUpload(
  deps: UploadDeps,
  principal: Principal,
  req: UploadRequest,
): Promise<UploadResult> {
  const discardStaged = () => deps.objects.delete(req.files.map((f) => f.storageKey)).catch(() => {});
  if (req.files.length === 0) {
    throw errors.noFiles();
  }
  let access: DocumentAccess;
  try {
    // Appending needs the right to edit the workspace; a new workspace is open to the account.
    if (req.workspaceId) await requireEditOf(deps.workspaces, principal, req.workspaceId);
    else if (principal.role === 'reader') throw errors.permissionDenied('Readers cannot upload.');
    access = await resolveDocumentAccess(deps, principal.accountId, req.access ?? null);
  } catch (err) {
    await discardStaged();
    throw err;
  }
  const outcome = await deps.workspaces
    .createUpload({
      accountId: principal.accountId,
      workspaceId: req.workspaceId,
      newWorkspaceId: newId('ws'),
      newWorkspaceName: req.workspaceName,
      runId: newId('run'),
      kind: req.files.every((f) => f.sourceUrl) ? 'urls' : 'upload',
      files: req.files,
      metadata: req.metadata,
      access,
      idempotency: req.idempotencyKey
        ? { key: req.idempotencyKey, requestHash: uploadRequestHash(req) }
        : undefined,
      // All or nothing: a request over a quota stores none of its files.
      admit: (use, overrides) =>
        uploadRefusal(effectiveLimits(deps.quotaDefaults, overrides), use, {
          documents: req.files.length,
          bytes: req.files.reduce((sum, f) => sum + (f.sizeBytes ?? 0), 0),
          bytesLater: req.files.some((f) => f.sizeBytes === null),
        }),
    })
    .catch(async (err: unknown) => {
      await discardStaged();
      throw err;
    });
  switch (outcome.kind) {
    case 'workspace_not_found':
      await discardStaged();
      throw errors.workspaceNotFound(req.workspaceId ?? '');
    case 'quota_exceeded':
      await discardStaged();
      throw quotaError(outcome.refusal);
    case 'idempotency_conflict':
      await discardStaged();
      throw errors.idempotencyConflict(req.idempotencyKey ?? '');
    case 'replayed':
      await discardStaged();
      return { workspace: outcome.workspace, run: outcome.run, documents: outcome.documents, replayed: true };
    case 'created':
      // If this enqueue is lost (crash, queue down), the reconciler finds the documents and enqueues them.
      await deps.jobs
        .enqueueMany(
          'processDocument',
          outcome.documents.map((d) => ({ documentId: d.id })),
        )
        .catch(() => {});
      return {
        workspace: outcome.workspace,
        run: outcome.run,
        documents: outcome.documents,
        replayed: false,
      };
  }
}
