import { Worker } from 'node:worker_threads';
import {
  type ListedItem,
  type PreviousItem,
  type SourceAccess,
  SourceFailure,
  type SourceLister,
  type SyncFailureCode,
} from '../../sources/model.js';

/** How often a listing thread says it is alive. */
export const HEARTBEAT_MS = 1000;

/** What a listing thread posts. */
export type ListingMessage =
  | { kind: 'beat' }
  | { kind: 'listed'; items: ListedItem[] }
  | { kind: 'failed'; code: SyncFailureCode | undefined; message: string };

export interface ThreadedListerOptions {
  /** The thread's entry: dist/listing.js (listing-thread.ts). */
  entry: string | URL;
  /** What the thread builds its connectors from (ConnectorOptions: plain data, copied to the thread). */
  connectors: object;
  /** The thread's heap limit (SOURCE_LISTING_MEMORY_MB). */
  memoryMb: number;
  /** A thread whose event loop has not turned for this long is ended (SOURCE_LISTING_STALL_SECONDS). */
  stallMs: number;
}

/**
 * Lists each source in a worker thread of its own, so that what a listing meets (a page of 20,000
 * links, a sitemap or robots.txt built to make a parser work forever, a folder of millions of files)
 * can cost that sync only: not the heap nor the event loop of the process, which in embedded mode
 * also answers the API. A thread over its heap limit dies alone; a thread whose event loop stops
 * turning (no heartbeat for `stallMs`) is ended by the watchdog; both fail the sync with a reason.
 */
export class ThreadedLister implements SourceLister {
  constructor(private readonly options: ThreadedListerOptions) {}

  list(
    source: SourceAccess,
    previous: ReadonlyMap<string, PreviousItem>,
    signal: AbortSignal,
  ): Promise<ListedItem[]> {
    const { memoryMb, stallMs } = this.options;
    return new Promise<ListedItem[]>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const worker = new Worker(this.options.entry, {
        workerData: { options: this.options.connectors, source, previous },
        resourceLimits: { maxOldGenerationSizeMb: memoryMb },
      });
      let lastSign = Date.now();
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearInterval(watchdog);
        signal.removeEventListener('abort', onAbort);
        outcome();
        void worker.terminate();
      };
      const watchdog = setInterval(
        () => {
          if (Date.now() - lastSign <= stallMs) return;
          finish(() =>
            reject(
              new SourceFailure(
                'sync_failed',
                `Listing the source stopped making progress for ${Math.round(stallMs / 1000)} s (something it read kept it computing) and was ended.`,
              ),
            ),
          );
        },
        Math.min(1000, stallMs / 2),
      );
      watchdog.unref();
      function onAbort() {
        worker.postMessage({ kind: 'abort' });
        finish(() => reject(signal.reason));
      }
      signal.addEventListener('abort', onAbort, { once: true });
      worker.on('message', (m: ListingMessage) => {
        lastSign = Date.now();
        if (m.kind === 'listed') finish(() => resolve(m.items));
        else if (m.kind === 'failed')
          finish(() => reject(m.code ? new SourceFailure(m.code, m.message) : new Error(m.message)));
      });
      worker.on('error', (err: Error & { code?: string }) =>
        finish(() =>
          reject(
            err.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new SourceFailure(
                  'sync_failed',
                  `Listing the source needed more than ${memoryMb} MB (SOURCE_LISTING_MEMORY_MB) and was ended.`,
                )
              : err,
          ),
        ),
      );
      worker.on('exit', (code) =>
        finish(() => reject(new Error(`the listing thread ended (exit code ${code}) without a listing`))),
      );
    });
  }
}
