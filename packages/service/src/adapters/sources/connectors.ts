import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { type Config, ConfigError, pathsOverlap } from '../../config.js';
import { packageRoot } from '../../paths.js';
import type { FolderRootGrant } from '../../sources/grants.js';
import type { ItemLimits } from '../../sources/items.js';
import type { SourceConnectors } from '../../sources/model.js';
import { WebsiteConnector } from '../../sources/website.js';
import { AllowList } from '../web/address-policy.js';
import { GuardedFetcher } from '../web/fetcher.js';
import { AddressGuard } from '../web/guard.js';
import { FolderConnector } from './folder.js';
import { S3Connector } from './s3.js';
import { ThreadedLister } from './threaded-lister.js';

/**
 * What the connectors are built from: plain data, so that the listing thread
 * (listing-thread.ts) builds the same connectors as the worker that reads items.
 */
export interface ConnectorOptions {
  /** URL_FETCH_ALLOW_HOSTS: internal hosts the request-forgery guard lets through. */
  allowHosts: string[];
  userAgent: string;
  /** The URL fetcher's limits, which every website and bucket request shares. */
  fetch: { timeoutMs: number; maxRedirects: number; maxBytes: number };
  /** Largest file a folder source reads (UPLOAD_MAX_FILE_BYTES). */
  maxFileBytes: number;
  /** Whether a worker reads images' text: else a sync skips images (embedded mode, default profile). */
  imagesReadable: boolean;
  /** Whether bucket sources may sign with the server's own AWS identity (SOURCE_S3_SERVER_CREDENTIALS). */
  s3ServerCredentials: boolean;
}

/** Every request a source makes goes through the same guard and limits as URL ingestion. */
export function createConnectors(options: ConnectorOptions): SourceConnectors {
  const guard = new AddressGuard(new AllowList(options.allowHosts));
  const fetcher = new GuardedFetcher({ guard, ...options.fetch, userAgent: options.userAgent });
  return {
    s3: new S3Connector({
      guard,
      timeoutMs: options.fetch.timeoutMs,
      maxBytes: options.fetch.maxBytes,
      allowServerCredentials: options.s3ServerCredentials,
    }),
    website: new WebsiteConnector(fetcher, {
      maxPageBytes: options.fetch.maxBytes,
      imagesReadable: options.imagesReadable,
    }),
    folder: new FolderConnector({ maxBytes: options.maxFileBytes, imagesReadable: options.imagesReadable }),
  };
}

/**
 * The configuration refuses a root that overlaps DATA_DIR by its path; this compares real paths, so
 * a symbolic link cannot put the service's own files (its encryption key) under a root either.
 */
export async function refuseDataDirUnderRoots(
  dataDir: string,
  grants: readonly FolderRootGrant[],
): Promise<void> {
  if (grants.length === 0) return;
  const real = async (p: string) => realpath(p).catch(() => path.resolve(p));
  const data = await real(dataDir);
  for (const grant of grants) {
    const root = await real(grant.path);
    if (pathsOverlap(root, data))
      throw new ConfigError(
        `SOURCE_FOLDER_ROOTS: "${grant.path}" (${root}) overlaps DATA_DIR (${data}); a folder source must never read the service's own data`,
      );
  }
}

/** The source connectors, the lister that runs them in a thread, the folder grants and the limits of an item. */
export async function createSourceAdapters(config: Config, userAgent: string) {
  const options: ConnectorOptions = {
    allowHosts: config.urlFetch.allowHosts,
    userAgent,
    fetch: {
      timeoutMs: config.urlFetch.timeoutMs,
      maxRedirects: config.urlFetch.maxRedirects,
      maxBytes: config.urlFetch.maxBytes,
    },
    maxFileBytes: config.limits.maxFileBytes,
    // In embedded mode this process is the only worker: without the full profile no one reads
    // images. In the stack a full worker may take them (they end as needs_ocr otherwise).
    imagesReadable: config.mode === 'stack' || config.parser.profile === 'full',
    s3ServerCredentials: config.sources.s3ServerCredentials,
  };
  const folderGrants = config.sources.folderRoots;
  await refuseDataDirUnderRoots(config.dataDir, folderGrants);
  const limits: ItemLimits = {
    maxBytes: { s3: options.fetch.maxBytes, website: options.fetch.maxBytes, folder: options.maxFileBytes },
    timeoutMs: options.fetch.timeoutMs,
  };
  return {
    connectors: createConnectors(options),
    folderGrants,
    limits,
    lister: new ThreadedLister({
      entry: path.join(packageRoot(), 'dist', 'listing.js'),
      connectors: options,
      memoryMb: config.sources.listingMemoryMb,
      stallMs: config.sources.listingStallSeconds * 1000,
    }),
  };
}
