import { Worker } from 'node:worker_threads';
import type { Schema } from 'apache-arrow';
import type { IndexRow } from '../../domain/ports.js';
import { encodeRows, schemaToBytes, type TableFormat } from './records.js';

/** What the encoder posts to its thread, and what the thread answers (encode-thread.ts). */
export interface EncodeMessage {
  id: number;
  rows: IndexRow[];
  format: TableFormat;
  schema: Uint8Array;
}
export type EncodeAnswer =
  | { id: number; ok: true; bytes: Uint8Array }
  | { id: number; ok: false; message: string };

/**
 * Writes with more text than this are encoded in the thread. Below it, encoding on the event loop
 * costs less than the copy to the thread (a batch of small documents: milliseconds); above it, a
 * large document's rows held that loop for 1.5 s per 30 MB (LanceDB's record conversion and file
 * writer, issue 44).
 */
export const THREAD_ABOVE_CHARS = 1024 * 1024;

/**
 * Encodes rows for a LanceDB write: small writes where they are, large ones in one thread of its own
 * (started on first use, kept while writes come, ended when idle), one write after another.
 */
export class RowEncoder {
  private worker: Worker | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private sequence = 0;
  private readonly pending = new Map<
    number,
    { resolve: (b: Uint8Array) => void; reject: (e: Error) => void }
  >();

  constructor(
    /** The thread's entry (dist/encode.js); undefined: every write is encoded where it is. */
    private readonly entry: string | URL | undefined,
    private readonly idleMs = 60_000,
  ) {}

  /** Whether rows this large are encoded in the thread. */
  threads(rows: IndexRow[]): boolean {
    if (this.entry === undefined) return false;
    let chars = 0;
    for (const r of rows) chars += r.text.length + (r.terms?.length ?? 0);
    return chars > THREAD_ABOVE_CHARS;
  }

  async encode(rows: IndexRow[], format: TableFormat, schema: Schema): Promise<Uint8Array> {
    if (!this.threads(rows)) return encodeRows(rows, format, schema);
    const worker = this.thread();
    const id = ++this.sequence;
    return new Promise<Uint8Array>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, rows, format, schema: schemaToBytes(schema) } satisfies EncodeMessage);
    }).finally(() => this.idleLater());
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private thread(): Worker {
    clearTimeout(this.idleTimer);
    if (this.worker) return this.worker;
    const worker = new Worker(this.entry!);
    worker.unref();
    const failAll = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('message', (answer: EncodeAnswer) => {
      const waiting = this.pending.get(answer.id);
      if (!waiting) return;
      this.pending.delete(answer.id);
      if (answer.ok) waiting.resolve(answer.bytes);
      else waiting.reject(new Error(`encoding index rows failed: ${answer.message}`));
    });
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the index's encoding thread ended (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private idleLater(): void {
    if (this.pending.size > 0 || !this.worker) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close(), this.idleMs);
    this.idleTimer.unref();
  }
}
