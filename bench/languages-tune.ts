/**
 * Development aid for issue 24 (languages and declines), behind docs/decisions/0014: builds each
 * workspace once in this process with the service's parser, language detection, chunker and index
 * adapter (no HTTP, no database, no sandbox), then asks its questions through the service's answer
 * operation (question language, search, extractive answerer) in seconds. The benchmark of record is
 * bench/languages.ts, through the running service. Only the tune split is used for tuning; `--split
 * holdout` is for the final report and is never iterated on.
 *
 * node bench/run.mjs languages-tune [--suite manuals|offtopic|all] [--manual NAME] [--split tune]
 *   [--rebuild] [--show fails|undeclined|why] [--why detail] [--debug ID] [--signals FILE]
 *   [--option name=value,…] [--min-probability P] [--lexicons en,de,fr,es] [--compounds false]
 *
 * --show why counts each set's quoted misses by what the quote holding the answer lacked
 * (bench/lib/why-missed.ts); --why detail prints those whose quote covers as much as the chosen one.
 * --option overrides the answerer's options (DEFAULT_EXTRACTIVE). --debug ID prints one question's
 * (or follow-up's) borrowed words, index terms, passages and ranked quotes.
 *
 * --compounds false keeps compounds whole (the lexicons without their word lists' exact forms), in
 * an index of its own (cached beside the other).
 * --signals writes every question's relevance signals (answerer run with the decision off) for
 * bench/languages-calibrate.ts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { LanceSearchIndex } from '../packages/service/src/adapters/index/lancedb.js';
import { EldDetector } from '../packages/service/src/adapters/language/eld.js';
import { BuiltLexicons } from '../packages/service/src/adapters/lexicon/word-list.js';
import { answerQuestion } from '../packages/service/src/answers/answer.js';
import { DEFAULT_EXTRACTIVE, rankQuotes } from '../packages/service/src/answers/extractive.js';
import {
  DEFAULT_RELEVANCE,
  NEVER_DECLINE,
  type RelevanceSignals,
  type RelevanceThresholds,
} from '../packages/service/src/answers/relevance.js';
import type { Lexicons } from '../packages/service/src/domain/ports.js';
import { parseBytes } from '../packages/service/src/parsing/parse.js';
import { chunkText } from '../packages/service/src/processing/chunker.js';
import { indexRowsOf } from '../packages/service/src/search/indexing.js';
import { analyseQuestion } from '../packages/service/src/search/question.js';
import { searchWorkspace } from '../packages/service/src/search/search.js';
import { splitterFor } from '../packages/service/src/text/compounds.js';
import { documentLanguage, questionLanguage } from '../packages/service/src/text/detection.js';
import { repoRoot } from './lib/data.js';
import { answerPattern, loadManualSet, manualPages, manualSetFile } from './lib/manual-set.js';
import { manualDir } from './lib/manuals.js';
import { loadOffTopicSet, offTopicFiles } from './lib/offtopic-set.js';
import { parseBenchArgs } from './lib/results.js';
import { formatQuote, type Why, whyMissed } from './lib/why-missed.js';

const argv = process.argv.slice(2);
const { opts } = parseBenchArgs(argv.filter((a) => a !== '--rebuild'));
const rebuild = argv.includes('--rebuild');
const split = opts.split ?? 'tune';
const suite = opts.suite ?? 'manuals';
const MANUALS = [
  'debian-handbook',
  'git-doc',
  'debian-reference-de',
  'debian-reference-en',
  'debian-reference-es',
  'debian-reference-fr',
  'debian-reference-ja',
  'debian-reference-zh-cn',
  'debian-faq-zh-cn',
].filter((m) => existsSync(manualSetFile(m)));
const wholeCompounds = opts.compounds === 'false';
const cacheRoot = path.join(
  repoRoot,
  `node_modules/.cache/docslurp-languages-tune${wholeCompounds ? '-whole-compounds' : ''}`,
);
const detector = new EldDetector();
// The lexicons the service reads (dist/, from the build); --lexicons en,de limits them to those languages.
const built = new BuiltLexicons((code, err) => {
  throw new Error(`no lexicon for ${code} (npm run build writes them): ${String(err)}`);
});
const only = opts.lexicons?.split(',');
const lexicons: Lexicons = {
  forLanguage: async (code) => {
    if (only && !only.includes(code)) return undefined;
    const lexicon = await built.forLanguage(code);
    return lexicon && wholeCompounds
      ? { isWord: (w) => lexicon.isWord(w), isNounOnly: (w) => lexicon.isNounOnly(w) }
      : lexicon;
  },
};
// --min-probability overrides the fitted decision's threshold (the model stays the fitted one).
const relevance: RelevanceThresholds | undefined = opts['min-probability']
  ? { ...DEFAULT_RELEVANCE, minProbability: Number(opts['min-probability']) }
  : undefined;
// --option name=value[,name=value] overrides the answerer's options (DEFAULT_EXTRACTIVE), as in manual-tune.
const answerOptions = { ...DEFAULT_EXTRACTIVE };
for (const o of (opts.option ?? '').split(',').filter(Boolean)) {
  const [k, v] = o.split('=');
  if (!(k! in answerOptions)) throw new Error(`--option ${k}: no such answerer option`);
  (answerOptions as Record<string, number>)[k!] = Number(v);
}
const principal = {
  accountId: 'a',
  scopes: new Set(['search'] as const),
  keyId: undefined,
  userId: undefined,
  role: undefined,
  actor: 'bench',
};

interface Workspace {
  index: LanceSearchIndex;
  languages: string[];
}

/** A workspace of these files, indexed once into the cache (again with --rebuild). */
async function workspace(
  name: string,
  files: () => Promise<{ name: string; file: string; type: string }[]>,
): Promise<Workspace> {
  const dir = path.join(cacheRoot, name);
  const marker = path.join(dir, 'languages.json');
  if (rebuild || !existsSync(marker)) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const index = new LanceSearchIndex(dir);
    const languages = new Set<string>();
    let n = 0;
    for (const f of await files()) {
      const parsed = await parseBytes(readFileSync(f.file), path.basename(f.name), f.type);
      const id = `doc_${n++}`;
      const language = await documentLanguage(parsed.text, 'auto', detector);
      languages.add(language.code);
      const chunks = chunkText(parsed.text, id, language);
      if (chunks.length === 0) continue;
      const split = splitterFor(language, await lexicons.forLanguage(language.code));
      await index.replaceDocument(
        'ws',
        id,
        indexRowsOf({ id, filename: f.name, sourceUrl: null }, parsed, chunks, language, split),
      );
    }
    await index.optimize('ws');
    await index.close();
    writeFileSync(marker, JSON.stringify([...languages]));
    process.stderr.write(`indexed ${name}: ${n} files (${[...languages].join(', ')})\n`);
  }
  return {
    index: new LanceSearchIndex(dir),
    languages: JSON.parse(readFileSync(marker, 'utf8')) as string[],
  };
}

function depsOf(ws: Workspace) {
  return {
    workspaces: {
      searchContext: async () => ({ language: 'auto', languages: ws.languages, visibility: undefined }),
    },
    documents: {
      liveDocuments: async (_w: string, ids: string[]) =>
        new Map(ids.map((id) => [id, { source: null, sourceItem: null, version: 1 }])),
    },
    index: ws.index,
    lexicons,
    languages: detector,
    relevance,
    extractive: answerOptions,
  };
}

interface Asked {
  /** --show why: for a quoted answer that missed, what the quote holding the answer lacked. */
  why?: Why | undefined;
  suite: string;
  set: string;
  id: string;
  q: string;
  split: string;
  /** Whether the workspace answers it. */
  answerable: boolean;
  pattern?: string | undefined;
  recalled?: boolean | undefined;
  contains: boolean;
  declined: boolean;
  questionLanguage: string;
  signals?: RelevanceSignals | undefined;
  answer: string;
  /** With every decline rule off (--signals). */
  open?: { declined: boolean; contains: boolean; absent: boolean } | undefined;
}

const results: Asked[] = [];
async function ask(
  suite: string,
  set: string,
  ws: Workspace,
  q: { id: string; q: string; split: string; history?: string[] },
  pattern?: string,
): Promise<void> {
  const deps = depsOf(ws);
  const history = q.history?.map((content) => ({ role: 'user' as const, content }));
  const a = await answerQuestion(deps, principal, { workspaceId: 'ws', q: q.q, topK: 8, history });
  const declined = a.kind === 'declined';
  // For calibration: the answer the answerer would give with every decline rule off, and its signals.
  const open = opts.signals
    ? await answerQuestion(
        {
          ...deps,
          lexicons: undefined,
          relevance: NEVER_DECLINE,
        },
        principal,
        { workspaceId: 'ws', q: q.q, topK: 8 },
      )
    : undefined;
  // ...and whether the lexicons' absent-word rule alone declines it.
  const absent = opts.signals
    ? await answerQuestion({ ...deps, relevance: NEVER_DECLINE }, principal, {
        workspaceId: 'ws',
        q: q.q,
        topK: 8,
      })
    : undefined;
  let recalled: boolean | undefined;
  if (pattern) {
    const question = history
      ? await analyseQuestion(deps, q.q, await deps.workspaces.searchContext(), true, { history })
      : undefined;
    const top = await searchWorkspace(deps, principal, { workspaceId: 'ws', q: q.q, topK: 5, question });
    recalled = top.some((h) => answerPattern(pattern).test(h.text));
  }
  const contains = !!pattern && !declined && answerPattern(pattern).test(a.answer);
  results.push({
    why:
      pattern && !contains && !declined && opts.show === 'why'
        ? await whyOf(deps, q, pattern, history)
        : undefined,
    suite,
    set,
    id: q.id,
    q: q.q,
    split: q.split,
    answerable: pattern !== undefined,
    pattern,
    recalled,
    contains,
    declined,
    questionLanguage: (await questionLanguage(q.q, await deps.workspaces.searchContext(), detector)).code,
    signals: open?.signals ?? a.signals,
    answer: a.answer,
    open: open && {
      declined: open.kind === 'declined',
      contains: !!pattern && open.kind !== 'declined' && answerPattern(pattern).test(open.answer),
      absent: absent?.kind === 'declined',
    },
  });
}

/** The question as the answerer reads it (with its history) and the passages it gets (`answerQuestion`). */
async function answererPassages(
  deps: ReturnType<typeof depsOf>,
  q: string,
  history: { role: 'user'; content: string }[] | undefined,
) {
  const question = await analyseQuestion(deps, q, await deps.workspaces.searchContext(), false, {
    history,
  });
  const hits = await searchWorkspace(deps, principal, {
    workspaceId: 'ws',
    q,
    topK: 8,
    maxChunksPerDocument: 3,
    question,
  });
  return { question, hits };
}

/** --show why (bench/lib/why-missed.ts); --why detail prints the misses whose quote covers as much. */
async function whyOf(
  deps: ReturnType<typeof depsOf>,
  q: { q: string },
  pattern: string,
  history: { role: 'user'; content: string }[] | undefined,
): Promise<Why> {
  const { question, hits } = await answererPassages(deps, q.q, history);
  const { quotes } = rankQuotes(question, hits, answerOptions);
  const detail =
    opts.why === 'detail' ? (t: string) => process.stdout.write(`${q.q} => ${pattern}\n${t}`) : undefined;
  return whyMissed(hits, quotes, pattern, detail);
}

const inSplit = (q: { split: string }) => split === 'all' || q.split === split;
const manualNames = opts.manual ? [opts.manual] : MANUALS;
const manualWorkspaces = new Map<string, Workspace>();
async function manualWorkspace(name: string): Promise<Workspace> {
  let ws = manualWorkspaces.get(name);
  if (!ws) {
    const set = loadManualSet(name);
    const manual = await manualDir(set.package);
    ws = await workspace(name, async () =>
      manualPages(manual, set).map((p) => ({ ...p, type: 'text/html' })),
    );
    manualWorkspaces.set(name, ws);
  }
  return ws;
}

if (suite === 'manuals' || suite === 'all') {
  for (const name of manualNames) {
    const set = loadManualSet(name);
    const ws = await manualWorkspace(name);
    for (const q of set.answerable.filter(inSplit)) await ask('manuals', name, ws, q, q.answer);
    for (const q of set.unanswerable.filter(inSplit)) await ask('manuals', name, ws, q);
    // Follow-ups (issue 41): asked after their first turn, as bench/languages.ts asks them.
    for (const q of (set.followups ?? []).filter(inSplit))
      await ask('manuals', `${name} follow-ups`, ws, q, q.answer);
  }
}

if (suite === 'offtopic' || suite === 'all') {
  // One manual's questions asked of another manual's workspace: none of them is answered there.
  for (const [from, to] of [
    ['debian-handbook', 'git-doc'],
    ['git-doc', 'debian-handbook'],
  ] as const) {
    const set = loadManualSet(from);
    const ws = await manualWorkspace(to);
    for (const q of [...set.answerable, ...set.unanswerable].filter(inSplit))
      await ask('offtopic', `${from}→${to}`, ws, q);
  }
  const set = loadOffTopicSet();
  for (const w of set.workspaces) {
    const ws = await workspace(`offtopic-${w.id}`, () => offTopicFiles(set, w.id));
    for (const q of set.everyday.filter(inSplit)) await ask('offtopic', `everyday→${w.id}`, ws, q);
    for (const q of set.answerable.filter((x) => x.workspace === w.id).filter(inSplit))
      await ask('offtopic', `answerable ${w.id}`, ws, q, q.answer);
  }
}

if (opts.debug) {
  const name = opts.manual ?? 'debian-handbook';
  const ws = await manualWorkspace(name);
  const set = loadManualSet(name);
  const q: { q: string; history?: string[] } = [
    ...set.answerable,
    ...set.unanswerable,
    ...(set.followups ?? []),
  ].find((x) => x.id === opts.debug)!;
  const deps = depsOf(ws);
  const history = q.history?.map((content) => ({ role: 'user' as const, content }));
  const { question, hits } = await answererPassages(deps, q.q, history);
  if (question.borrowed) process.stdout.write(`borrowed: ${question.borrowed}\n`);
  process.stdout.write(`index terms: ${question.indexTerms(question.language).join(' ')}\n`);
  process.stdout.write(`question language ${question.language.code}\n`);
  for (const [i, h] of hits.entries())
    process.stdout.write(
      `--- [${i + 1}] ${h.citation.filename} ${h.language} score ${h.score.toFixed(3)}\n${h.text.slice(0, 400)}\n`,
    );
  const { type, quotes } = rankQuotes(question, hits, answerOptions);
  process.stdout.write(`type ${type}\n`);
  for (const x of quotes.slice(0, 6)) process.stdout.write(`${formatQuote(x)}\n`);
}

for (const ws of [...manualWorkspaces.values()]) await ws.index.close();

const f = (x: number, n: number) => (n ? (x / n).toFixed(3) : '-');
// The mean length of the answers given (not declined): a longer answer contains more, and reads longer.
const meanChars = (rs: Asked[]) => {
  const given = rs.filter((r) => !r.declined);
  return given.length ? Math.round(given.reduce((n, r) => n + r.answer.length, 0) / given.length) : '-';
};
const bySet = new Map<string, Asked[]>();
for (const r of results) bySet.set(r.set, [...(bySet.get(r.set) ?? []), r]);
for (const [set, rs] of bySet) {
  const a = rs.filter((r) => r.answerable);
  const u = rs.filter((r) => !r.answerable);
  if (opts.show === 'fails')
    for (const r of a.filter((x) => !x.contains))
      process.stdout.write(
        `${r.id} ${r.recalled ? 'recalled' : 'missed'} | ${r.q} => ${r.pattern}\n    ${r.answer.slice(0, 200)}\n`,
      );
  if (opts.show === 'why') {
    const counts = new Map<string, number>();
    for (const r of a) if (r.why) counts.set(r.why, (counts.get(r.why) ?? 0) + 1);
    process.stdout.write(
      `${set} ${split}: quoted answers that missed, by what the quote holding the answer lacked: ${[...counts].map(([k, n]) => `${k} ${n}`).join(', ')}\n`,
    );
  }
  if (opts.show === 'undeclined')
    for (const r of u.filter((x) => !x.declined))
      process.stdout.write(`${r.id} | ${r.q}\n    ${r.answer.slice(0, 200)}\n`);
  process.stdout.write(
    `${set} ${split}: ${a.length ? `recall@5 ${f(a.filter((r) => r.recalled).length, a.length)}, chat contains ${f(a.filter((r) => r.contains).length, a.length)}, false declines ${a.filter((r) => r.declined).length}/${a.length}, answer chars ${meanChars(a)}` : ''}${u.length ? `${a.length ? ', ' : ''}declined ${u.filter((r) => r.declined).length}/${u.length}` : ''}\n`,
  );
}
if (opts.signals) writeFileSync(opts.signals, `${JSON.stringify(results, null, 1)}\n`);
