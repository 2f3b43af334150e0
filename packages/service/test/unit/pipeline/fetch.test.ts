// Fetching (processing/pipeline/fetch.ts): URLs and synced items read once, ahead of their turn,
// stored as their originals and recorded.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { artifactKeys } from '../../../src/domain/artifacts.js';
import type { DocumentParser, SourceItems, UrlFetcher } from '../../../src/domain/ports.js';
import { DependencyUnavailable, DocumentFailure } from '../../../src/errors.js';
import { processDocuments } from '../../../src/processing/pipeline/index.js';
import { documentRecord } from '../../support/fakes.js';
import {
  addSyncedItems,
  deps,
  inProcessParser,
  objects,
  recordingParser,
  TEXT,
  usePipelineBench,
  WORKER,
  work,
} from '../../support/pipeline.js';

usePipelineBench();

describe('fetching documents whose bytes are not stored yet', () => {
  it('reads the next fetched document while the current one is parsed, each once', async () => {
    const ids = ['doc_a', 'doc_b', 'doc_c'];
    const fetched: string[] = [];
    const fetchedDuringParse = new Map<string, string[]>();
    const fetcher: UrlFetcher = {
      fetch: async (url) => {
        fetched.push(url);
        return {
          body: Readable.from([Buffer.from(TEXT)]),
          contentType: 'text/markdown',
          finalUrl: url,
          filename: `${url.split('/').pop()}.md`,
        };
      },
    };
    const parser: DocumentParser = {
      parse: async (input, signal) => {
        // One turn of the event loop: a read-ahead begun before this parse has reached the fetcher by
        // then (its headers are looked up in memory); without one nothing else is fetched meanwhile.
        await new Promise((r) => setImmediate(r));
        fetchedDuringParse.set(path.basename(input.path), [...fetched]);
        return inProcessParser.parse(input, signal);
      },
    };
    for (const id of ids) {
      work.addDocument(
        documentRecord({ id, runId: 'run_1', sourceUrl: `https://example.com/${id}`, sha256: null }),
      );
    }
    await processDocuments(deps({ fetcher, parser }), ids, WORKER);

    for (const id of ids) expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 1 });
    expect(fetched).toEqual(ids.map((id) => `https://example.com/${id}`));
    expect(fetchedDuringParse.get('doc_a')).toContain('https://example.com/doc_b');
    expect(fetchedDuringParse.get('doc_b')).toContain('https://example.com/doc_c');
    for (const id of ids) expect(await objects.get(artifactKeys.original(id))).toBeDefined();
  });

  it('records nothing of bytes read ahead for a document the batch did not start, and stops reading them', async () => {
    const aborted: string[] = [];
    const fetcher: UrlFetcher = {
      fetch: async (url, signal) => {
        signal?.addEventListener('abort', () => aborted.push(url));
        // The next document's bytes never end: only an abort ends the read.
        const body = url.endsWith('doc_b') ? new Readable({ read() {} }) : Readable.from([Buffer.from(TEXT)]);
        signal?.addEventListener('abort', () => body.destroy(new Error('aborted')));
        return { body, contentType: 'text/markdown', finalUrl: url, filename: 'page.md' };
      },
    };
    const parser: DocumentParser = {
      parse: async () => {
        throw new DependencyUnavailable(
          'objectStorage',
          'object storage is unavailable: connect ECONNREFUSED',
        );
      },
    };
    for (const id of ['doc_a', 'doc_b']) {
      work.addDocument(
        documentRecord({ id, runId: 'run_1', sourceUrl: `https://example.com/${id}`, sha256: null }),
      );
    }
    await expect(processDocuments(deps({ fetcher, parser }), ['doc_a', 'doc_b'], WORKER)).rejects.toThrow(
      'ECONNREFUSED',
    );
    expect(aborted).toEqual(['https://example.com/doc_b']);
    expect(work.document('doc_b')).toMatchObject({ status: 'queued', attempts: 0, sha256: null });
  });

  it("fetches a group of a synced source's items together, parses them in one request and records them in one write", async () => {
    const items: Record<string, string> = {
      'a.md': '# A\n\nThe a policy covers parking.\n',
      'b.md': '# B\n\nThe b policy covers travel.\n',
      'gone.md': '',
      'c.md': '# C\n\nThe c policy covers meals.\n',
    };
    const opened: string[] = [];
    const sourceItems: SourceItems = {
      forBatch: () => ({
        close: async () => {},
        open: async (_sourceId, key) => {
          opened.push(key);
          if (key === 'gone.md')
            throw new DocumentFailure('fetch_failed', 'The item is gone from its folder.');
          return {
            body: Readable.from([Buffer.from(items[key]!)]),
            contentType: 'text/markdown',
            finalUrl: key,
            filename: key,
          };
        },
      }),
    };
    const ids = ['doc_a', 'doc_b', 'doc_gone', 'doc_c'];
    addSyncedItems(Object.keys(items).map((key, i) => [ids[i]!, key, Buffer.byteLength(items[key]!)]));
    const { parser, groups, alone } = recordingParser();
    const writes: string[][] = [];
    const record = work.recordFetched.bind(work);
    work.recordFetched = (workerId, fetched) => {
      writes.push(fetched.map((f) => f.documentId));
      return record(workerId, fetched);
    };
    await processDocuments(deps({ parser, sourceItems }), ids, WORKER);

    expect(groups).toEqual([['a.md', 'b.md', 'c.md']]);
    expect(writes).toEqual([['doc_a', 'doc_b', 'doc_c']]);
    expect(alone).toEqual([]);
    expect(opened.sort()).toEqual(['a.md', 'b.md', 'c.md', 'gone.md']);
    for (const id of ['doc_a', 'doc_b', 'doc_c']) {
      expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 1, mediaType: 'text/markdown' });
      expect(work.document(id).sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(await objects.getBuffer(artifactKeys.original(id))).toBeDefined();
    }
    expect(work.document('doc_gone')).toMatchObject({ status: 'failed', errorCode: 'fetch_failed' });
    expect((await objects.getBuffer(artifactKeys.text('doc_c')))?.toString()).toContain('meals');
  });

  it('keeps a small synced item in memory for its group, and streams one that grew past a small size', async () => {
    const grown = Buffer.from(`# Grown\n\n${'The grown policy covers parking. '.repeat(6000)}\n`);
    const bodies: Record<string, () => Readable> = {
      'a.md': () => Readable.from([Buffer.from('# A\n\nThe a policy covers travel.\n')]),
      'b.md': () => Readable.from([Buffer.from('# B\n\nThe b policy '), Buffer.from('covers meals.\n')]),
      // Listed small, larger when read (about 200 KB), in pieces of 4 KiB.
      'grown.md': () =>
        Readable.from(
          Array.from({ length: Math.ceil(grown.length / 4096) }, (_, i) =>
            grown.subarray(i * 4096, (i + 1) * 4096),
          ),
        ),
      'broken.md': () =>
        Readable.from(
          (async function* () {
            yield Buffer.from('# Broken\n\n');
            throw new DocumentFailure('fetch_failed', 'The item could not be read to its end.');
          })(),
        ),
    };
    const sourceItems: SourceItems = {
      forBatch: () => ({
        close: async () => {},
        open: async (_sourceId, key) => ({
          body: bodies[key]!(),
          contentType: 'text/markdown',
          finalUrl: key,
          filename: key,
        }),
      }),
    };
    const ids = ['doc_a', 'doc_grown', 'doc_b', 'doc_broken'];
    addSyncedItems(['a.md', 'grown.md', 'b.md', 'broken.md'].map((key, i) => [ids[i]!, key, 100]));
    const { parser, groups, alone } = recordingParser();
    await processDocuments(deps({ parser, sourceItems }), ids, WORKER);

    // The grown item is not sent with the group: it is parsed alone, from its whole stored original.
    expect(groups).toEqual([['a.md', 'b.md']]);
    expect(alone).toEqual(['grown.md']);
    expect((await objects.getBuffer(artifactKeys.original('doc_grown')))?.equals(grown)).toBe(true);
    expect(work.document('doc_grown')).toMatchObject({ status: 'ready', sizeBytes: grown.length });
    expect(work.document('doc_grown').sha256).toBe(createHash('sha256').update(grown).digest('hex'));
    for (const id of ['doc_a', 'doc_b']) expect(work.document(id)).toMatchObject({ status: 'ready' });
    expect((await objects.getBuffer(artifactKeys.text('doc_b')))?.toString()).toContain('covers meals');
    expect(work.document('doc_broken')).toMatchObject({ status: 'failed', errorCode: 'fetch_failed' });
    expect(await objects.getBuffer(artifactKeys.original('doc_broken'))).toBeUndefined();

    // A small item with no group to join is parsed alone, from its stored original.
    bodies['solo.md'] = () => Readable.from([Buffer.from('# Solo\n\nThe solo policy covers gifts.\n')]);
    addSyncedItems([['doc_solo', 'solo.md', 40]]);
    await processDocuments(deps({ parser, sourceItems }), ['doc_solo'], WORKER);
    expect(alone).toEqual(['grown.md', 'solo.md']);
    expect(work.document('doc_solo')).toMatchObject({ status: 'ready', chunkCount: 1 });
    expect((await objects.getBuffer(artifactKeys.text('doc_solo')))?.toString()).toContain('covers gifts');
  });
});
