/**
 * Milliseconds spent per stage of one request (issue 43, `?timings=true`): each `lap` charges the
 * time since the last one to a stage. Stages not reached are absent. Kept free of HTTP, so search and
 * the answerer record their stages and the route only shows them.
 */
export type StageTimings = { totalMs: number } & { [stageMs: string]: number };

/** Told of each stage as it ends (the tracer makes it a span), with its bounds in epoch milliseconds. */
export interface StageObserver {
  stage(name: string, startMs: number, endMs: number): void;
}

export class Stopwatch {
  private readonly started = performance.now();
  private last = this.started;
  private readonly stages = new Map<string, number>();

  constructor(private readonly observer?: StageObserver | undefined) {}

  /** Charges the time since the last lap (or the start) to `stage`. */
  lap(stage: string): void {
    const now = performance.now();
    this.stages.set(stage, (this.stages.get(stage) ?? 0) + (now - this.last));
    this.observer?.stage(stage, performance.timeOrigin + this.last, performance.timeOrigin + now);
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

/**
 * A stopwatch when someone reads its stages: the caller (`?timings=true`) or the tracer. Without
 * either, none, and the stages cost nothing.
 */
export function stopwatchFor(
  timingsAsked: boolean,
  observer: StageObserver | undefined,
): Stopwatch | undefined {
  return timingsAsked || observer ? new Stopwatch(observer) : undefined;
}

/**
 * A document stage observer (the pipeline's, for the metrics) that also tells `observer` of each
 * stage as it ends; the stage's start is its end less its duration.
 */
export function observingStages<S extends string>(
  observe: (stage: S, seconds: number) => void,
  observer: StageObserver | undefined,
): (stage: S, seconds: number) => void {
  if (!observer) return observe;
  return (stage, seconds) => {
    observe(stage, seconds);
    const end = Date.now();
    observer.stage(stage, end - seconds * 1000, end);
  };
}
