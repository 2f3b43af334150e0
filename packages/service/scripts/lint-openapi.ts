// `npm run lint:openapi`: builds the OpenAPI document the server serves (from the routes alone, no
// database) and lints it with Redocly CLI's recommended rules (redocly.yaml at the repository root).
// Any error or warning fails, except the problems .redocly.lint-ignore.yaml names with their reason.
import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { openApiDocument } from '../src/main/openapi.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const doc = await openApiDocument(loadConfig({}), createLogger('silent'));
// The ignore file names problems by the document's path relative to the configuration: both go
// beside the document, in a folder of its own.
const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-openapi-'));
let status = 1;
try {
  await writeFile(path.join(dir, 'openapi.json'), JSON.stringify(doc, null, 2));
  await copyFile(path.join(root, 'redocly.yaml'), path.join(dir, 'redocly.yaml'));
  await copyFile(path.join(root, '.redocly.lint-ignore.yaml'), path.join(dir, '.redocly.lint-ignore.yaml'));
  const result = spawnSync(
    path.join(root, 'node_modules/.bin/redocly'),
    ['lint', 'openapi.json', '--max-problems', '50'],
    {
      cwd: dir,
      encoding: 'utf8',
      // Offline: no usage reports, no update checks.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  const output = `${result.stdout}${result.stderr}`;
  const warnings = /You have (\d+) warnings?/.exec(output);
  status = result.status === 0 && !warnings ? 0 : 1;
  if (status !== 0) process.stderr.write(output);
  else process.stdout.write('✔ OpenAPI document: no errors or warnings (Redocly recommended rules)\n');
} finally {
  await rm(dir, { recursive: true, force: true });
}
process.exit(status);
