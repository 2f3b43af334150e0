import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BuiltLexicons } from '../../src/adapters/lexicon/word-list.js';
import { ThreadPreparer } from '../../src/adapters/threads/text-preparer.js';
import type { PrepareRequest } from '../../src/domain/ports.js';
import { DocumentFailure } from '../../src/errors.js';
import { inProcessPreparer } from '../../src/processing/prepare.js';

/**
 * The threads texts are chunked and made into index rows in (the worker's TextPreparer): the same
 * rows as on the caller's thread, the caller's event loop free meanwhile, and a text that breaks
 * the time or memory budget failing alone.
 */
const entry = path.resolve(import.meta.dirname, '../../dist/prepare.js');
const pools: ThreadPreparer[] = [];
function pool(options: { memoryMb?: number; timeoutMs?: number; threads?: number; entry?: string } = {}) {
  const p = new ThreadPreparer({
    entry: options.entry ?? entry,
    threads: options.threads ?? 1,
    memoryMb: options.memoryMb ?? 1024,
    timeoutMs: options.timeoutMs ?? 60_000,
    detectLanguages: true,
  });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const request = (text: string, id = 'doc_a'): PrepareRequest => ({
  document: { id, filename: `${id}.md`, sourceUrl: null },
  mediaType: 'text/markdown',
  title: null,
  text,
  workspaceLanguage: 'auto',
});
const never = () => new AbortController().signal;
/** A run of Chinese without a full stop: the slowest text per byte to make rows of (two-character words). */
const chinese = (mb: number) => '中文文本测试没有换行的很长的一行'.repeat((mb * 2 ** 20) / 16);

describe('the text preparation threads', () => {
  it('make the same rows as the caller’s thread would, languages told in the thread', async () => {
    const text =
      '# Urlaub\n\nMitarbeiter erhalten dreißig Tage bezahlten Urlaub im Jahr. Der Antrag geht an die Personalabteilung.\n\n## Reisen\n\nDienstreisen werden vorher genehmigt.\n';
    const threaded = await pool().prepare(request(text), never());
    // The thread splits German compounds by the build's word list ("Personal·abteilung"): so does this.
    const inline = await inProcessPreparer(
      { detect: async () => ({ language: 'de', reliable: true }) },
      new BuiltLexicons(() => undefined),
    ).prepare(request(text), never());
    expect(inline.rows[0]!.terms).toContain('abteil');
    expect(threaded.language).toBe('de');
    expect(threaded.rows.map((r) => ({ ...r, wordCodes: [...(r.wordCodes ?? [])] }))).toEqual(
      inline.rows.map((r) => ({ ...r, wordCodes: [...(r.wordCodes ?? [])] })),
    );
  });

  it('keep the caller’s event loop turning while a large text is prepared', async () => {
    let last = performance.now();
    let longestGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 10);
    const prepared = await pool().prepare(request(chinese(4)), never());
    clearInterval(timer);
    expect(prepared.rows.length).toBeGreaterThan(1000);
    // On the caller's thread the same text holds it for seconds (about 0.5 s a megabyte here).
    expect(longestGap).toBeLessThan(500);
  });

  it('fail a text that outlasts its time budget with chunking_timeout, and prepare the next one', async () => {
    const preparer = pool({ timeoutMs: 1000 });
    const outcome = await preparer.prepare(request(chinese(16)), never()).catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(DocumentFailure);
    expect(outcome).toMatchObject({ code: 'chunking_timeout' });
    expect((outcome as Error).message).toContain('CHUNKING_TIMEOUT_SECONDS');
    const next = await preparer.prepare(request('A short note about parking.', 'doc_b'), never());
    expect(next.rows).toHaveLength(1);
  });

  it('count a text’s time from its thread’s start, not its creation', async () => {
    // A thread that takes longer to start than the text's whole budget (a busy machine loading its
    // modules): the text is prepared, not failed with chunking_timeout.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'slow-thread-'));
    const slow = path.join(dir, 'slow-start.mjs');
    await writeFile(
      slow,
      `await new Promise((r) => setTimeout(r, 1500));\nawait import(${JSON.stringify(pathToFileURL(entry).href)});\n`,
    );
    try {
      const prepared = await pool({ timeoutMs: 1000, entry: slow }).prepare(
        request('A short note about parking.'),
        never(),
      );
      expect(prepared.rows).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fail a text that outgrows the thread’s heap with chunking_out_of_memory, and prepare the next one', async () => {
    const preparer = pool({ memoryMb: 64 });
    const outcome = await preparer
      .prepare(request('word '.repeat(12 * 2 ** 20)), never())
      .catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(DocumentFailure);
    expect(outcome).toMatchObject({ code: 'chunking_out_of_memory' });
    const next = await preparer.prepare(request('A short note about parking.', 'doc_b'), never());
    expect(next.rows).toHaveLength(1);
  });

  it('fail a text without words with empty_document', async () => {
    const outcome = await pool()
      .prepare(request('<!-- page 1 -->\n\n   \n'), never())
      .catch((e: unknown) => e);
    expect(outcome).toMatchObject({ code: 'empty_document' });
  });

  it('end a thread whose document was lost, and reject with the abort’s reason', async () => {
    const preparer = pool();
    const abort = new AbortController();
    const preparing = preparer.prepare(request(chinese(16)), abort.signal);
    setTimeout(() => abort.abort(new Error('lease lost')), 100);
    const started = performance.now();
    await expect(preparing).rejects.toThrow('lease lost');
    expect(performance.now() - started).toBeLessThan(2000);
    const next = await preparer.prepare(request('A short note about parking.', 'doc_b'), never());
    expect(next.rows).toHaveLength(1);
  });

  it('prepare as many texts at once as it has threads, the others waiting their turn', async () => {
    const preparer = pool({ threads: 2 });
    const texts = Array.from({ length: 6 }, (_, i) =>
      request(`Note ${i} about the parking rules.`, `doc_${i}`),
    );
    const prepared = await Promise.all(texts.map((t) => preparer.prepare(t, never())));
    expect(prepared.map((p) => p.rows[0]!.documentId)).toEqual(texts.map((t) => t.document.id));
  });

  it('prepare texts below the inline size on the caller’s thread, the same rows, and longer ones in a thread', async () => {
    const lexicons = new BuiltLexicons(() => undefined);
    const german = { detect: async () => ({ language: 'de', reliable: true }) };
    // A thread that cannot start: whatever reaches it fails, so a text that succeeds ran inline.
    const missing = path.resolve(import.meta.dirname, 'no-such-thread.js');
    const inline = new ThreadPreparer({
      entry: missing,
      threads: 1,
      memoryMb: 1024,
      timeoutMs: 60_000,
      detectLanguages: true,
      inline: { belowChars: 200, detector: german, lexicons },
    });
    pools.push(inline);
    const short = 'Mitarbeiter erhalten dreißig Tage Urlaub. Der Antrag geht an die Personalabteilung.';
    const here = await inline.prepare(request(short), never());
    const threaded = await pool().prepare(request(short), never());
    expect(here.language).toBe('de');
    expect(here.rows.map((r) => ({ ...r, wordCodes: [...(r.wordCodes ?? [])] }))).toEqual(
      threaded.rows.map((r) => ({ ...r, wordCodes: [...(r.wordCodes ?? [])] })),
    );
    await expect(inline.prepare(request('x'.repeat(199)), never())).resolves.toBeDefined();
    await expect(inline.prepare(request('x'.repeat(200)), never())).rejects.toThrow();
  });
});
