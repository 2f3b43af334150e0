#!/usr/bin/env node
// What `npm start`, `npm test` and `npx docslurp` build with: the workspaces' builds, skipped when
// nothing they read has changed since the last build that succeeded here. A restart of `npm start`
// then waits for the service only, not for esbuild, tsc and vite (README: "The two commands").
//
//   node scripts/build.mjs           build if anything changed (or an output is missing)
//   node scripts/build.mjs --force   build in any case (what `npm run build` does)
//
// What a build reads: every file of the three packages except their tests and outputs, the lock
// file (dependencies) and the shared TypeScript settings. They are hashed by content, so a checkout
// that only touches timestamps does not rebuild, and an edit always does.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const packages = ['service', 'sdk', 'console'].map((p) => path.join(root, 'packages', p));
const skipped = new Set(['node_modules', 'dist', 'test']);
const outputs = [
  'packages/service/dist/cli.js',
  'packages/service/dist/lexicon.txt',
  'packages/service/dist/words-de.txt',
  'packages/sdk/dist/esm/index.js',
  'packages/sdk/dist/cjs/index.js',
  'packages/console/dist/index.html',
].map((f) => path.join(root, f));
const stampFile = path.join(root, 'node_modules', '.cache', 'docslurp', 'build-inputs.sha256');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => !skipped.has(e.name) && !e.name.endsWith('.tsbuildinfo'))
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

function inputsHash() {
  const hash = createHash('sha256').update(process.version);
  for (const file of [
    ...packages.flatMap(files),
    path.join(root, 'package-lock.json'),
    path.join(root, 'tsconfig.base.json'),
  ]) {
    hash.update(`${path.relative(root, file)}\0`);
    hash.update(readFileSync(file));
  }
  return hash.digest('hex');
}

const force = process.argv.includes('--force');
const before = inputsHash();
const stamp = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : '';
if (!force && stamp === before && outputs.every((f) => existsSync(f))) process.exit(0);

// A build that fails half way leaves no stamp: the next start builds again.
rmSync(stampFile, { force: true });
const npm = process.env.npm_execpath;
const build = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build', '--workspaces', '--if-present', '--silent'], {
      cwd: root,
      stdio: 'inherit',
    })
  : spawnSync('npm', ['run', 'build', '--workspaces', '--if-present', '--silent'], {
      cwd: root,
      stdio: 'inherit',
    });
if (build.status !== 0) process.exit(build.status ?? 1);
// Files edited while the build ran are not in its output: leave the stamp off, so the next start builds.
if (inputsHash() === before) {
  mkdirSync(path.dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, `${before}\n`);
}
