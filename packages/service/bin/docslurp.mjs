#!/usr/bin/env node
// `npx docslurp` in a checkout. npm links this file at install time, before anything is built (a bin
// pointing into dist/ would not be linked at all), so it builds first when the sources changed (the
// repository's scripts/build.mjs, a no-op otherwise) and then runs the bundled CLI. The build's
// output goes to standard error: standard output is the command's (`npx docslurp openapi > api.json`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const build = path.resolve(here, '..', '..', '..', 'scripts', 'build.mjs');
if (existsSync(build)) {
  const r = spawnSync(process.execPath, [build], { stdio: ['ignore', process.stderr, 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
await import('../dist/cli.js');
