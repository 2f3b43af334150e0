import type { FetchedResource, UrlFetcher } from '../domain/ports.js';

/** The sync's request budget ran out: the crawl ends with what it has. */
export class BudgetExhausted extends Error {}

/**
 * One sync's requests: counted against the sync's and each host's budget, and paced per host
 * (`requestDelayMs`, or the host's robots.txt Crawl-delay when longer).
 */
export class RequestBudget {
  private used = 0;
  private readonly hosts = new Map<string, { next: number; delayMs: number }>();

  constructor(
    private readonly fetcher: UrlFetcher,
    private readonly limits: { maxRequests: number; maxHosts: number; delayMs: number },
    private readonly signal: AbortSignal,
  ) {}

  get exhausted(): boolean {
    return this.used >= this.limits.maxRequests;
  }

  /** Whether a request to the URL's host may be made (a new host counts against maxHosts). */
  reaches(url: URL): boolean {
    return this.hosts.has(url.host) || this.hosts.size < this.limits.maxHosts;
  }

  /** Sets the host's pause from its robots.txt Crawl-delay, when longer than the source's own. */
  slowDown(host: string, seconds: number | undefined): void {
    const h = this.hosts.get(host);
    if (h && seconds !== undefined) h.delayMs = Math.max(h.delayMs, seconds * 1000);
  }

  async fetch(url: string, headers: Record<string, string> = {}): Promise<FetchedResource> {
    if (this.used >= this.limits.maxRequests) throw new BudgetExhausted();
    const host = new URL(url).host;
    let h = this.hosts.get(host);
    if (!h) {
      if (this.hosts.size >= this.limits.maxHosts) throw new BudgetExhausted();
      h = { next: 0, delayMs: this.limits.delayMs };
      this.hosts.set(host, h);
    }
    const wait = h.next - Date.now();
    if (wait > 0) await abortableDelay(wait, this.signal);
    this.used++;
    try {
      return await this.fetcher.fetch(url, this.signal, headers);
    } finally {
      h.next = Date.now() + h.delayMs;
    }
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    function stop() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', stop, { once: true });
  });
}
