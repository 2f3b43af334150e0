/**
 * Milliseconds spent per stage of one request (issue 43, `?timings=true`): each `lap` charges the
 * time since the last one to a stage. Stages not reached are absent. Kept free of HTTP, so search and
 * the answerer record their stages and the route only shows them.
 */
export type StageTimings = { totalMs: number } & { [stageMs: string]: number };

export class Stopwatch {
  private readonly started = performance.now();
  private last = this.started;
  private readonly stages = new Map<string, number>();

  /** Charges the time since the last lap (or the start) to `stage`. */
  lap(stage: string): void {
    const now = performance.now();
    this.stages.set(stage, (this.stages.get(stage) ?? 0) + (now - this.last));
    this.last = now;
  }

  /** Each stage's milliseconds (to 0.01 ms), as `<stage>Ms`, and the total since the start. */
  read(): StageTimings {
    const round = (ms: number) => Math.round(ms * 100) / 100;
    return {
      ...Object.fromEntries([...this.stages].map(([stage, ms]) => [`${stage}Ms`, round(ms)])),
      totalMs: round(performance.now() - this.started),
    };
  }
}
