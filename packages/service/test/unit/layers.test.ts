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
 * import, as `dist/` once hid every package whose entry point lives there) fails here. The other
 * gates of `npm run lint` (the regex lint, file sizes) are planted in gates.test.ts.
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
    'infrastructure-only-in-adapters',
  ],
  'packages/service/src/answers/onnx.ts': [
    "import { InferenceSession } from 'onnxruntime-node';\nexport const s = InferenceSession;\n",
    'infrastructure-only-in-adapters',
  ],
  'packages/service/src/documents/mcp.ts': [
    "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const m = McpServer;\n",
    'mcp-sdk-only-in-mcp',
  ],
  // Infrastructure packages: adapters, main/ and the composition root only; each face its framework.
  'packages/service/src/adapters/postgres/pool.ts': [
    "import pg from 'pg';\nexport const pool = pg;\n",
    undefined,
  ],
  'packages/service/src/main/queue.ts': [
    "import PgBoss from 'pg-boss';\nexport const boss = PgBoss;\n",
    undefined,
  ],
  'packages/service/src/logger.ts': ["import pino from 'pino';\nexport const logger = pino;\n", undefined],
  'packages/service/src/app.ts': ["import Fastify from 'fastify';\nexport const app = Fastify;\n", undefined],
  'packages/service/src/http/server.ts': [
    "import Fastify from 'fastify';\nexport const s = Fastify;\n",
    undefined,
  ],
  'packages/service/src/mcp/server.ts': [
    "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const m = McpServer;\n",
    undefined,
  ],
  'packages/service/src/ops/gauges.ts': [
    "import { Gauge } from 'prom-client';\nexport const g = Gauge;\n",
    undefined,
  ],
  'packages/service/src/http/routes/rows.ts': [
    "import pg from 'pg';\nexport const rows = pg;\n",
    'infrastructure-only-in-adapters',
  ],
  'packages/service/src/mcp/rows.ts': [
    "import pg from 'pg';\nexport const rows = pg;\n",
    'infrastructure-only-in-adapters',
  ],
  'packages/service/src/ops/jobs.ts': [
    "import PgBoss from 'pg-boss';\nexport const jobs = PgBoss;\n",
    'infrastructure-only-in-adapters',
  ],
  'packages/service/src/http/log.ts': [
    "import type { Logger } from 'pino';\nexport type Log = Logger;\n",
    'infrastructure-only-in-adapters',
  ],
  'packages/service/src/webhooks/redis.ts': [
    "import Redis from 'ioredis';\nexport const r = Redis;\n",
    'infrastructure-only-in-adapters',
  ],
  'packages/service/src/ops/s3.ts': [
    "import { S3Client } from '@aws-sdk/client-s3';\nexport const s3 = S3Client;\n",
    'infrastructure-only-in-adapters',
  ],
  'packages/service/src/ops/server.ts': [
    "import Fastify from 'fastify';\nexport const s = Fastify;\n",
    'fastify-only-in-http',
  ],
  'packages/service/src/http/routes/mcp.ts': [
    "import { isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';\nexport const j = isJSONRPCRequest;\n",
    'mcp-sdk-only-in-mcp',
  ],
  'packages/service/src/mcp/metrics.ts': [
    "import { Counter } from 'prom-client';\nexport const c = Counter;\n",
    'prom-client-only-in-ops',
  ],
  // The root utilities import nothing of the service but each other.
  'packages/service/src/strings.ts': ['export const trim = 1;\n', undefined],
  'packages/service/src/ids.ts': [
    "import { trim } from './strings.js';\nexport const ids = trim;\n",
    undefined,
  ],
  'packages/service/src/errors.ts': [
    "import { store } from './adapters/index/store.js';\nexport const errors = store;\n",
    'root-utilities-stand-alone',
  ],
  'packages/service/src/lru.ts': [
    "import { types } from './domain/types.js';\nexport const lru = types;\n",
    'root-utilities-stand-alone',
  ],
  // Features reach each other through their public modules only (publicModules in the config).
  'packages/service/src/ingestion/upload.ts': ['export const sanitize = 1;\n', undefined],
  'packages/service/src/processing/batch.ts': [
    "import { sanitize } from '../ingestion/upload.js';\nexport const batch = sanitize;\n",
    'features-through-public-modules',
  ],
  'packages/service/src/sources/website.ts': ['export const crawl = 1;\n', undefined],
  'packages/service/src/answers/crawl.ts': [
    "import { crawl } from '../sources/website.js';\nexport const c = crawl;\n",
    'features-through-public-modules',
  ],
  'packages/service/src/sources/robots.ts': [
    "import { crawl } from './website.js';\nexport const robots = crawl;\n",
    undefined,
  ],
  'packages/service/src/search/search.ts': ['export const search = 1;\n', undefined],
  'packages/service/src/answers/answer.ts': [
    "import { search } from '../search/search.js';\nimport { types } from '../domain/types.js';\nexport const answer = [search, types];\n",
    undefined,
  ],
  'packages/service/src/access/principals.ts': ['export const principals = 1;\n', undefined],
  'packages/service/src/domain/keys.ts': [
    "import { principals } from '../access/principals.js';\nexport const keys = principals;\n",
    undefined,
  ],
  'packages/service/src/access/people.ts': ['export const people = 1;\n', undefined],
  'packages/service/src/domain/sessions.ts': [
    "import { people } from '../access/people.js';\nexport const sessions = people;\n",
    'features-through-public-modules',
  ],
  // A reviewed exception holds for its one file and module, and no other.
  'packages/service/src/parsing/xml.ts': ['export const MAX_NESTING_DEPTH = 500;\n', undefined],
  'packages/service/src/sources/pages.ts': [
    "import { MAX_NESTING_DEPTH } from '../parsing/xml.js';\nexport const depth = MAX_NESTING_DEPTH;\n",
    undefined,
  ],
  'packages/service/src/sources/sitemaps.ts': [
    "import { MAX_NESTING_DEPTH } from '../parsing/xml.js';\nexport const depth = MAX_NESTING_DEPTH;\n",
    'features-through-public-modules',
  ],
  'packages/service/src/sources/feeds.ts': [
    "import { crawl } from '../sources/website.js';\nimport { sanitize } from '../ingestion/upload.js';\nexport const feeds = [crawl, sanitize];\n",
    'features-through-public-modules',
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
  'packages/service/src/main/worker.ts': [
    "import { sync } from '../sources/sync.js';\nexport const worker = sync;\n",
    undefined,
  ],
  'packages/service/src/processing/pipeline/loop.ts': [
    "import { sync } from '../../sources/sync.js';\nexport const pipeline = sync;\n",
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
