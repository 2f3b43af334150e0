import type { Readable } from 'node:stream';
import type { JobQueue, ObjectStore } from '../domain/ports.js';
import type { StagedFile, WorkspaceStore } from '../domain/stores.js';
import type { Principal } from '../domain/types.js';
import { errors } from '../errors.js';
import { createUpload, stageFile, type UploadResult } from './upload.js';

/** One part of a multipart upload, in the order the client sent them. */
export type UploadPart =
  | { kind: 'field'; name: string; value: string }
  | { kind: 'file'; field: string; filename: string; mediaType: string | null; stream: Readable };

/** A limit of the upload form that reading it broke. */
export type UploadLimit = 'file_size' | 'files' | 'parts' | 'malformed';

/** An upload's body as the HTTP layer reads it: the parts, and what its parser's errors mean. */
export interface UploadForm {
  parts: AsyncIterable<UploadPart>;
  /** Which limit an error thrown by the parts (or by a file's stream) means; undefined for other errors. */
  limitBroken(err: unknown): UploadLimit | undefined;
}

export interface FormDeps {
  workspaces: Pick<WorkspaceStore, 'workspaceExists' | 'createUpload'>;
  jobs: Pick<JobQueue, 'enqueueDocuments'>;
  objects: ObjectStore;
  limits: { maxFileBytes: number; maxFilesPerUpload: number };
}

function parseMetadata(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw errors.invalidRequest('The field "metadata" must be a JSON object.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw errors.invalidRequest('The field "metadata" must be a JSON object.');
  }
  return { ...value };
}

/**
 * An upload form: each file streams into object storage as it arrives (through a hash and a byte
 * counter), then the upload is recorded. Whatever goes wrong, nothing staged for this request stays.
 */
export async function ingestForm(
  deps: FormDeps,
  principal: Principal,
  form: UploadForm,
): Promise<UploadResult> {
  const staged: StagedFile[] = [];
  const discardStaged = () => deps.objects.delete(staged.map((f) => f.storageKey)).catch(() => {});
  const fields: Record<string, string> = {};
  let checkedWorkspace = false;
  let currentFile = '';
  try {
    for await (const part of form.parts) {
      if (part.kind === 'field') {
        fields[part.name] = part.value;
        continue;
      }
      if (part.field !== 'files' && part.field !== 'file') {
        part.stream.resume();
        throw errors.invalidRequest(
          `Unexpected file field "${part.field}": send files in the field "files".`,
        );
      }
      // Fail fast on a wrong workspace when its field comes before the files, as the SDK sends it.
      if (!checkedWorkspace && fields.workspaceId) {
        checkedWorkspace = true;
        if (!(await deps.workspaces.workspaceExists(principal.accountId, fields.workspaceId))) {
          part.stream.resume();
          throw errors.workspaceNotFound(fields.workspaceId);
        }
      }
      currentFile = part.filename;
      staged.push(await stageFile(deps.objects, part));
    }
  } catch (err) {
    await discardStaged();
    throw asUploadError(err, form.limitBroken(err), currentFile, deps.limits);
  }
  let request: {
    workspaceId: string | undefined;
    idempotencyKey: string | undefined;
    metadata: Record<string, unknown>;
  };
  try {
    const idempotencyKey = fields.idempotencyKey?.trim() || undefined;
    if (idempotencyKey && idempotencyKey.length > 255)
      throw errors.invalidRequest('The idempotency key may be at most 255 characters.');
    request = {
      workspaceId: fields.workspaceId?.trim() || undefined,
      idempotencyKey,
      metadata: parseMetadata(fields.metadata),
    };
  } catch (err) {
    await discardStaged();
    throw err;
  }
  return createUpload(deps, principal, { ...request, files: staged });
}

function asUploadError(
  err: unknown,
  limit: UploadLimit | undefined,
  filename: string,
  limits: FormDeps['limits'],
): unknown {
  switch (limit) {
    case 'file_size':
      return errors.fileTooLarge(filename, limits.maxFileBytes);
    case 'files':
      return errors.tooManyFiles(limits.maxFilesPerUpload);
    case 'parts':
      return errors.payloadTooLarge(limits.maxFileBytes);
    case 'malformed':
      return errors.invalidRequest(
        `The multipart body is malformed: ${err instanceof Error ? err.message : String(err)}`,
      );
    case undefined:
      return err;
  }
}
