import { audit } from '../access/audit.js';
import { requireEditOf, workspaceToEdit } from '../access/checks.js';
import { type GrantDeps, type GrantsInput, resolveDocumentAccess } from '../access/grants.js';
import type { Log } from '../domain/log.js';
import type { JobQueue, ObjectStore, SearchIndex } from '../domain/ports.js';
import type { SecretBox } from '../domain/secrets.js';
import type { AccountStore, AuditStore, WorkspaceStore } from '../domain/stores.js';
import type { Principal, RunView } from '../domain/types.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { type FolderRootGrant, rootsFor } from './grants.js';
import {
  FolderSettings,
  S3Credentials,
  S3Settings,
  type SourceConnectors,
  type SourceRecord,
  type SourceType,
  sourceCredentialsContext,
  WebsiteSettings,
} from './model.js';
import type { SourceChanges, SourceStore } from './store.js';
import { removeStored } from './sync.js';

export type SourceDeps = GrantDeps & {
  sources: SourceStore;
  workspaces: Pick<WorkspaceStore, 'getWorkspace'>;
  audit: Pick<AuditStore, 'append'>;
  connectors: Pick<SourceConnectors, SourceType>;
  accounts: Pick<AccountStore, 'findAccount'>;
  /** SOURCE_FOLDER_ROOTS: which folders each account may sync. */
  folderGrants: readonly FolderRootGrant[];
  secrets: SecretBox | undefined;
  jobs: Pick<JobQueue, 'enqueue'>;
  index: Pick<SearchIndex, 'deleteDocument'>;
  objects: Pick<ObjectStore, 'delete'>;
  log: Log;
};

export interface SourceInput {
  type: SourceType;
  name?: string | null | undefined;
  settings: Record<string, unknown>;
  credentials?: Record<string, string> | null | undefined;
  intervalMinutes?: number | null | undefined;
  maxDeleteShare?: number | undefined;
  /** Who of the workspace's readers may read the documents it brings; all of them when null. */
  access?: GrantsInput | null | undefined;
}

/** The settings of a type in their checked form (defaults filled in); invalid_request otherwise. */
function checkSettings(type: SourceType, settings: unknown): Record<string, unknown> {
  const schema = type === 's3' ? S3Settings : type === 'website' ? WebsiteSettings : FolderSettings;
  const parsed = schema.safeParse(settings);
  if (!parsed.success)
    throw errors.invalidRequest(
      `Invalid ${type} settings: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'settings'}: ${i.message}`).join('; ')}.`,
    );
  return parsed.data as Record<string, unknown>;
}

/** The folders the caller's account may sync from (none when the operator granted it none). */
async function rootsOf(
  deps: Pick<SourceDeps, 'accounts' | 'folderGrants'>,
  principal: Principal,
): Promise<string[]> {
  const account = await deps.accounts.findAccount(principal.accountId);
  return account ? rootsFor(deps.folderGrants, account) : [];
}

function checkCredentials(type: SourceType, credentials: Record<string, string>): void {
  if (type !== 's3') throw errors.invalidRequest(`A ${type} source takes no credentials.`);
  const parsed = S3Credentials.safeParse(credentials);
  if (!parsed.success) throw errors.invalidRequest('S3 credentials are {"accessKeyId", "secretAccessKey"}.');
}

function encryptCredentials(
  deps: Pick<SourceDeps, 'secrets'>,
  sourceId: string,
  credentials: Record<string, string>,
): string {
  if (!deps.secrets) throw errors.encryptionNotConfigured('Source credentials');
  return deps.secrets.encrypt(JSON.stringify(credentials), sourceCredentialsContext(sourceId));
}

const intervalSeconds = (minutes: number | null | undefined) =>
  minutes === undefined ? undefined : minutes === null ? null : minutes * 60;

export async function createSource(
  deps: SourceDeps,
  principal: Principal,
  workspaceId: string,
  input: SourceInput,
): Promise<SourceRecord> {
  // What is wrong with the settings themselves is said first: it needs no store, and tells nothing.
  const settings = checkSettings(input.type, input.settings);
  await workspaceToEdit(deps.workspaces, principal, workspaceId);
  const access = await resolveDocumentAccess(deps, principal.accountId, input.access ?? null);
  await deps.connectors[input.type].validate?.(settings, await rootsOf(deps, principal));
  const id = newId('src');
  let credentials: string | null = null;
  if (input.credentials) {
    checkCredentials(input.type, input.credentials);
    credentials = encryptCredentials(deps, id, input.credentials);
  }
  const source = await deps.sources.insertSource({
    id,
    accountId: principal.accountId,
    workspaceId,
    type: input.type,
    name: input.name ?? null,
    settings,
    credentials,
    intervalSeconds: intervalSeconds(input.intervalMinutes) ?? null,
    maxDeleteShare: input.maxDeleteShare ?? 0.5,
    access,
  });
  if (!source) throw errors.workspaceNotFound(workspaceId);
  await audit(deps.audit, principal, sourceEvent('source.created', source));
  // A new source syncs at once: the workspace is empty of it until the first sync, and nobody adds a
  // source to wait for its schedule.
  const first = await deps.sources.requestSync(principal.accountId, id, {
    runId: newId('run'),
    force: false,
  });
  await deps.jobs.enqueue('syncSource', { sourceId: id });
  return { ...source, syncRunId: first?.run.id ?? source.syncRunId };
}

/** Whether a type of source can be added by an account, and for folders which roots it may use. */
export interface SourceTypeOffer {
  type: SourceType;
  available: boolean;
  /** Why not, in one sentence; null when available. */
  reason: string | null;
  /** Folders granted to the account (folder sources only; empty for the other types). */
  roots: string[];
}

/**
 * The source types this server lets the caller's account add: buckets and websites always, folders
 * only where SOURCE_FOLDER_ROOTS grants the account a root (so a client offers only what will work).
 */
export async function sourceTypesFor(
  deps: Pick<SourceDeps, 'accounts' | 'folderGrants'>,
  principal: Principal,
): Promise<SourceTypeOffer[]> {
  const roots = await rootsOf(deps, principal);
  return [
    { type: 's3', available: true, reason: null, roots: [] },
    { type: 'website', available: true, reason: null, roots: [] },
    {
      type: 'folder',
      available: roots.length > 0,
      reason:
        roots.length > 0
          ? null
          : 'The operator has granted this account no folder on the server (SOURCE_FOLDER_ROOTS).',
      roots,
    },
  ];
}

const sourceEvent = (action: string, source: SourceRecord, details: Record<string, unknown> = {}) => ({
  action,
  targetType: 'source',
  targetId: source.id,
  details: { workspaceId: source.workspaceId, type: source.type, name: source.name, ...details },
});

/** The workspace's sources, for those who may see the workspace; another account's is unknown. */
export async function listSources(
  deps: Pick<SourceDeps, 'sources' | 'workspaces'>,
  principal: Principal,
  workspaceId: string,
): Promise<SourceRecord[]> {
  if (!(await deps.workspaces.getWorkspace(principal, workspaceId)))
    throw errors.workspaceNotFound(workspaceId);
  return deps.sources.listSources(principal.accountId, workspaceId);
}

/** A source of the workspace (a source of another workspace is unknown here). */
export async function getSource(
  deps: Pick<SourceDeps, 'sources' | 'workspaces'>,
  principal: Principal,
  workspaceId: string,
  sourceId: string,
): Promise<SourceRecord> {
  if (principal.member && !(await deps.workspaces.getWorkspace(principal, workspaceId)))
    throw errors.sourceNotFound(sourceId);
  const source = await deps.sources.getSource(principal.accountId, sourceId);
  if (!source || source.workspaceId !== workspaceId) throw errors.sourceNotFound(sourceId);
  return source;
}

/** A source the principal may change: found as it sees it, in a workspace it may edit. */
async function sourceToChange(
  deps: SourceDeps,
  principal: Principal,
  workspaceId: string,
  sourceId: string,
): Promise<SourceRecord> {
  const source = await getSource(deps, principal, workspaceId, sourceId);
  await requireEditOf(deps.workspaces, principal, workspaceId);
  return source;
}

export async function updateSource(
  deps: SourceDeps,
  principal: Principal,
  workspaceId: string,
  sourceId: string,
  input: {
    [K in Exclude<keyof SourceInput, 'type'>]?: SourceInput[K] | undefined;
  },
): Promise<SourceRecord> {
  const current = await sourceToChange(deps, principal, workspaceId, sourceId);
  const changes: SourceChanges = {
    name: input.name,
    intervalSeconds: intervalSeconds(input.intervalMinutes),
    maxDeleteShare: input.maxDeleteShare,
    access:
      input.access === undefined
        ? undefined
        : await resolveDocumentAccess(deps, principal.accountId, input.access),
  };
  if (input.settings !== undefined) {
    changes.settings = checkSettings(current.type, input.settings);
    await deps.connectors[current.type].validate?.(changes.settings, await rootsOf(deps, principal));
  }
  if (input.credentials === null) changes.credentials = null;
  else if (input.credentials) {
    checkCredentials(current.type, input.credentials);
    changes.credentials = encryptCredentials(deps, sourceId, input.credentials);
  }
  const updated = await deps.sources.updateSource(principal.accountId, sourceId, changes);
  if (!updated) throw errors.sourceNotFound(sourceId);
  await audit(
    deps.audit,
    principal,
    sourceEvent('source.updated', updated, {
      changed: Object.entries(changes)
        .filter(([, v]) => v !== undefined)
        .map(([k]) => k),
      ...(changes.access !== undefined ? { access: changes.access } : {}),
    }),
  );
  return updated;
}

/** Deletes the source with the documents it brought (they leave search at once). */
export async function deleteSource(
  deps: SourceDeps,
  principal: Principal,
  workspaceId: string,
  sourceId: string,
): Promise<SourceRecord> {
  await sourceToChange(deps, principal, workspaceId, sourceId);
  const deleted = await deps.sources.deleteSource(principal.accountId, sourceId);
  if (!deleted) throw errors.sourceNotFound(sourceId);
  await audit(
    deps.audit,
    principal,
    sourceEvent('source.deleted', deleted.source, { documents: deleted.documents.length }),
  );
  await removeStored(deps, deleted.documents);
  return deleted.source;
}

/**
 * Syncs the source now: the run of the sync already requested or under way, or a new one that a
 * worker starts at once. `force` lets this sync delete more than the source's deletion limit.
 */
export async function syncNow(
  deps: SourceDeps,
  principal: Principal,
  workspaceId: string,
  sourceId: string,
  options: { force: boolean },
): Promise<{ run: RunView; created: boolean }> {
  await sourceToChange(deps, principal, workspaceId, sourceId);
  const requested = await deps.sources.requestSync(principal.accountId, sourceId, {
    runId: newId('run'),
    force: options.force,
  });
  if (!requested) throw errors.sourceNotFound(sourceId);
  // Enqueued again for a sync under way too: a no-op while its job waits, and a lost job is found.
  await deps.jobs.enqueue('syncSource', { sourceId });
  return requested;
}
