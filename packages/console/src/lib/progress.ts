/**
 * Each file's share of the bytes of one multipart upload sent so far (0–1 per file). The parts go out
 * in order, so file i is done once the bytes before it and its own have been sent. The framing
 * (boundaries, part headers) is spread evenly over the parts, which keeps every bar within a few
 * hundred bytes of the truth.
 */
export function fileFractions(files: { size: number }[], loaded: number, total: number): number[] {
  const payload = files.reduce((n, f) => n + f.size, 0);
  const framing = files.length > 0 ? Math.max(0, total - payload) / files.length : 0;
  let offset = 0;
  return files.map((f) => {
    const span = f.size + framing;
    const fraction = span === 0 ? 1 : Math.min(1, Math.max(0, (loaded - offset) / span));
    offset += span;
    return fraction;
  });
}

/** How far a document has got through the pipeline, for its bar on the run screen. */
export function stageFraction(status: string, stage: string): number {
  if (status !== 'queued' && status !== 'processing') return 1;
  const order = ['queued', 'parsing', 'chunking', 'indexing', 'done'];
  const i = order.indexOf(stage);
  return i <= 0 ? 0 : i / (order.length - 1);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** A duration for people: seconds under a minute, minutes under an hour, then hours and minutes. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** The run's pace and what is left, as the run screen shows it; empty when there is nothing to say. */
export function paceText(run: {
  status: string;
  documentsPerSecond: number | null;
  etaSeconds: number | null;
}): string {
  if (run.documentsPerSecond === null) return '';
  const rate = run.documentsPerSecond;
  const pace = `${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} documents/s`;
  if (run.status !== 'processing' || run.etaSeconds === null) return pace;
  return `${pace} · about ${formatDuration(run.etaSeconds)} left`;
}
