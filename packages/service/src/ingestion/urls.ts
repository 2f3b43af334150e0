import type { GrantsInput } from '../access/grants.js';
import { artifactKeys } from '../domain/artifacts.js';
import { sanitizeFilename } from '../domain/filenames.js';
import { fetchHeadersContext, type SecretBox } from '../domain/secrets.js';
import type { StagedFile } from '../domain/stores.js';
import type { Principal } from '../domain/types.js';
import { decodeUriPart } from '../domain/uri.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { workspaceName } from '../workspaces/workspaces.js';
import { createUpload, type UploadDeps, type UploadResult } from './upload.js';

const MAX_URL_LENGTH = 2048;

/** Checks a URL's form (the address it leads to is checked when it is fetched, by the worker). */
export function validateUrl(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH)
    throw errors.invalidRequest(`A URL may have at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw errors.invalidRequest(`"${raw.slice(0, 100)}" is not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw errors.invalidRequest(`Only http and https URLs can be ingested, not ${url.protocol}`);
  }
  // Credentials in a URL would be stored and shown as the citation source.
  if (url.username || url.password)
    throw errors.invalidRequest('URLs with a user name or password are not accepted.');
  return url;
}

function provisionalName(url: URL): string {
  const last = url.pathname.split('/').filter(Boolean).pop();
  return sanitizeFilename(last ? decodeUriPart(last) : url.hostname);
}

/** Headers that describe the connection or the body, which a caller must not set. */
const RESERVED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'te',
  'upgrade',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'expect',
  'accept-encoding',
  'user-agent',
]);

export function validateFetchHeaders(headers: Record<string, string>): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length > 20) throw errors.invalidRequest('At most 20 fetch headers.');
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(lower))
      throw errors.invalidRequest(`"${name}" is not a header name.`);
    if (RESERVED_HEADERS.has(lower)) throw errors.invalidRequest(`The header "${name}" cannot be set.`);
    if (/[\r\n\0]/.test(value) || value.length > 4096)
      throw errors.invalidRequest(`The value of "${name}" is not valid.`);
    out[lower] = value;
  }
  return out;
}

export interface UrlIngestRequest {
  urls: string[];
  /** Headers for fetching these URLs (e.g. Authorization); stored encrypted until fetched. */
  headers: Record<string, string> | undefined;
  workspaceId: string | undefined;
  /** The name of the workspace the request creates (only without workspaceId). */
  workspaceName?: string | undefined;
  idempotencyKey: string | undefined;
  metadata: Record<string, unknown>;
  /** Who of the workspace's readers may read the pages (users, groups); all of them when absent or null. */
  access?: GrantsInput | null | undefined;
}

/**
 * Records one document per URL in a new run, like an upload whose bytes come later: the worker fetches
 * each URL (with the request-forgery guard) before parsing it, so a URL that cannot be fetched fails
 * its own document with a reason and the others carry on.
 */
export async function ingestUrls(
  deps: UploadDeps & { secrets: SecretBox | undefined },
  principal: Principal,
  req: UrlIngestRequest,
): Promise<UploadResult> {
  const headers =
    req.headers && Object.keys(req.headers).length ? validateFetchHeaders(req.headers) : undefined;
  if (headers && !deps.secrets) {
    throw errors.encryptionNotConfigured('Fetch headers');
  }
  if (req.workspaceId && req.workspaceName !== undefined)
    throw errors.invalidRequest(
      'Send "workspaceName" only to name the workspace a request creates, not with "workspaceId".',
    );
  const files: StagedFile[] = req.urls.map((raw) => {
    const url = validateUrl(raw.trim());
    const documentId = newId('doc');
    return {
      documentId,
      storageKey: artifactKeys.original(documentId),
      filename: provisionalName(url),
      declaredMediaType: null,
      sizeBytes: null,
      sha256: null,
      sourceUrl: url.href,
      fetchHeaders: headers
        ? deps.secrets!.encrypt(JSON.stringify(headers), fetchHeadersContext(documentId))
        : null,
    };
  });
  // The request hash covers which headers were given, not their secret values.
  const metadata = req.metadata;
  return createUpload(deps, principal, {
    workspaceId: req.workspaceId,
    workspaceName:
      req.workspaceName === undefined ? undefined : workspaceName(req.workspaceName, 'workspaceName'),
    idempotencyKey: req.idempotencyKey,
    metadata,
    files,
    access: req.access,
    hashExtra: headers ? Object.keys(headers).sort().join(',') : undefined,
  });
}
