/** Letters without their accents: "Gospić" and "Gospic" are the same name to someone typing it. */
export function foldAccents(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '');
}

/**
 * Whether `a` becomes `b` with at most `max` single-letter edits (insertion, deletion, substitution,
 * or two neighbours swapped: "throguh" → "through" is one edit). Bounded: it gives up as soon as a row
 * of the table exceeds `max`, so checking a word against a passage's vocabulary stays cheap.
 */
export function withinEdits(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, prevPrev[j - 2]! + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return false;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length]! <= max;
}
