import { Worker } from 'node:worker_threads';
import type {
  LanguageDetector,
  Lexicons,
  PreparedText,
  PrepareRequest,
  TextPreparer,
} from '../../domain/ports.js';
import { DocumentFailure, type DocumentFailureCode, isDocumentFailureCode } from '../../errors.js';
import { prepareText } from '../../processing/prepare.js';

/** What the pool posts to a thread, and what the thread answers (prepare-thread.ts). */
export interface PrepareMessage {
  id: number;
  request: PrepareRequest;
}
export type PrepareAnswer =
  | { id: number; ok: true; prepared: PreparedText }
  | { id: number; ok: false; code?: DocumentFailureCode; message: string };

export interface ThreadPreparerOptions {
  /** The thread's entry: dist/prepare.js (prepare-thread.ts). */
  entry: string | URL;
  /** Threads at most: one per document the worker prepares at once (WORKER_DOC_CONCURRENCY). */
  threads: number;
  /** A thread's heap limit (CHUNKING_MEMORY_MB): a text that needs more fails alone. */
  memoryMb: number;
  /** Longest a text may take (CHUNKING_TIMEOUT_SECONDS): its thread is ended then. */
  timeoutMs: number;
  /** Tell the language of texts whose workspace leaves it to detection (eld, in the thread). */
  detectLanguages: boolean;
  /** An idle thread is ended after this long, its memory given back; a busy worker keeps its caches warm. */
  idleMs?: number;
  /**
   * Texts shorter than `belowChars` are prepared on the caller's thread, with its detector and word
   * lists; undefined: every text goes to a thread.
   */
  inline?: { belowChars: number; detector: LanguageDetector | undefined; lexicons: Lexicons };
}

/**
 * Texts shorter than this are prepared where the caller is (the worker's event loop). Handing a
 * small text to a thread and its rows back cost more than preparing it: for SciFact's 5,183
 * abstracts (1.4 K characters each) the threads spent about 3.5 s of CPU more than the event loop
 * had, and the loop's own time did not fall, as every hand-off woke a thread on a 2-core machine
 * (bench/results/ingest-journal.md, 2026-12-03). Below this a text holds the loop about 5 ms at
 * worst (Chinese without stops, the slowest per character, 1.3 µs a character; English 0.07), the
 * batch's turn; 18 of SciFact's abstracts are longer and go to a thread.
 */
export const INLINE_BELOW_CHARS = 4 * 1024;

const DEFAULT_IDLE_MS = 60_000;

/**
 * Prepares texts (processing/prepare.ts) in worker threads of their own, so that chunking a large
 * text and making its rows, seconds of CPU, never holds the event loop of the worker, which in
 * embedded mode also answers the API and in a stack answers its liveness probe. Each thread has a
 * heap limit and each text a time budget; a text that breaks either fails its document alone, and
 * its thread is replaced. Threads are kept while there is work, so their caches stay warm. Small
 * texts may be prepared where the caller is (`inline`): a thread costs them more than it saves.
 */
/** How long a new thread may take to load its modules before its text is given up on. */
const THREAD_START_MS = 30_000;

export class ThreadPreparer implements TextPreparer {
  readonly detectsLanguages: boolean;
  private readonly idle: { worker: Worker; timer: NodeJS.Timeout }[] = [];
  private live = 0;
  private readonly waiting: ((worker: Worker) => void)[] = [];
  private sequence = 0;
  private closed = false;
  /** Each thread's start: its modules loaded, it says so (prepare-thread.ts), and a text's time begins. */
  private readonly started = new WeakMap<Worker, Promise<void>>();

  constructor(private readonly options: ThreadPreparerOptions) {
    this.detectsLanguages = options.detectLanguages;
  }

  async prepare(request: PrepareRequest, signal: AbortSignal): Promise<PreparedText> {
    signal.throwIfAborted();
    const inline = this.options.inline;
    if (inline && request.text.length < inline.belowChars)
      return prepareText(request, inline.detector, inline.lexicons);
    const worker = await this.take();
    return this.run(worker, request, signal);
  }

  /** Ends every thread; a text being prepared fails as if its thread had died. */
  async close(): Promise<void> {
    this.closed = true;
    const idle = this.idle.splice(0);
    for (const { timer } of idle) clearTimeout(timer);
    await Promise.all(idle.map(({ worker }) => worker.terminate()));
  }

  private take(): Promise<Worker> {
    const kept = this.idle.pop();
    if (kept) {
      clearTimeout(kept.timer);
      return Promise.resolve(kept.worker);
    }
    if (this.live < this.options.threads) return Promise.resolve(this.spawn());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private spawn(): Worker {
    this.live++;
    const worker = new Worker(this.options.entry, {
      workerData: { detectLanguages: this.options.detectLanguages },
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb },
    });
    // A thread never keeps the process alive: the worker's own handles do while it has work.
    worker.unref();
    this.started.set(
      worker,
      new Promise((resolve) => {
        const onReady = (message: { ready?: boolean }) => {
          if (!message.ready) return;
          worker.off('message', onReady);
          resolve();
        };
        worker.on('message', onReady);
      }),
    );
    return worker;
  }

  /** A thread done with a text: to the next waiting caller, or idle until its timer ends it. */
  private release(worker: Worker): void {
    const next = this.waiting.shift();
    if (next) {
      next(worker);
      return;
    }
    if (this.closed) {
      this.discard(worker);
      return;
    }
    const timer = setTimeout(() => {
      const at = this.idle.findIndex((i) => i.worker === worker);
      if (at >= 0) this.idle.splice(at, 1);
      this.discard(worker);
    }, this.options.idleMs ?? DEFAULT_IDLE_MS);
    timer.unref();
    this.idle.push({ worker, timer });
  }

  /** A thread that died or was ended: a waiting caller gets a new one. */
  private discard(worker: Worker): void {
    void worker.terminate();
    this.live--;
    const next = this.waiting.shift();
    if (next) next(this.spawn());
  }

  private run(worker: Worker, request: PrepareRequest, signal: AbortSignal): Promise<PreparedText> {
    const { memoryMb, timeoutMs } = this.options;
    const id = ++this.sequence;
    return new Promise<PreparedText>((resolve, reject) => {
      let settled = false;
      /** Until the text is sent, an abort leaves the thread as it was: idle, and kept. */
      let posted = false;
      const finish = (keep: boolean, outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (keep) this.release(worker);
        else this.discard(worker);
        outcome();
      };
      // The text's time budget is its own: it begins once the thread has started (loading its modules
      // took over a second on a busy machine, and failed a short note with chunking_timeout).
      let timer: NodeJS.Timeout | undefined;
      const outlasted = () =>
        finish(false, () =>
          reject(
            new DocumentFailure(
              'chunking_timeout',
              `Chunking the text and making its index rows took longer than ${Math.round(timeoutMs / 1000)} s (CHUNKING_TIMEOUT_SECONDS) and was stopped.`,
            ),
          ),
        );
      // The batch lost the document: its thread is ended rather than left computing for nobody.
      const onAbort = () => finish(!posted, () => reject(signal.reason));
      const onMessage = (answer: PrepareAnswer) => {
        if (answer.id !== id) return;
        if (answer.ok) {
          finish(true, () => resolve(answer.prepared));
          return;
        }
        finish(true, () =>
          reject(
            answer.code && isDocumentFailureCode(answer.code)
              ? new DocumentFailure(answer.code, answer.message)
              : new Error(`preparing the text failed: ${answer.message}`),
          ),
        );
      };
      const onError = (err: Error & { code?: string }) =>
        finish(false, () =>
          reject(
            err.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new DocumentFailure(
                  'chunking_out_of_memory',
                  `Chunking the text and making its index rows needed more than ${memoryMb} MB (CHUNKING_MEMORY_MB) and was stopped.`,
                )
              : err,
          ),
        );
      const onExit = (code: number) =>
        finish(false, () =>
          reject(new Error(`the preparation thread ended (exit code ${code}) without an answer`)),
        );
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      // A thread that does not start is no fault of the text's: a plain error, which is retried.
      const startMs = Math.max(timeoutMs, THREAD_START_MS);
      timer = setTimeout(
        () =>
          finish(false, () => reject(new Error(`the preparation thread did not start within ${startMs} ms`))),
        startMs,
      );
      void this.started.get(worker)?.then(() => {
        if (settled) return;
        clearTimeout(timer);
        timer = setTimeout(outlasted, timeoutMs);
        worker.postMessage({ id, request } satisfies PrepareMessage);
        posted = true;
      });
    });
  }
}
