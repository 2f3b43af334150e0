import type { Readable } from 'node:stream';
import { checkInput } from '../domain/input.js';
import type { JobQueue, ObjectStore } from '../domain/ports.js';
import type { StagedFile, WorkspaceStore } from '../domain/stores.js';
import type { Principal } from '../domain/types.js';
import { type AppError, errors } from '../errors.js';
import { createUpload, stageFile, type UploadResult } from './upload.js';

/** One part of a multipart upload, in the order the client sent them. */
export type UploadPart =
  | { kind: 'field'; name: string; value: string /** cut at UPLOAD_FIELDS.maxBytes */; truncated: boolean }
  | { kind: 'file'; field: string; filename: string; mediaType: string | null; stream: Readable };

/** Form fields an upload may carry besides its files (workspaceId, idempotencyKey, metadata, …). */
export const UPLOAD_FIELDS = { max: 20, maxBytes: 64 * 1024 };

/** What can be wrong with the multipart body itself (as opposed to storage or the database). */
export type UploadFormProblem = 'file_size' | 'files' | 'fields' | 'malformed';

/** Raised by the HTTP layer's reader of the parts for a body that breaks a limit or the format. */
export class UploadFormError extends Error {
  constructor(
    readonly problem: UploadFormProblem,
    readonly detail: string,
  ) {
    super(`multipart body error: ${detail}`);
    this.name = 'UploadFormError';
  }
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
  checkInput(value, 'metadata');
  return { ...value };
}

/**
 * An upload form: each file streams into object storage as it arrives (through a hash and a byte
 * counter), then the upload is recorded. Whatever goes wrong, nothing staged for this request stays.
 */
export async function ingestForm(
  deps: FormDeps,
  principal: Principal,
  parts: AsyncIterable<UploadPart>,
): Promise<UploadResult> {
  const staged: StagedFile[] = [];
  const discardStaged = () => deps.objects.delete(staged.map((f) => f.storageKey)).catch(() => {});
  const fields: Record<string, string> = {};
  let checkedWorkspace = false;
  let currentFile = '';
  try {
    for await (const part of parts) {
      if (part.kind === 'field') {
        // busboy cuts a longer value silently; a cut metadata object would be misreported as not JSON.
        if (part.truncated) throw errors.fieldTooLarge(part.name, UPLOAD_FIELDS.maxBytes);
        checkInput({ [part.name]: part.value }, '');
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
    throw err instanceof UploadFormError ? formError(err, currentFile, deps.limits) : err;
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

function formError(err: UploadFormError, filename: string, limits: FormDeps['limits']): AppError {
  switch (err.problem) {
    case 'file_size':
      return errors.fileTooLarge(filename, limits.maxFileBytes);
    case 'files':
      return errors.tooManyFiles(limits.maxFilesPerUpload);
    case 'fields':
      return errors.tooManyFields(UPLOAD_FIELDS.max);
    case 'malformed':
      return errors.malformedMultipart(err.detail);
  }
}
