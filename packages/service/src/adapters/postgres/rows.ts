import type {
  ApiKeyRecord,
  DocumentCounts,
  DocumentRecord,
  DocumentStage,
  DocumentStatus,
  Grants,
  Group,
  Role,
  Run,
  RunKind,
  RunStatus,
  Scope,
  SkippedItems,
  SyncChanges,
  User,
  WebhookAttempt,
  WebhookDeliveryStatus,
  WebhookEventType,
  Workspace,
} from '../../domain/types.js';

/**
 * The tables' rows as `pg` returns them, declared once from the migrations, and their mappers to
 * domain records. Status columns carry CHECK constraints, so their unions are what the database
 * holds; BIGINT and count(*) arrive as numbers (db.ts sets the parser).
 */

export interface ApiKeyRow {
  id: string;
  account_id: string;
  name: string | null;
  key_prefix: string;
  key_hash: string;
  scopes: Scope[];
  user_id: string | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface WorkspaceRow {
  id: string;
  account_id: string;
  name: string | null;
  description: string | null;
  metadata: Record<string, unknown> | null;
  language: string;
  languages: string[] | null;
  read_users: string[] | null;
  read_groups: string[] | null;
  edit_users: string[] | null;
  edit_groups: string[] | null;
  created_at: Date;
  updated_at: Date;
}

export interface RunRow {
  id: string;
  account_id: string;
  workspace_id: string;
  status: RunStatus;
  kind: RunKind;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  resumed_at: Date | null;
  source_id: string | null;
  error_code: string | null;
  error_message: string | null;
  skipped?: SkippedItems | null;
  changes?: SyncChanges | null;
}

export interface DocumentRow {
  id: string;
  account_id: string;
  workspace_id: string;
  run_id: string;
  filename: string;
  source_url: string | null;
  declared_media_type: string | null;
  media_type: string | null;
  size_bytes: number | null;
  sha256: string | null;
  storage_key: string;
  status: DocumentStatus;
  stage: DocumentStage;
  error_code: string | null;
  error_message: string | null;
  page_count: number | null;
  chunk_count: number | null;
  language: string | null;
  metadata: Record<string, unknown> | null;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  fetch_headers: string | null;
  processed_by: string | null;
  source_id: string | null;
  source_item: string | null;
  version: number;
  indexed_sha256?: string | null;
  access_users: string[] | null;
  access_groups: string[] | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface UserRow {
  id: string;
  account_id: string;
  email: string;
  name: string | null;
  role: Role;
  password_hash: string | null;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  /** Selected with USER_COLUMNS. */
  group_ids: string[];
  created_at: Date;
  last_login_at: Date | null;
}

/** A user's columns and its groups' ids, for a query `FROM users u`. */
export const USER_COLUMNS =
  'u.*, ARRAY(SELECT gm.group_id FROM group_members gm WHERE gm.user_id = u.id ORDER BY gm.group_id) AS group_ids';

export interface GroupRow {
  id: string;
  account_id: string;
  name: string;
  created_at: Date;
  /** Selected with GROUP_COLUMNS. */
  member_ids: string[];
}

/** A group's columns and its members' ids, for a query `FROM groups g`. */
export const GROUP_COLUMNS =
  'g.*, ARRAY(SELECT gm.user_id FROM group_members gm WHERE gm.group_id = g.id ORDER BY gm.user_id) AS member_ids';

export function toGroup(r: GroupRow): Group {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    memberIds: r.member_ids ?? [],
    createdAt: r.created_at,
  };
}

/** Access columns (two arrays, both null or both set) as an access list. */
export function grantsOf(users: string[] | null, groups: string[] | null): Grants | null {
  return users === null ? null : { users, groups: groups ?? [] };
}

export interface WebhookEndpointRow {
  id: string;
  account_id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  secret: string;
  owner_user_id: string | null;
  created_at: Date;
}

export interface WebhookDeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  retry_from: Date;
  manual: boolean;
  claim: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

export interface WebhookAttemptRow {
  delivery_id: string;
  number: number;
  manual: boolean;
  started_at: Date;
  finished_at: Date | null;
  status_code: number | null;
  error: string | null;
  response: string | null;
}

/** `SELECT status, count(*) AS n … GROUP BY status` over documents. */
export interface StatusCountRow {
  status: DocumentStatus;
  n: number;
}

/** A failed document as runs and the overview list it. */
export interface FailureRow {
  id: string;
  filename: string;
  source_item?: string | null;
  error_code: string | null;
  error_message: string | null;
}

export function toApiKey(r: ApiKeyRow): ApiKeyRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    prefix: r.key_prefix,
    scopes: r.scopes,
    userId: r.user_id ?? null,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  };
}

export function toWorkspace(r: WorkspaceRow): Workspace {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    description: r.description,
    metadata: r.metadata ?? {},
    language: r.language ?? 'auto',
    languages: r.languages ?? [],
    access:
      r.read_users === null || r.read_users === undefined
        ? null
        : {
            read: grantsOf(r.read_users, r.read_groups)!,
            edit: grantsOf(r.edit_users ?? [], r.edit_groups)!,
          },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toRun(r: RunRow): Run {
  return {
    id: r.id,
    accountId: r.account_id,
    workspaceId: r.workspace_id,
    status: r.status,
    kind: r.kind,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
    sourceId: r.source_id,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
    skipped: r.skipped ?? null,
    changes: r.changes ?? null,
  };
}

export function toDocument(r: DocumentRow): DocumentRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    workspaceId: r.workspace_id,
    runId: r.run_id,
    filename: r.filename,
    sourceUrl: r.source_url,
    declaredMediaType: r.declared_media_type,
    mediaType: r.media_type,
    sizeBytes: r.size_bytes,
    sha256: r.sha256,
    storageKey: r.storage_key,
    status: r.status,
    stage: r.stage,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    pageCount: r.page_count,
    chunkCount: r.chunk_count,
    language: r.language ?? null,
    metadata: r.metadata ?? {},
    attempts: r.attempts,
    sourceId: r.source_id,
    sourceItem: r.source_item,
    version: r.version,
    indexedSha256: r.indexed_sha256 ?? null,
    access: grantsOf(r.access_users ?? null, r.access_groups ?? null),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
  };
}

export function toUser(r: UserRow): User {
  return {
    id: r.id,
    accountId: r.account_id,
    email: r.email,
    name: r.name ?? null,
    role: r.role,
    groupIds: r.group_ids ?? [],
    hasPassword: r.password_hash !== null,
    createdAt: r.created_at,
    lastLoginAt: r.last_login_at,
  };
}

export function toFailure(f: FailureRow) {
  return {
    documentId: f.id,
    filename: f.filename,
    sourceItem: f.source_item ?? null,
    code: f.error_code ?? 'unknown',
    message: f.error_message ?? '',
  };
}

export function countsFrom(rows: readonly StatusCountRow[]): DocumentCounts {
  const counts: DocumentCounts = {
    total: 0,
    queued: 0,
    processing: 0,
    ready: 0,
    needs_ocr: 0,
    failed: 0,
    cancelled: 0,
    deleted: 0,
  };
  for (const r of rows) {
    counts[r.status] = r.n;
    counts.total += r.n;
  }
  return counts;
}

export function toWebhookAttempt(r: WebhookAttemptRow): WebhookAttempt {
  return {
    number: r.number,
    manual: r.manual,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    statusCode: r.status_code,
    error: r.error,
    response: r.response,
  };
}
