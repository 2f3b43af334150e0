import { z } from 'zod';
import { RUN_STATUSES } from '../domain/types.js';
import { SOURCE_TYPES, type SourceRecord } from '../sources/model.js';
import { DocumentAccess, DocumentAccessInput } from './access-schemas.js';

/** What a sync found when it listed its source: on the sync's run (`changes`). */
export const SyncChanges = z
  .object({
    added: z.number().int().describe('Items new to the workspace, each a document of this run'),
    changed: z
      .number()
      .int()
      .describe(
        'Items processed again: changed, failed or cancelled before, or a file whose size or time moved',
      ),
    deleted: z.number().int().describe('Documents deleted because their item is gone from the source'),
    unchanged: z.number().int().describe('Items left as they were'),
  })
  .nullable()
  .describe(
    'What a sync found when it listed its source (kept when its documents move on to later runs); all of added, changed and deleted 0: the sync found nothing new. null for other runs, and a sync that applied nothing (cancelled, failed, not listed yet)',
  );

/** A source as its owners see it: never its credentials, only whether it has some. */
export const Source = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    type: z.enum(SOURCE_TYPES),
    name: z.string().nullable(),
    settings: z.record(z.string(), z.unknown()).describe("The type's settings, with defaults filled in"),
    hasCredentials: z.boolean(),
    intervalMinutes: z.number().int().nullable().describe('Synced on this schedule; null: only on request'),
    maxDeleteShare: z
      .number()
      .describe(
        'A sync that would delete more than this share of the source’s documents fails unless forced',
      ),
    access: DocumentAccess,
    createdAt: z.string(),
    updatedAt: z.string(),
    lastSync: z
      .object({
        runId: z.string(),
        status: z.enum(RUN_STATUSES),
        startedAt: z.string(),
        finishedAt: z.string().nullable(),
        error: z.object({ code: z.string(), message: z.string() }).nullable(),
        changes: SyncChanges,
      })
      .nullable()
      .describe(
        'The last sync that listed the source (its run may still be processing documents), whether or not it found anything new: when the source was last checked',
      ),
    lastCheckedAt: z
      .string()
      .nullable()
      .describe(
        'When a sync last finished listing the source, whatever it found (nothing new, too); null before the first',
      ),
    syncRunId: z.string().nullable().describe('The run of the sync requested or under way'),
    nextSyncAt: z
      .string()
      .nullable()
      .describe('null without a schedule, or when five syncs in a row failed the same way'),
    consecutiveFailures: z
      .number()
      .int()
      .describe(
        'Syncs in a row that failed with the same code: each scheduled sync then waits twice as long, and after five the schedule stops until the source is changed or synced on request',
      ),
  })
  .meta({ id: 'Source' });

export function sourceView(s: SourceRecord): z.infer<typeof Source> {
  const run = s.lastRun;
  return {
    id: s.id,
    workspaceId: s.workspaceId,
    type: s.type,
    name: s.name,
    settings: s.settings,
    hasCredentials: s.credentials !== null,
    intervalMinutes: s.intervalSeconds === null ? null : Math.round(s.intervalSeconds / 60),
    maxDeleteShare: s.maxDeleteShare,
    access: s.access,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    lastSync: run
      ? {
          runId: run.id,
          status: run.status,
          startedAt: run.createdAt.toISOString(),
          finishedAt: run.finishedAt?.toISOString() ?? null,
          error: run.error,
          changes: run.changes ?? null,
        }
      : null,
    lastCheckedAt: s.lastSyncAt?.toISOString() ?? null,
    syncRunId: s.syncRunId,
    nextSyncAt: s.nextSyncAt?.toISOString() ?? null,
    consecutiveFailures: s.consecutiveFailures,
  };
}

export const SourceTypeOffer = z
  .object({
    type: z.enum(SOURCE_TYPES),
    available: z.boolean().describe('Whether the caller may add a source of this type'),
    reason: z.string().nullable().describe('Why not, in one sentence; null when available'),
    roots: z
      .array(z.string())
      .describe("Folder sources: the server folders granted to the caller's account; empty for the others"),
  })
  .meta({ id: 'SourceTypeOffer' });

const settingsField = z
  .record(z.string(), z.unknown())
  .describe(
    's3: {endpoint?, region?, bucket, prefix?, forcePathStyle?}; website: {startUrl? | sitemapUrl?, urlPrefix?, maxPages?, maxDepth?, maxRequests?, maxHosts?, requestDelayMs?}; folder: {path} (under a folder SOURCE_FOLDER_ROOTS grants the account)',
  );
const credentialsField = z
  .record(z.string(), z.string().max(1024))
  .describe('s3 only: {accessKeyId, secretAccessKey}; stored encrypted, never returned');

export const SourceCreate = z.object({
  type: z.enum(SOURCE_TYPES),
  name: z.string().max(200).nullable().optional(),
  settings: settingsField,
  credentials: credentialsField.optional(),
  intervalMinutes: z.number().int().min(1).max(525_600).nullable().optional(),
  maxDeleteShare: z.number().min(0).max(1).optional(),
  access: DocumentAccessInput.optional(),
});

export const SourceUpdate = z.object({
  name: z.string().max(200).nullable().optional(),
  settings: settingsField.optional(),
  credentials: credentialsField.nullable().optional().describe('null removes them'),
  intervalMinutes: z.number().int().min(1).max(525_600).nullable().optional(),
  maxDeleteShare: z.number().min(0).max(1).optional(),
  access: DocumentAccessInput.optional().describe('Applied at once to every document it brought'),
});
