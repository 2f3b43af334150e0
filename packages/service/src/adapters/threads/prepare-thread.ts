/**
 * The preparation thread's entry (dist/prepare.js): turns parsed texts into index rows
 * (processing/prepare.ts), one request at a time, and posts each result back with its word codes in
 * one transferred buffer. It keeps its caches (word codes, stems, the language detector) warm across
 * documents for as long as the pool keeps it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PrepareRequest } from '../../domain/ports.js';
import { DocumentFailure } from '../../errors.js';
import { prepareText } from '../../processing/prepare.js';
import { EldDetector } from '../language/eld.js';
import { BuiltLexicons } from '../lexicon/word-list.js';
import type { PrepareAnswer, PrepareMessage } from './text-preparer.js';

const port = parentPort!;
const detector = (workerData as { detectLanguages: boolean }).detectLanguages ? new EldDetector() : undefined;
// The word lists compounds are split by (German's: 16 MB, read on the thread's first German document).
// Without the build's list a language's compounds stay whole, as before; the process's own lexicons
// (deps.ts) log the missing list when they first need it.
const lexicons = new BuiltLexicons(() => undefined);

port.on('message', async ({ id, request }: PrepareMessage) => {
  let answer: PrepareAnswer;
  let transfer: ArrayBuffer[] = [];
  try {
    const prepared = await prepareText(request as PrepareRequest, detector, lexicons);
    // One buffer for every row's codes: one transfer, one allocation on the other side.
    const total = prepared.rows.reduce((n, r) => n + (r.wordCodes?.length ?? 0), 0);
    const codes = new Uint32Array(total);
    let at = 0;
    for (const row of prepared.rows) {
      if (!row.wordCodes) continue;
      codes.set(row.wordCodes, at);
      row.wordCodes = codes.subarray(at, at + row.wordCodes.length);
      at += row.wordCodes.length;
    }
    answer = { id, ok: true, prepared };
    transfer = [codes.buffer];
  } catch (err) {
    answer =
      err instanceof DocumentFailure
        ? { id, ok: false, code: err.code, message: err.message }
        : { id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(answer, transfer);
});
// Started: the pool counts a text's time from here, not from the thread's creation.
port.postMessage({ ready: true });
