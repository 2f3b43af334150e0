import { z } from 'zod';
import type { FetchedResource } from '../domain/ports.js';
import type { DocumentAccess, Run } from '../domain/types.js';
import { GlobList } from './globs.js';

/** The kinds of place a workspace can stay in sync with (docs/api.md#sources). */
export const SOURCE_TYPES = ['s3', 'website', 'folder'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

const httpUrl = z
  .string()
  .max(2048)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'an http or https URL');

/** An S3-compatible bucket prefix. `endpoint` is absent for AWS itself. */
export const S3Settings = z.object({
  endpoint: httpUrl.optional(),
  region: z.string().min(1).max(64).default('us-east-1'),
  bucket: z.string().min(3).max(63),
  prefix: z.string().max(1024).default(''),
  forcePathStyle: z.boolean().default(true),
  /**
   * Sign with the server's own AWS identity (the SDK's default chain: environment, files, container
   * or instance metadata), where the operator allows it (SOURCE_S3_SERVER_CREDENTIALS). Without it
   * and without keys the bucket is read anonymously.
   */
  serverCredentials: z.boolean().default(false),
  /** Matched against the key below the prefix. */
  include: GlobList,
  exclude: GlobList,
});
export const S3Credentials = z.object({
  accessKeyId: z.string().min(1).max(256),
  secretAccessKey: z.string().min(1).max(512),
});

/** A website from a start page (following links) or a sitemap, kept under `urlPrefix`. */
export const WebsiteSettings = z
  .object({
    startUrl: httpUrl.optional(),
    sitemapUrl: httpUrl.optional(),
    urlPrefix: z.string().max(2048).optional(),
    maxPages: z.number().int().min(1).max(10_000).default(200),
    maxDepth: z.number().int().min(0).max(10).default(3),
    /**
     * Requests one sync may make in all (robots.txt, sitemaps, pages, those that fail included);
     * default twice the page limit and 20 more. A sitemap of missing pages or a site of redirects
     * costs requests, not pages.
     */
    maxRequests: z.number().int().min(1).max(50_000).optional(),
    /** Hosts one sync may send requests to (with an empty urlPrefix a sitemap can name any host). */
    maxHosts: z.number().int().min(1).max(100).default(5),
    /** The pause between two requests to the same host; a longer robots.txt Crawl-delay wins. */
    requestDelayMs: z.number().int().min(0).max(60_000).default(250),
    /** Matched against a page's URL path: an excluded page is never fetched, one not included is read only for its links. */
    include: GlobList,
    exclude: GlobList,
  })
  .refine((s) => s.startUrl || s.sitemapUrl, 'a startUrl or a sitemapUrl');

/** A folder on the server, under one of the operator's SOURCE_FOLDER_ROOTS. */
export const FolderSettings = z.object({
  path: z.string().min(1).max(4096),
  /** Matched against a file's path below the folder. */
  include: GlobList,
  exclude: GlobList,
});

export type S3Settings = z.infer<typeof S3Settings>;
export type S3Credentials = z.infer<typeof S3Credentials>;
export type WebsiteSettings = z.infer<typeof WebsiteSettings>;
export type FolderSettings = z.infer<typeof FolderSettings>;

export type SourceSettings =
  | { type: 's3'; settings: S3Settings }
  | { type: 'website'; settings: WebsiteSettings }
  | { type: 'folder'; settings: FolderSettings };

/** A source as stored; `credentials` is the encrypted value (never shown). */
export interface SourceRecord {
  id: string;
  accountId: string;
  /** The account's name (folder grants name accounts by name or id). */
  accountName: string;
  workspaceId: string;
  type: SourceType;
  name: string | null;
  settings: Record<string, unknown>;
  credentials: string | null;
  intervalSeconds: number | null;
  maxDeleteShare: number;
  /** Who of the workspace's readers may read the documents it brings; null for all of them. */
  access: DocumentAccess;
  createdAt: Date;
  updatedAt: Date;
  nextSyncAt: Date | null;
  /** The last sync that finished listing (its run may still be processing documents). */
  lastRun: Run | null;
  lastSyncAt: Date | null;
  /** The run of the sync requested or under way. */
  syncRunId: string | null;
  /** Syncs in a row that failed with the same code (0 after a sync that did not fail). */
  consecutiveFailures: number;
}

/** What each type compares to tell a changed item from an unchanged one. */
export interface ItemFingerprint {
  etag?: string | null | undefined;
  sizeBytes?: number | null | undefined;
  mtimeMs?: number | null | undefined;
  lastModified?: string | null | undefined;
  contentHash?: string | null | undefined;
}

/** An item as the last applied sync left it. */
export interface PreviousItem extends ItemFingerprint {
  key: string;
  documentId: string;
  version: number;
  /** The document's state: a failed or cancelled one is tried again even when the item did not change. */
  documentStatus: string;
  links: string[] | null;
}

/** An item a connector found in its source now. */
export interface ListedItem {
  key: string;
  filename: string;
  /** The page's URL for a website (shown as the document's source URL); null for objects and files. */
  url: string | null;
  fingerprint: ItemFingerprint;
  /** The source itself said the item did not change since the previous sync (HTTP 304). */
  notModified?: boolean | undefined;
  /** A page's links (kept so that a page that did not change still leads the crawl on). */
  links?: string[] | undefined;
  /**
   * Why no worker can read the item (an archive, binary content, a file over the size limit): it
   * becomes no document, and the sync's run counts it as skipped with this reason.
   */
  skipReason?: string | undefined;
}

/** What a connector gets: the settings and the decrypted credentials. */
export interface SourceAccess {
  id: string;
  type: SourceType;
  settings: Record<string, unknown>;
  credentials: Record<string, string> | undefined;
  /** Folders the source's account may read (SOURCE_FOLDER_ROOTS granted to it); folder sources only. */
  roots: string[];
}

/** Reads items of one source until closed; `open` throws DocumentFailure for one item. */
export interface SourceReader {
  open(key: string, signal: AbortSignal): Promise<FetchedResource>;
  close(): Promise<void>;
}

/**
 * Lists and reads one type of source. `list` throws SourceFailure when the source as a whole cannot be
 * read (the sync fails and nothing changes); `open` throws DocumentFailure for one item.
 */
export interface SourceConnector {
  list(
    source: SourceAccess,
    previous: ReadonlyMap<string, PreviousItem>,
    signal: AbortSignal,
  ): Promise<ListedItem[]>;
  open(source: SourceAccess, key: string, signal: AbortSignal): Promise<FetchedResource>;
  /**
   * A reader of many items of one source (a batch's), holding what they share until it is closed (a
   * folder opened once). Without one, each item is opened with `open`.
   */
  reader?(source: SourceAccess): SourceReader;
  /**
   * Checks settings beyond their form (a folder under one of `roots`, those granted to the caller's
   * account); an AppError when refused.
   */
  validate?(settings: Record<string, unknown>, roots: string[]): Promise<void>;
}

/**
 * Lists a source where a listing that stalls or swells costs only that sync: the worker's lister
 * runs connectors in a thread of their own, under a memory limit and a watchdog
 * (adapters/sources/threaded-lister.ts), so a hostile site or folder cannot freeze or fill the
 * process that also serves the API in embedded mode. Throws SourceFailure as `list` does.
 */
export interface SourceLister {
  list(
    source: SourceAccess,
    previous: ReadonlyMap<string, PreviousItem>,
    signal: AbortSignal,
  ): Promise<ListedItem[]>;
}

/** Lists in the calling thread: for tests and tools, never for outside input in the server. */
export const directLister = (connectors: SourceConnectors): SourceLister => ({
  list: (source, previous, signal) => connectors[source.type].list(source, previous, signal),
});

export type SourceConnectors = Record<SourceType, SourceConnector>;

/**
 * Why a sync failed as a whole, as its run's `error.code` (docs/api.md#sources): the source refused
 * the credentials, could not be reached, is gone, may not be read, or the sync would delete more
 * than the source's `maxDeleteShare` of its documents.
 */
export const SYNC_FAILURE_CODES = [
  'source_credentials_refused',
  'source_unreachable',
  'source_missing',
  'source_forbidden',
  'deletion_limit_exceeded',
  'credentials_unavailable',
  'sync_failed',
] as const;
export type SyncFailureCode = (typeof SYNC_FAILURE_CODES)[number];

/** The source as a whole cannot be synced now; the sync's run fails with this code. */
export class SourceFailure extends Error {
  constructor(
    readonly code: SyncFailureCode,
    message: string,
  ) {
    super(message);
    this.name = 'SourceFailure';
  }
}

/** The authenticated context of a source's encrypted credentials: they belong to that row only. */
export const sourceCredentialsContext = (sourceId: string) => `sources.credentials:${sourceId}`;
