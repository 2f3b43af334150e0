import type { Unit } from './units.js';

/**
 * What a table row scores beside the sentences it competes with (extractive.ts, issue 41): the words
 * of its header counted once for its table, credit for answering a question that names one of its
 * columns, and for holding the values the question gives their columns.
 */

/**
 * How many of the sentences hold a term, a table's header counted once for all its rows: a word that
 * names a column ("Flag", "Column") is said once by the header, not by each row under it, and counted
 * per row it looked as common as "the" in a long table, so a row lost the credit for the very column
 * the question asks about.
 */
export function documentFrequency(term: string, units: readonly Unit[]): number {
  let df = 0;
  const headers = new Set<ReadonlySet<string>>();
  for (const u of units) {
    if (!u.terms.has(term)) continue;
    if (u.header?.has(term) && !u.cells?.has(term)) {
      if (!headers.has(u.header)) df++;
      headers.add(u.header);
    } else df++;
  }
  return df;
}

/** Between a column's name and the value a question gives it: "X=2", "X to 1", "X is 3", "X of 4". */
const BINDING = /^\s*(?:[=:]|\b(?:to|is|of|at|set to)\b)?\s*/;

/**
 * Whether the question gives a column the value a row holds under it ("compiled with
 * SQLITE_TEMP_STORE=2 and PRAGMA temp_store set to 1"): the rows of a table of settings differ only in
 * which value stands under which name, and the words alone tie them. Plain string search: the names
 * and values are the document's, not patterns.
 */
function givesColumn(question: string, column: string, value: string): boolean {
  const q = question.toLowerCase();
  const name = column.toLowerCase();
  const v = value.toLowerCase();
  if (name.length < 2 || v.length === 0 || v.length > 24) return false;
  for (let at = q.indexOf(name); at >= 0; at = q.indexOf(name, at + 1)) {
    const rest = q.slice(at + name.length, at + name.length + 12 + v.length);
    const gap = BINDING.exec(rest)?.[0].length ?? 0;
    if (!rest.startsWith(v, gap)) continue;
    const after = rest[gap + v.length];
    if (after === undefined || !/[\p{L}\p{N}_]/u.test(after)) return true;
  }
  return false;
}

/**
 * A row's score beyond its words: `rowWeight` when the question's words fall both in its header (it
 * names the column: "Which printf flag…") and in its cells, and `boundCellWeight` for each cell whose
 * value the question gives its column. Zero for anything that is not a whole row.
 */
export function rowScore(
  unit: Unit,
  question: string,
  terms: readonly string[],
  weights: { rowWeight: number; boundCellWeight: number },
): number {
  if (unit.header === undefined) return 0;
  const answers = terms.some((t) => unit.header!.has(t)) && terms.some((t) => unit.cells!.has(t));
  const bound = unit.columns?.filter(([c, v]) => givesColumn(question, c, v)).length ?? 0;
  return (answers ? weights.rowWeight : 0) + weights.boundCellWeight * bound;
}
