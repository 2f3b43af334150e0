import type { Log } from '../../domain/log.js';
import { ModelDownloadError } from './hub-download.js';

export interface ModelSlotOptions<T> {
  /** "embedding model", "reranking model": for messages. */
  what: string;
  /** The model's Hugging Face id. */
  name: string;
  /** What the service does without the model, e.g. "search is lexical-only". */
  meanwhile: string;
  /** The verified copy's folder when it is already there (no network). */
  cached(): Promise<string | undefined>;
  /** Downloads what is missing and resolves to the verified folder. */
  download(signal: AbortSignal): Promise<string>;
  load(dir: string): Promise<T>;
  /** Seconds before another attempt after a failure that may pass (0: only at the next start). */
  retrySeconds: number;
  log: Log;
}

/**
 * A model that may become available after the service has started. A verified copy is loaded at
 * once; otherwise the model is downloaded in the background while the service runs without it, and
 * while the hub cannot be reached another attempt follows every `retrySeconds`. Failures another
 * attempt would only repeat (a checksum that does not match, a file the hub does not have, a model
 * that does not load) stop the attempts until the next start.
 */
const sentence = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export class ModelSlot<T> {
  private current: T | undefined;
  private state = 'not started';
  private timer: NodeJS.Timeout | undefined;
  private readonly abort = new AbortController();
  private attempt: Promise<void> = Promise.resolve();

  constructor(private readonly options: ModelSlotOptions<T>) {}

  get value(): T | undefined {
    return this.current;
  }

  /** Why the model is not in use (shown by /ready), or undefined when it is. */
  get problem(): string | undefined {
    return this.current ? undefined : this.state;
  }

  /** Loads a verified copy now, or starts downloading in the background. Never throws. */
  async start(): Promise<void> {
    const o = this.options;
    const folder = await o.cached().catch(() => undefined);
    if (folder) return this.load(folder);
    o.log.info(
      { model: o.name },
      `${o.what} ${o.name} is not downloaded yet: downloading it in the background; ${o.meanwhile} until it is ready`,
    );
    this.attempt = this.run();
  }

  /** Resolves when the attempt under way, if any, has finished. */
  settled(): Promise<void> {
    return this.attempt;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.abort.abort();
    await this.attempt;
  }

  private async run(): Promise<void> {
    const o = this.options;
    this.state = `downloading ${o.name}`;
    let folder: string;
    try {
      folder = await o.download(this.abort.signal);
    } catch (err) {
      if (this.abort.signal.aborted) return;
      const message = (err as Error).message;
      const passing = err instanceof ModelDownloadError && err.retryable;
      if (passing && o.retrySeconds > 0) {
        this.state = `${message}; next attempt in ${o.retrySeconds} s`;
        o.log.warn(
          { err, model: o.name, retryInSeconds: o.retrySeconds },
          `${o.what} ${o.name} could not be downloaded: ${message}. ${sentence(o.meanwhile)} until it is; next attempt in ${o.retrySeconds} s`,
        );
        this.timer = setTimeout(() => {
          this.attempt = this.run();
        }, o.retrySeconds * 1000);
        this.timer.unref();
      } else {
        this.state = message;
        o.log.error(
          { err, model: o.name },
          passing
            ? `${o.what} ${o.name} could not be downloaded: ${message}. ${sentence(o.meanwhile)} until the next start`
            : `${o.what} ${o.name} cannot be used: ${message}. ${sentence(o.meanwhile)} until the setting is corrected and the service restarted`,
        );
      }
      return;
    }
    await this.load(folder);
  }

  private async load(folder: string): Promise<void> {
    const o = this.options;
    try {
      this.current = await o.load(folder);
      o.log.info({ model: o.name, dir: folder }, `${o.what} ready`);
    } catch (err) {
      this.state = `${o.name} could not be loaded: ${(err as Error).message}`;
      o.log.error({ err, model: o.name }, `${o.what} ${this.state}. ${sentence(o.meanwhile)}`);
    }
  }
}
