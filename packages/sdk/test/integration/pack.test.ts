import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { EdgeVM } from '@edge-runtime/vm';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, runtimeBinary } from '../support/runtimes.js';
import { type RunningServer, repoRoot, startServer } from '../support/server.js';

const run = promisify(execFile);
const sdkDir = path.join(repoRoot, 'packages/sdk');

let server: RunningServer;
let work: string;
let app: string;
let packed: { filename: string; files: { path: string }[] };
const runtimes = {} as Record<Runtime, string>;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'docslurp-sdk-pack-'));
  app = path.join(work, 'app');
  await mkdir(app);
  const [started, pack] = await Promise.all([
    startServer(),
    // `npm pack` runs the package's prepack script, so the tarball holds a fresh build.
    run('npm', ['pack', '--json', '--pack-destination', work], { cwd: sdkDir }),
    ...(['bun', 'deno', 'node18'] as const).map(async (r) => {
      runtimes[r] = await runtimeBinary(r);
    }),
  ]);
  server = started;
  packed = (JSON.parse(pack.stdout) as (typeof packed)[])[0]!;
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(work, packed.filename)], {
    cwd: app,
  });
  await writeFile(path.join(app, 'first.mjs'), esm);
  await writeFile(path.join(app, 'first.cjs'), cjs);
});
afterAll(async () => {
  await server?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/**
 * The README's quick start plus the rest of a first session, as a user would write it; it ends with a
 * `summary` object that each runtime's wrapper reports.
 */
const session = (create: string) => `
const docslurp = ${create};
const { workspace, run } = await docslurp.upload({
  files: [{ filename: 'policy.md', data: '# Policy\\n\\nEvery employee receives 25 days of paid vacation per year.\\n', contentType: 'text/markdown' }],
});
await docslurp.waitForRun(run.id);
const { results } = await docslurp.search({ workspaceId: workspace.id, q: 'paid vacation' });
const { answer, citations } = await docslurp.chat({ workspaceId: workspace.id, q: 'How many vacation days?' });
let streamed = '';
const stream = await docslurp.chat({ workspaceId: workspace.id, q: 'How many vacation days?', stream: true });
for await (const delta of stream) streamed += delta.text;
let notFound;
try {
  await docslurp.getRun('run_missing');
} catch (error) {
  notFound = { isNotFound: error instanceof NotFoundError, isBase: error instanceof DocSlurpError, code: error.code };
}
const summary = { topHit: results[0].text, file: results[0].citation.filename, answer, cited: citations.length, streamed, notFound };
`;
const imports = 'createDocSlurpClient, DocSlurpError, NotFoundError';
const fromEnv = 'createDocSlurpClient()';
const esm = `import { ${imports} } from '@service/sdk';
${session(fromEnv)}
console.log(JSON.stringify(summary));
`;
const cjs = `const { ${imports} } = require('@service/sdk');
(async () => {
${session(fromEnv)}
  console.log(JSON.stringify(summary));
})().catch((e) => { console.error(e); process.exit(1); });
`;

async function runScript(binary: string, args: string[], env: Record<string, string> = {}) {
  const { stdout } = await run(binary, args, {
    cwd: app,
    env: { PATH: process.env.PATH, SERVICE_URL: server.url, SERVICE_API_KEY: server.apiKey, ...env },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

function expectFirstSession(out: Record<string, unknown>) {
  expect(out.topHit).toContain('25 days of paid vacation');
  expect(out.file).toBe('policy.md');
  expect(out.answer).toContain('25 days of paid vacation');
  expect(out.cited).toBeGreaterThan(0);
  expect(out.streamed).toBe(out.answer);
  expect(out.notFound).toEqual({ isNotFound: true, isBase: true, code: 'run_not_found' });
}

describe('the packed tarball', () => {
  it('holds the two builds, their declarations and the README, and no sources or tests', async () => {
    const files = packed.files.map((f) => f.path).sort();
    for (const f of [
      'README.md',
      'package.json',
      'dist/esm/index.js',
      'dist/esm/index.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/cjs/generated/openapi.d.ts',
      'dist/esm/generated/openapi.d.ts',
      'dist/cjs/package.json',
    ]) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => !f.startsWith('dist/') && f !== 'README.md' && f !== 'package.json')).toEqual(
      [],
    );
  });

  it('has no runtime dependencies and imports no Node built-ins', async () => {
    const installed = path.join(app, 'node_modules/@service/sdk');
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.name).toBe('@service/sdk');
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies ?? {}).toEqual({});
    for (const f of packed.files.map((x) => x.path).filter((p) => p.endsWith('.js'))) {
      const code = await readFile(path.join(installed, f), 'utf8');
      expect(code, f).not.toMatch(
        /from ['"]node:|require\(['"]node:|from ['"](fs|path|http|https|crypto|stream|buffer|os|url|util)['"]/,
      );
      expect(code, f).not.toMatch(/require\(['"](fs|path|http|https|crypto|stream|buffer|os|url|util)['"]\)/);
    }
  });

  it('works from a plain ES module (import)', async () => {
    expectFirstSession(await runScript(process.execPath, ['first.mjs']));
  });

  it('works from CommonJS (require)', async () => {
    expectFirstSession(await runScript(process.execPath, ['first.cjs']));
  });

  it('works on Node 18, the oldest version it supports', async () => {
    const node18 = runtimes.node18;
    expect((await run(node18, ['--version'])).stdout).toMatch(/^v18\./);
    expectFirstSession(await runScript(node18, ['--no-warnings', 'first.mjs']));
    expectFirstSession(await runScript(node18, ['--no-warnings', 'first.cjs']));
  });

  it('works in Bun', async () => {
    expectFirstSession(await runScript(runtimes.bun, ['first.mjs']));
    expectFirstSession(await runScript(runtimes.bun, ['first.cjs']));
  });

  it('works in Deno, with only the permissions it needs', async () => {
    const host = new URL(server.url).host;
    const args = [
      'run',
      '--no-prompt',
      `--allow-net=${host}`,
      '--allow-env=SERVICE_URL,SERVICE_API_KEY',
      '--allow-read=.',
      'first.mjs',
    ];
    const deno = { DENO_DIR: path.join(work, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
    expectFirstSession(await runScript(runtimes.deno, args, deno));
  });

  it('works in an edge runtime: web APIs only, no process, no require', async () => {
    // Bundled as an edge platform's bundler would, then run in a context that has only web globals.
    const edge = `import { ${imports} } from '@service/sdk';
globalThis.result = (async () => {
${session(`createDocSlurpClient({ apiUrl: ${JSON.stringify(server.url)}, apiKey: ${JSON.stringify(server.apiKey)} })`)}
  return summary;
})();
`;
    await writeFile(path.join(app, 'edge.mjs'), edge);
    const bundle = await build({
      entryPoints: [path.join(app, 'edge.mjs')],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      logLevel: 'silent',
    });
    const vm = new EdgeVM();
    expect(vm.evaluate('[typeof process, typeof require, typeof Buffer, typeof fetch]')).toEqual([
      'undefined',
      'undefined',
      'undefined',
      'function',
    ]);
    vm.evaluate(bundle.outputFiles[0]!.text);
    expectFirstSession((await vm.evaluate('globalThis.result')) as Record<string, unknown>);
  });

  it('gives TypeScript users types from both entry points, and the OpenAPI schemas', async () => {
    const consumer = (importLine: string) => `${importLine}
const client = createDocSlurpClient({ apiUrl: 'http://127.0.0.1:1', apiKey: 'dsk_x', maxRetries: 1 });
export async function first(): Promise<RunProgress> {
  const { run } = await client.upload({ files: [{ filename: 'a.md', data: '# A' }], idempotencyKey: 'k' });
  const stream = await client.chat({ workspaceId: 'ws', q: 'q', stream: true });
  for await (const delta of stream) delta.text.toUpperCase();
  const answer: string = (await client.chat({ workspaceId: 'ws', q: 'q' })).answer;
  void answer;
  // @ts-expect-error files must be an array of { filename, data }
  await client.upload({ files: 'a.md' });
  return client.waitForRun(run.id, { timeoutMs: 600_000 });
}
export const isRetryable = (e: unknown) => e instanceof RateLimitError && (e.retryAfterMs ?? 0) < 1000;
// The OpenAPI document's schemas, for the records the client has no method for (the console's).
export const scopes: components['schemas']['ApiKey']['scopes'] = ['search'];
// @ts-expect-error a scope the document does not list
export const unknownScope: components['schemas']['ApiKey']['scopes'] = ['superuser'];
`;
    const imports = [
      "import { createDocSlurpClient, RateLimitError, type RunProgress } from '@service/sdk';",
      "import type { components } from '@service/sdk/openapi';",
    ].join('\n');
    await writeFile(path.join(app, 'consumer.mts'), consumer(imports));
    await writeFile(path.join(app, 'consumer.cts'), consumer(imports));
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        target: 'es2022',
        // A consumer without Node's typings: the declarations must stand on the web-standard ones.
        lib: ['es2022', 'dom'],
        types: [],
      },
      files: ['consumer.mts', 'consumer.cts'],
    };
    await writeFile(path.join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', '.'], { cwd: app }).catch(
      (e: { stdout: string }) => e,
    );
    expect((result as { stdout: string }).stdout).toBe('');
  });
});
