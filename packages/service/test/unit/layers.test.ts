import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layer rules of .dependency-cruiser.cjs (what `npm run lint:layers` checks) hold: each fixture
 * below breaks one rule on purpose, in a copy of the repository's layout, and the real configuration
 * must name that rule for it. A rule that never fires (a path typo, an exclude that hides the
 * import, as `dist/` once hid every package whose entry point lives there) fails here.
 */
const repo = path.resolve(import.meta.dirname, '../../../..');
const run = promisify(execFile);

/** file → [its source, the rule it must break (undefined: it must break none)]. */
const fixtures: Record<string, [string, string | undefined]> = {
  'packages/service/src/adapters/index/store.ts': ['export const store = 1;\n', undefined],
  'packages/service/src/http/routes/x.ts': ['export const route = 1;\n', undefined],
  'packages/service/src/main/cli.ts': ['export const cli = 1;\n', undefined],
  'packages/service/src/deps.ts': ['export const deps = 1;\n', undefined],
  'packages/service/src/domain/types.ts': ['export const types = 1;\n', undefined],
  'packages/service/src/search/lance.ts': [
    "import { connect } from '@lancedb/lancedb';\nexport const c = connect;\n",
    'domain-not-to-infrastructure',
  ],
  'packages/service/src/answers/onnx.ts': [
    "import { InferenceSession } from 'onnxruntime-node';\nexport const s = InferenceSession;\n",
    'domain-not-to-infrastructure',
  ],
  'packages/service/src/documents/mcp.ts': [
    "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const m = McpServer;\n",
    'domain-not-to-infrastructure',
  ],
  'packages/service/src/runs/tools.ts': [
    "import { tools } from '../mcp/tools.js';\nexport const t = tools;\n",
    'domain-not-to-outer-layers',
  ],
  'packages/service/src/mcp/tools.ts': [
    "import { store } from '../adapters/index/store.js';\nexport const tools = store;\n",
    'mcp-not-to-adapters',
  ],
  'packages/service/src/mcp/routes.ts': [
    "import { route } from '../http/routes/x.js';\nexport const r = route;\n",
    'mcp-not-to-adapters',
  ],
  'packages/service/src/ops/readiness.ts': [
    "import { deps } from '../deps.js';\nexport const r = deps;\n",
    'ops-not-to-faces',
  ],
  'packages/service/src/ops/metrics.ts': [
    "import { route } from '../http/routes/x.js';\nexport const m = route;\n",
    'ops-not-to-faces',
  ],
  'packages/service/src/config/models.ts': [
    "import { store } from '../adapters/index/store.js';\nexport const models = store;\n",
    'config-stands-below',
  ],
  'packages/service/src/config.ts': [
    "import { cli } from './main/cli.js';\nexport const config = cli;\n",
    'config-stands-below',
  ],
  'packages/service/src/config/sections.ts': [
    "import { types } from '../domain/types.js';\nexport const sections = types;\n",
    undefined,
  ],
  'packages/service/src/sources/sync.ts': ['export const sync = 1;\n', undefined],
  'packages/service/src/processing/worker.ts': [
    "import { sync } from '../sources/sync.js';\nexport const worker = sync;\n",
    undefined,
  ],
  'packages/service/src/processing/pipeline.ts': [
    "import { sync } from '../sources/sync.js';\nexport const pipeline = sync;\n",
    'pipeline-through-source-items',
  ],
  'packages/console/src/api.ts': [
    "import { types } from '../../service/src/domain/types.js';\nexport const api = types;\n",
    'console-through-the-sdk',
  ],
  'packages/service/src/text/missing.ts': [
    "import { gone } from 'no-such-package';\nexport const g = gone;\n",
    'no-unresolvable',
  ],
  'packages/sdk/src/client.ts': [
    "import { api } from '../../console/src/api.js';\nexport const client = api;\n",
    'sdk-stands-alone',
  ],
};

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-layers-'));
  await symlink(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'));
  for (const [file, [source]] of Object.entries(fixtures)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), source);
  }
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the layer rules', () => {
  it('name each deliberate violation, and only those', async () => {
    const cli = path.join(repo, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
    const result = await run(
      process.execPath,
      [cli, 'packages', '--config', path.join(repo, '.dependency-cruiser.cjs'), '--output-type', 'json'],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
    ).catch((e: { stdout: string }) => e);
    const report = JSON.parse(result.stdout) as {
      summary: { violations: { from: string; rule: { name: string } }[] };
    };
    const found: Record<string, string[]> = {};
    for (const v of report.summary.violations) found[v.from] = [...(found[v.from] ?? []), v.rule.name];
    const expected: Record<string, string[]> = {};
    for (const [file, [, rule]] of Object.entries(fixtures)) if (rule) expected[file] = [rule];
    expect(found).toEqual(expected);
  }, 60_000);
});
