// Bundles the service's entry points with esbuild (packages stay external): a fast build that
// `npm start` can run every time. Type checking is `npm run typecheck`.
import { chmod, rm } from 'node:fs/promises';
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
    parser: 'src/sandbox/child.ts',
    prerequisites: 'src/sandbox/prerequisites.ts',
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
