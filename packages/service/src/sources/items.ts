import { Transform } from 'node:stream';
import type { FetchedResource, SourceItemBatch, SourceItems } from '../domain/ports.js';
import { DocumentFailure } from '../errors.js';
import { type SourceAccess, SourceFailure, type SourceReader, type SourceType } from './model.js';
import { accessOf, type SyncDeps } from './sync.js';

/** What one item of a source may cost, whatever its type: its bytes and its time. */
export interface ItemLimits {
  /** Most bytes of an item, by type (folder: UPLOAD_MAX_FILE_BYTES; others URL_FETCH_MAX_BYTES). */
  maxBytes: Record<SourceType, number>;
  /** The whole read of one item, from the request to its last byte (URL_FETCH_TIMEOUT_SECONDS). */
  timeoutMs: number;
}

/** A source as its items are read: its type and what its connector works with. */
interface OpenedSource {
  type: SourceType;
  access: SourceAccess;
  /** The connector's reader for the batch, when it has one (see SourceConnector.reader). */
  reader: SourceReader | undefined;
}

/**
 * Reads the items of sources for the pipeline (the document's bytes, fetched when it starts or while
 * the document before it is parsed). The bytes are counted as they pass and the whole read has a
 * time limit, for every type alike: what a source declares (a Content-Length, a file's size) is
 * checked by its connector, but an object sent without a length, a file that grows, or an answer that
 * trickles must stop at the limits too.
 */
export class SourceItemReader implements SourceItems {
  constructor(
    private readonly deps: Pick<SyncDeps, 'syncs' | 'connectors' | 'secrets' | 'folderGrants'> & {
      limits: ItemLimits;
    },
  ) {}

  forBatch(): SourceItemBatch {
    // A batch's documents mostly come from one source: its row is read and its credentials
    // decrypted at its first item, not at every one. A failure is kept too: each item of a deleted
    // source fails alike without asking again.
    const sources = new Map<string, Promise<OpenedSource>>();
    return {
      open: (sourceId, key, signal) => {
        let source = sources.get(sourceId);
        if (!source) {
          source = this.source(sourceId);
          source.catch(() => {});
          sources.set(sourceId, source);
        }
        return source.then((s) => this.read(s, key, signal));
      },
      close: async () => {
        const opened = await Promise.all([...sources.values()].map((s) => s.catch(() => undefined)));
        await Promise.all(opened.map((s) => s?.reader?.close()));
      },
    };
  }

  private async source(sourceId: string): Promise<OpenedSource> {
    const source = await this.deps.syncs.sourceById(sourceId);
    if (!source) throw new DocumentFailure('fetch_failed', 'The source of this document was deleted.');
    try {
      const access = accessOf(source, this.deps.secrets, this.deps.folderGrants);
      return { type: source.type, access, reader: this.deps.connectors[source.type].reader?.(access) };
    } catch (err) {
      if (err instanceof SourceFailure) throw new DocumentFailure('credentials_unavailable', err.message);
      throw err;
    }
  }

  private async read(source: OpenedSource, key: string, signal: AbortSignal): Promise<FetchedResource> {
    const { timeoutMs } = this.deps.limits;
    const max = this.deps.limits.maxBytes[source.type];
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = AbortSignal.any([signal, timeout]);
    const late = () =>
      new DocumentFailure('fetch_timeout', `"${key}" was not read within ${Math.round(timeoutMs / 1000)} s.`);
    let opened: FetchedResource;
    try {
      opened = await (source.reader
        ? source.reader.open(key, combined)
        : this.deps.connectors[source.type].open(source.access, key, combined));
    } catch (err) {
      if (timeout.aborted && !(err instanceof DocumentFailure)) throw late();
      throw err;
    }
    let seen = 0;
    const limited = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        if (seen > max) done(new DocumentFailure('file_too_large', `"${key}" is larger than ${max} bytes.`));
        else done(null, chunk);
      },
      // A body cut by the time limit can end like a whole one: only the signal tells them apart.
      flush(done) {
        done(timeout.aborted ? late() : null);
      },
    });
    const stop = () => opened.body.destroy();
    timeout.addEventListener('abort', () => limited.destroy(late()), { once: true });
    opened.body.on('error', (err) => limited.destroy(timeout.aborted ? late() : err));
    limited.on('close', stop);
    return { ...opened, body: opened.body.pipe(limited) };
  }
}
