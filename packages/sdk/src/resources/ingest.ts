import type { RequestOptions } from '../transport.js';
import type { Formats, GrantsInput, UploadResult } from '../types.js';
import { type Api, LONG_TIMEOUT_MS, readJson } from './api.js';

/** A file to upload: its name and its content, with a media type for raw bytes and text. */
export interface UploadFile {
  filename: string;
  data: Blob | ArrayBuffer | ArrayBufferView | string;
  /** Media type sent with the file; default: the Blob's own type, else `application/octet-stream`. */
  contentType?: string;
}

export interface UploadParams {
  files: UploadFile[];
  /** Append to this workspace; without it, the upload creates a new workspace. */
  workspaceId?: string;
  /** The name of the workspace the upload creates (not with `workspaceId`). */
  workspaceName?: string;
  /** Makes the upload safe to repeat: the same key and content return the original records. Enables retries. */
  idempotencyKey?: string;
  /** A JSON object stored on every document of this upload. */
  metadata?: Record<string, unknown>;
  /** Who of the workspace's readers may read these documents (users, groups); null or absent: all. */
  access?: GrantsInput | null;
}

export interface IngestUrlsParams {
  urls: string[];
  workspaceId?: string;
  /** The name of the workspace the request creates (not with `workspaceId`). */
  workspaceName?: string;
  /** As for uploads: makes the request safe to repeat, and enables retries. */
  idempotencyKey?: string;
  /** As for uploads: who of the workspace's readers may read these pages. */
  access?: GrantsInput | null;
}

// What the Blob constructor takes in this runtime's typings (DOM and Node word it differently).
type BlobInput = NonNullable<ConstructorParameters<typeof Blob>[0]>[number];

function toBlob(file: UploadFile, index: number): Blob {
  const { data, contentType } = file;
  if (typeof file.filename !== 'string' || file.filename === '') {
    throw new TypeError(`files[${index}].filename must be a non-empty string.`);
  }
  if (typeof Blob !== 'undefined' && data instanceof Blob) {
    return contentType && contentType !== data.type ? data.slice(0, data.size, contentType) : data;
  }
  if (typeof data === 'string') return new Blob([data], { type: contentType ?? 'text/plain; charset=utf-8' });
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
    return new Blob([data as BlobInput], { type: contentType ?? 'application/octet-stream' });
  }
  throw new TypeError(
    `files[${index}].data must be a Blob, an ArrayBuffer, a typed array (such as a Uint8Array or Buffer) or a string.`,
  );
}

/** Files and web pages into a workspace, and the formats the service reads. */
export class Ingest {
  constructor(private readonly api: Api) {}

  upload(params: UploadParams, options: RequestOptions | undefined): Promise<UploadResult> {
    if (!Array.isArray(params?.files) || params.files.length === 0) {
      throw new TypeError('upload needs at least one file: { files: [{ filename, data }] }.');
    }
    const blobs = params.files.map(toBlob);
    const form = new FormData();
    // Fields before files: the server checks the workspace before any file is streamed.
    if (params.workspaceId !== undefined) form.append('workspaceId', params.workspaceId);
    if (params.workspaceName !== undefined) form.append('workspaceName', params.workspaceName);
    if (params.idempotencyKey !== undefined) form.append('idempotencyKey', params.idempotencyKey);
    if (params.metadata !== undefined) form.append('metadata', JSON.stringify(params.metadata));
    if (params.access !== undefined) form.append('access', JSON.stringify(params.access));
    blobs.forEach((blob, i) => {
      form.append('files', blob, params.files[i]!.filename);
    });
    return this.api.send<UploadResult>(
      {
        method: 'POST',
        path: '/v1/ingest/bulk',
        form,
        accept: 'application/json',
        retryable: params.idempotencyKey !== undefined,
        defaultTimeoutMs: LONG_TIMEOUT_MS,
        read: readJson,
      },
      options,
    );
  }

  listFormats(options: RequestOptions | undefined): Promise<Formats> {
    return this.api.get('/v1/formats', options);
  }

  ingestUrls(params: IngestUrlsParams, options: RequestOptions | undefined): Promise<UploadResult> {
    if (!Array.isArray(params?.urls) || params.urls.length === 0) {
      throw new TypeError('ingestUrls needs at least one URL: { urls: ["https://…"] }.');
    }
    return this.api.post('/v1/ingest/urls', params, params.idempotencyKey !== undefined, options);
  }
}
