import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { baseEnv, cliPath } from '../support/processes.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * `docslurp eval` (issue 40) against a test service: over HTTP (SERVICE_URL) and in-process on its
 * database, a table or JSON, and a baseline gate that fails when a metric drops.
 */
let svc: TestService;
let workspaceId: string;
let questionsFile: string;
let remoteEnv: Record<string, string>;

const HANDBOOK = [
  '# Leave',
  '',
  'Every employee receives 25 days of paid vacation per year. Unused days expire at the end of March.',
].join('\n');
const SECURITY = '# Security\n\nVisitor badges are collected at the reception desk on the ground floor.\n';
// The handbook matches more of its words than the security note, which it expects: second at best.
const QUESTIONS = [
  { q: 'How many days of paid vacation per year?', answers: ['25 days'], expected: ['handbook.md'] },
  {
    q: 'paid vacation days per year employee at the reception desk',
    answers: ['reception desk'],
    expected: ['security.md'],
  },
];

function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath(), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  svc = await startTestService();
  const key = await svc.key(['ingest', 'search', 'artifacts']);
  const api = client(svc.url, key);
  const up = await api.upload([
    { name: 'handbook.md', content: HANDBOOK },
    { name: 'security.md', content: SECURITY },
  ]);
  expect(up.status).toBe(202);
  workspaceId = up.body.workspace.id;
  await api.waitForRun(up.body.run.id);
  questionsFile = path.join(svc.dataDir, 'questions.jsonl');
  await writeFile(questionsFile, `${QUESTIONS.map((q) => JSON.stringify(q)).join('\n')}\n`);
  remoteEnv = { ...baseEnv(), SERVICE_URL: svc.url, SERVICE_API_KEY: key };
}, 120_000);
afterAll(() => svc?.close());

const common = () => ['eval', '--workspace', workspaceId, '--questions', questionsFile, '--mode', 'lexical'];

describe('docslurp eval over HTTP', () => {
  it('prints a table of metrics, with progress on stderr', async () => {
    const r = await run([...common(), '--name', 'Table'], remoteEnv);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^hitAt5\s+1\.000 \[1\.000, 1\.000\]\s+2$/m);
    expect(r.stdout).toContain('Configuration "default"');
    expect(r.stderr).toMatch(/\[eval\] completed: 2\/2 questions/);
  });

  it('prints the evaluation as JSON, and fails a baseline gate only when a metric drops', async () => {
    const base = await run([...common(), '--top-k', '10', '--json'], remoteEnv);
    expect(base.code, base.stderr).toBe(0);
    const baseline = JSON.parse(base.stdout);
    expect(baseline).toMatchObject({ status: 'completed', configurations: [{ search: { topK: 10 } }] });
    expect(baseline.results[0].metrics.hitAt5).toMatchObject({ value: 1, n: 2 });

    const worse = await run([...common(), '--top-k', '1', '--baseline', baseline.id, '--json'], remoteEnv);
    expect(worse.code, worse.stderr).toBe(1);
    expect(worse.stderr).toMatch(/dropped by more than 0\.02/);
    expect(worse.stderr).toMatch(/^ {2}hitAt5 \(configuration "default"\): 1\.000 -> 0\.500/m);
    expect(worse.stderr).not.toMatch(/searchP50Ms/);
    const compared = JSON.parse(worse.stdout);
    expect(compared.comparison).toMatchObject({ a: baseline.id, b: compared.id });
    expect(compared.comparison.configurations[0].metrics.hitAt5.difference.value).toBe(-0.5);

    // A tolerance above the drop lets it pass; so do the same settings.
    const tolerant = await run(
      [...common(), '--top-k', '1', '--baseline', baseline.id, '--fail-on-drop', '0.6'],
      remoteEnv,
    );
    expect(tolerant.code, tolerant.stderr).toBe(0);
    const same = await run([...common(), '--top-k', '10', '--baseline', baseline.id], remoteEnv);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain('difference [low, high]');
    expect(same.stderr).toContain('no metric dropped');
  });

  it('exits 2 with a message on bad flags and on what the service refuses', async () => {
    const mode = await run([...common(), '--mode', 'fuzzy'], remoteEnv);
    expect(mode.code).toBe(2);
    expect(mode.stderr).toContain('--mode must be lexical, vector or hybrid');
    const missing = await run(['eval', '--questions', questionsFile], remoteEnv);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('eval needs --workspace');
    const nobody = await run(['eval', '--workspace', 'ws_missing', '--questions', questionsFile], remoteEnv);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toContain('workspace_not_found');
  });
});

describe('docslurp eval on the local database', () => {
  it('runs the evaluation in its own process and prints its metrics', async () => {
    const env = {
      ...baseEnv(),
      DATA_DIR: svc.dataDir,
      DATABASE_URL: svc.dbs.urls.service,
      WORKFLOW_DATABASE_URL: svc.dbs.urls.workflow,
    };
    const r = await run([...common(), '--no-answers', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const e = JSON.parse(r.stdout);
    expect(e).toMatchObject({ status: 'completed', configurations: [{ answers: null }] });
    expect(e.results[0].metrics.hitAt5).toMatchObject({ value: 1, n: 2 });
    expect(e.results[0].metrics.chatContains).toBeNull();
  });
});
