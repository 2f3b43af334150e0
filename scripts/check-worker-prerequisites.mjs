#!/usr/bin/env node
// Says plainly whether this machine (or container) can run the DocSlurp worker:
//   --sandbox  runs the parser sandbox (bubblewrap) once, with the worker's own settings
//   --full     checks that the full profile's tools (OCR, PDF rendering, LibreOffice) start inside it
// Without options it checks the sandbox, and the tools too when WORKER_PROFILE=full.
// Exit code 0 when everything checked is available, 1 otherwise.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'packages/service/dist/prerequisites.js');
const args = new Set(process.argv.slice(2));
const unknown = [...args].filter((a) => a !== '--sandbox' && a !== '--full');
if (unknown.length > 0) {
  process.stderr.write(`unknown option ${unknown.join(' ')}; use --sandbox and/or --full\n`);
  process.exit(2);
}
if (!existsSync(bundle)) {
  process.stderr.write(`The service is not built (${bundle} is missing): run npm run build first.\n`);
  process.exit(1);
}
const none = args.size === 0;
const which = {
  sandbox: none || args.has('--sandbox'),
  full: args.has('--full') || (none && process.env.WORKER_PROFILE === 'full'),
};
const { checkWorkerPrerequisites } = await import(pathToFileURL(bundle).href);
let checks;
try {
  checks = await checkWorkerPrerequisites(process.env, which);
} catch (err) {
  process.stderr.write(`cannot check: ${err.message}\n`);
  process.exit(1);
}
for (const c of checks) process.stdout.write(`${c.ok ? 'ok     ' : 'MISSING'} ${c.name}: ${c.detail}\n`);
process.exit(checks.every((c) => c.ok) ? 0 : 1);
