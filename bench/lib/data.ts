import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root: the nearest folder above this module with bench/ and packages/ (also when bundled). */
export const repoRoot = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!(existsSync(path.join(dir, 'bench')) && existsSync(path.join(dir, 'packages')))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('repository root not found above the benchmark module');
    dir = up;
  }
  return dir;
})();

/**
 * Where the public evaluation data lives: BENCH_DATA_DIR, else `shared/data` beside the repository
 * (where the machines and CI keep it). It is read in place, never copied into the repository.
 */
export function dataDir(env: Record<string, string | undefined> = process.env): string {
  const dir = env.BENCH_DATA_DIR ?? path.resolve(repoRoot, '../shared/data');
  if (!existsSync(dir)) {
    throw new Error(`evaluation data not found at ${dir}: set BENCH_DATA_DIR to the shared data folder`);
  }
  return dir;
}

export interface SciFactDoc {
  id: string;
  title: string;
  text: string;
}

/** Relevance judgments of one query: document id → grade (> 0 is relevant). */
export type Judgments = ReadonlyMap<string, number>;

export interface SciFactQuery {
  id: string;
  text: string;
  judged: Judgments;
}

function jsonLines<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

/** BEIR SciFact: the corpus and the queries of one split that have judgments. */
export function loadSciFact(dir: string, split: 'test' | 'train' = 'test') {
  const corpus = jsonLines<{ _id: string; title: string; text: string }>(
    path.join(dir, 'scifact/corpus.jsonl'),
  ).map((d) => ({ id: d._id, title: d.title, text: d.text }));
  const judgments = new Map<string, Map<string, number>>();
  const lines = readFileSync(path.join(dir, `scifact/qrels/${split}.tsv`), 'utf8')
    .split('\n')
    .slice(1);
  for (const line of lines) {
    const [qid, docId, grade] = line.trim().split('\t');
    if (!qid || !docId) continue;
    const m = judgments.get(qid) ?? new Map<string, number>();
    m.set(docId, Number(grade));
    judgments.set(qid, m);
  }
  const queries: SciFactQuery[] = jsonLines<{ _id: string; text: string }>(
    path.join(dir, 'scifact/queries.jsonl'),
  )
    .filter((q) => judgments.has(q._id))
    .map((q) => ({ id: q._id, text: q.text, judged: judgments.get(q._id)! }));
  return { corpus, queries };
}

/** A SciFact abstract as the Markdown file we upload: the title as a heading, then the abstract. */
export function sciFactFile(doc: SciFactDoc): { name: string; content: string; type: string } {
  return { name: `${doc.id}.md`, content: `# ${doc.title}\n\n${doc.text}\n`, type: 'text/markdown' };
}

/**
 * Which half of a question set a figure comes from: settings are chosen on `tune` questions only, and
 * what is reported (benchmarks of record, the quality floors in tests) is measured on `holdout`.
 */
export type Split = 'tune' | 'holdout';

export interface SquadParagraph {
  id: string;
  article: string;
  context: string;
  split: Split;
}

export interface SquadQuestion {
  id: string;
  question: string;
  answers: string[];
  paragraphId: string;
  split: Split;
}

/**
 * SQuAD's split is by article: every fourth article (12 of 48) is for tuning, the rest is held out.
 * Questions of one article share its words and phrasing, so a split by question would let tuning see
 * the held-out questions' paragraphs.
 */
const squadSplit = (articleIndex: number): Split => (articleIndex % 4 === 0 ? 'tune' : 'holdout');

/**
 * SQuAD v1.1 dev: every paragraph (id `<article index>-<paragraph index>`) and every question, each
 * with its split.
 */
export function loadSquad(dir: string) {
  const raw = JSON.parse(readFileSync(path.join(dir, 'squad-v1.1-dev/dev-v1.1.json'), 'utf8')) as {
    data: {
      title: string;
      paragraphs: { context: string; qas: { id: string; question: string; answers: { text: string }[] }[] }[];
    }[];
  };
  const paragraphs: SquadParagraph[] = [];
  const questions: SquadQuestion[] = [];
  raw.data.forEach((article, a) => {
    const split = squadSplit(a);
    article.paragraphs.forEach((p, i) => {
      const id = `${a}-${i}`;
      paragraphs.push({ id, article: article.title.replaceAll('_', ' '), context: p.context, split });
      for (const qa of p.qas) {
        questions.push({
          id: qa.id,
          question: qa.question,
          answers: [...new Set(qa.answers.map((x) => x.text))],
          paragraphId: id,
          split,
        });
      }
    });
  });
  return { paragraphs, questions };
}

/** A deterministic pseudo-random generator (mulberry32), so samples are the same on every run. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` items drawn without replacement by a seeded shuffle; the same seed gives the same sample. */
export function sample<T>(items: readonly T[], n: number, seed: number): T[] {
  const rnd = seededRandom(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

/** A SQuAD paragraph as an uploaded Markdown file under its article's title, as it sits in Wikipedia. */
export function squadFile(p: SquadParagraph): { name: string; content: string; type: string } {
  return { name: `squad-${p.id}.md`, content: `# ${p.article}\n\n${p.context}\n`, type: 'text/markdown' };
}
