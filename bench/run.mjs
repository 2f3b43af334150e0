// Runs a TypeScript benchmark program: bundles it with esbuild (packages stay external) into the
// service package's module cache, so that the service's dependencies resolve, and imports it.
// Usage: node bench/run.mjs retrieval [options]
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const [name, ...rest] = process.argv.slice(2);
if (!name) throw new Error('usage: node bench/run.mjs <retrieval|answers> [options]');
const outfile = path.join(here, '../packages/service/node_modules/.cache/docslurp-bench', `${name}.mjs`);
await build({
  entryPoints: [path.join(here, `${name}.ts`)],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
process.argv = [process.argv[0], outfile, ...rest];
await import(pathToFileURL(outfile).href);
