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
