// Builds the ESM and CommonJS variants with their declarations. dist/cjs gets its own package.json,
// because the package is "type": "module" and Node must read the .js files there as CommonJS.
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

await rm(path.join(root, 'dist'), { recursive: true, force: true });
for (const config of ['tsconfig.esm.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', config], { cwd: root, stdio: 'inherit' });
}
await mkdir(path.join(root, 'dist/cjs'), { recursive: true });
await writeFile(path.join(root, 'dist/cjs/package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
