import { describe, expect, it } from 'vitest';
import { ThreadedLister } from '../../src/adapters/sources/threaded-lister.js';
import { SourceFailure } from '../../src/sources/model.js';

/**
 * The thread a source is listed in, ended when what it reads stalls it or swells it, while the
 * process that started it (in embedded mode: the one answering the API) keeps running.
 */
const lister = (fixture: string, options: { memoryMb?: number; stallMs?: number } = {}) =>
  new ThreadedLister({
    entry: new URL(`../support/listing/${fixture}`, import.meta.url),
    connectors: {
      allowHosts: [],
      userAgent: 'test',
      fetch: { timeoutMs: 1000, maxRedirects: 0, maxBytes: 1 },
      maxFileBytes: 1,
    },
    memoryMb: options.memoryMb ?? 64,
    stallMs: options.stallMs ?? 2000,
  });
const source = { id: 'src_x', type: 'website' as const, settings: {}, credentials: undefined, roots: [] };

describe('the listing thread', () => {
  it('is ended by its watchdog when its event loop stops turning, and the caller keeps running', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const outcome = await lister('stall.mjs')
      .list(source, new Map(), new AbortController().signal)
      .catch((e: unknown) => e);
    clearInterval(timer);
    expect(outcome).toBeInstanceOf(SourceFailure);
    expect(outcome).toMatchObject({ code: 'sync_failed' });
    expect((outcome as Error).message).toContain('stopped making progress for 2 s');
    // The stall lasted about two seconds: this thread's timer fired all along.
    expect(ticks).toBeGreaterThan(20);
  });

  it('dies alone when it outgrows its memory limit', async () => {
    const outcome = await lister('swell.mjs', { memoryMb: 64, stallMs: 60_000 })
      .list(source, new Map(), new AbortController().signal)
      .catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(SourceFailure);
    expect((outcome as Error).message).toContain('needed more than 64 MB');
  });

  it('stops when the sync is stopped', async () => {
    const abort = new AbortController();
    const listing = lister('waits.mjs', { stallMs: 60_000 }).list(source, new Map(), abort.signal);
    setTimeout(() => abort.abort(new Error('lease lost')), 300);
    await expect(listing).rejects.toThrow('lease lost');
  });
});
