/**
 * The index's encoding thread (dist/encode.js): turns a large write's rows into the Arrow IPC bytes
 * LanceDB's merge-insert reads (records.ts), and posts them back transferred, not copied.
 */
import { parentPort } from 'node:worker_threads';
import { encodeRows, schemaFromBytes } from './records.js';
import type { EncodeAnswer, EncodeMessage } from './row-encoder.js';

const port = parentPort!;
port.on('message', ({ id, rows, format, schema }: EncodeMessage) => {
  let answer: EncodeAnswer;
  let transfer: ArrayBuffer[] = [];
  try {
    const bytes = encodeRows(rows, format, schemaFromBytes(schema));
    answer = { id, ok: true, bytes };
    transfer = [bytes.buffer as ArrayBuffer];
  } catch (err) {
    answer = { id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(answer, transfer);
});
