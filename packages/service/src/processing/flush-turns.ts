/**
 * Lets a worker's next batch begin while the last one finishes. A batch's final flush (its last index
 * commit and finishing write, 0.1–0.25 s for a batch of small documents) used to hold its consumer:
 * nothing else started meanwhile, a quarter of bulk ingestion's time (issue 25). With turns, a batch
 * returns once every document is prepared and hands its tail (the final flush and the cleanup) here;
 * the consumer takes the next batch, which claims, starts and parses while the tail runs, but flushes
 * only when a turn is free. A turn is held from a batch's first flush to the end of its tail, and
 * there are as many turns as consumers: no more index commits at once than before, and a consumer has
 * at most one batch preparing beside one finishing.
 *
 * A tail that fails sends its batch's documents again after the job's retry delay, as the failed
 * job would have been retried: those finished meanwhile are skipped by the claim.
 */
export class FlushTurns {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  /** Tails running, with the documents each still holds. */
  private readonly tails = new Map<Promise<void>, ReadonlySet<string>>();

  constructor(turns: number) {
    this.free = turns;
  }

  /** Waits for a free turn; the function returned gives it back (once). */
  async take(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }

  /** Keeps a batch's tail, which holds these documents, until it ends (it must not reject). */
  keep(tail: Promise<void>, documentIds: ReadonlySet<string>): void {
    this.tails.set(tail, documentIds);
    void tail.finally(() => this.tails.delete(tail));
  }

  /**
   * Waits for the tails that hold any of these documents: a document of a finishing batch that has a
   * job again (a reprocess) is not claimed by this worker while it still holds it (the claim takes a
   * worker's own leases).
   */
  async settled(documentIds: readonly string[]): Promise<void> {
    const holding = [...this.tails].filter(([, held]) => documentIds.some((id) => held.has(id)));
    await Promise.allSettled(holding.map(([tail]) => tail));
  }

  /** Waits for every tail handed over so far (the worker's stop). */
  async drain(): Promise<void> {
    while (this.tails.size > 0) await Promise.allSettled([...this.tails.keys()]);
  }
}
