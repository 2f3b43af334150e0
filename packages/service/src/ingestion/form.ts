import type { Readable } from 'node:stream';
import { workspaceToEdit } from '../access/checks.js';
import type { GrantsInput } from '../access/grants.js';
import { checkInput } from '../domain/input.js';
import type { StorageSpace } from '../domain/ports.js';
import type { Principal } from '../domain/types.js';
import { type AppError, errors, type RefusedFile } from '../errors.js';
import { checkUpload, SUPPORTED_FORMATS, supportedFormatsText } from '../parsing/upload-check.js';
import { workspaceName } from '../workspaces/workspaces.js';
import { createUpload, type Staged, Stager, type UploadDeps, type UploadResult } from './upload.js';

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

export type FormDeps = UploadDeps & {
  limits: { maxFileBytes: number; maxFilesPerUpload: number };
  space: StorageSpace;
};

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

/** The `access` field: JSON `{"users": [...], "groups": [...]}`, or `null` (the workspace's readers). */
function parseAccess(raw: string | undefined): GrantsInput | null {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'null') return null;
  const problem = () =>
    errors.invalidRequest(
      'The field "access" must be JSON like {"users": ["ana@example.com"], "groups": ["HR"]}, or null.',
    );
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw problem();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw problem();
  const { users, groups, ...rest } = value as Record<string, unknown>;
  const strings = (v: unknown) =>
    v === undefined || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
  if (Object.keys(rest).length > 0 || !strings(users) || !strings(groups)) throw problem();
  return { users: users as string[] | undefined, groups: groups as string[] | undefined };
}

/**
 * Files no worker can read, as the request's refusal lists them. An upload is all or nothing: one
 * such file refuses the whole request (415, every file named with its reason), like a file over the
 * size limit does, so a run never holds a subset of what the client sent without it noticing.
 */
function refusals(staged: Staged[]): RefusedFile[] {
  return staged.flatMap((f, index) => {
    const check = checkUpload(f.sample, f.filename, f.declaredMediaType);
    return check.ok ? [] : [{ index, filename: f.filename, code: check.code, reason: check.reason }];
  });
}

/**
 * An upload form: each file streams into object storage as it arrives (through a hash and a byte
 * counter; small files are stored while the next is read), then the upload is recorded. Whatever goes wrong, nothing staged for this request stays.
 */
export async function ingestForm(
  deps: FormDeps,
  principal: Principal,
  parts: AsyncIterable<UploadPart>,
  /** The body's declared size (Content-Length), when it has one: refused at once if it cannot fit. */
  declaredBytes?: number,
): Promise<UploadResult> {
  await deps.space.ensure(declaredBytes ?? 0);
  const staged: Staged[] = [];
  const stager = new Stager(deps.objects, deps.space);
  // After the writes under way: one finishing later would leave its object behind.
  const discardStaged = async () => {
    await stager.settled().catch(() => {});
    await deps.objects.delete(staged.map((f) => f.storageKey)).catch(() => {});
  };
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
        try {
          await workspaceToEdit(deps.workspaces, principal, fields.workspaceId);
        } catch (err) {
          part.stream.resume();
          throw err;
        }
      }
      currentFile = part.filename;
      staged.push(await stager.stage(part));
    }
    await stager.settled();
  } catch (err) {
    await discardStaged();
    throw err instanceof UploadFormError ? formError(err, currentFile, deps.limits) : err;
  }
  let request: {
    workspaceId: string | undefined;
    workspaceName: string | undefined;
    idempotencyKey: string | undefined;
    metadata: Record<string, unknown>;
    access: GrantsInput | null;
  };
  try {
    const idempotencyKey = fields.idempotencyKey?.trim() || undefined;
    if (idempotencyKey && idempotencyKey.length > 255)
      throw errors.invalidRequest('The idempotency key may be at most 255 characters.');
    const workspaceId = fields.workspaceId?.trim() || undefined;
    if (workspaceId && fields.workspaceName !== undefined)
      throw errors.invalidRequest(
        'Send "workspaceName" only to name the workspace an upload creates, not with "workspaceId".',
      );
    request = {
      workspaceId,
      workspaceName:
        fields.workspaceName === undefined ? undefined : workspaceName(fields.workspaceName, 'workspaceName'),
      idempotencyKey,
      metadata: parseMetadata(fields.metadata),
      access: parseAccess(fields.access),
    };
    const refused = refusals(staged);
    if (refused.length > 0)
      throw errors.unsupportedFileFormat(
        refused,
        staged.length,
        SUPPORTED_FORMATS.map((f) => f.name),
        supportedFormatsText(),
      );
  } catch (err) {
    await discardStaged();
    throw err;
  }
  return createUpload(deps, principal, {
    ...request,
    files: staged.map(({ sample: _sample, ...file }) => file),
  });
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
