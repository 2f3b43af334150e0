import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, ensureBootstrapKey } from '../../src/domain/keys.js';
import { client } from '../support/http.js';
import { baseEnv, runCli } from '../support/processes.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Quotas per account (issue 43) against real PostgreSQL: the server's defaults (ACCOUNT_MAX_*),
 * accounts' own limits set by the operator through the API and the CLI, and each face that adds
 * documents or asks questions refusing what is over a quota without losing anything stored.
 */
const OPERATOR_KEY = 'dsk_operator-key-for-quota-tests';
let svc: TestService;
let operator: ReturnType<typeof client>;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-quotas-'));
  svc = await startTestService({
    env: {
      ACCOUNT_MAX_DOCUMENTS: '3',
      SERVICE_BOOTSTRAP_API_KEY: OPERATOR_KEY,
      SOURCE_FOLDER_ROOTS: `sync-team=${root}`,
    },
  });
  await ensureBootstrapKey(svc.deps.accounts, OPERATOR_KEY);
  operator = client(svc.url, OPERATOR_KEY);
}, 120_000);
afterAll(async () => {
  await svc?.close();
  await rm(root, { recursive: true, force: true });
});

/** A client of a fresh account (keys with every scope but act-as), and the account's id. */
async function team(name: string) {
  const key = await svc.key(['ingest', 'search', 'artifacts', 'admin'], name);
  const account = (await svc.deps.accounts.findAccount(name))!;
  return { api: client(svc.url, key), id: account.id, key };
}

const file = (name: string, bytes = 20) => ({
  name,
  content: `# ${name}\n\n${'x'.repeat(Math.max(0, bytes - name.length - 4))}\n`.slice(0, bytes),
});
const md = (name: string, text: string) => ({ name, content: text });

async function setQuotas(account: string, changes: Record<string, unknown>) {
  const r = await operator.patch(`/v1/accounts/${account}/quotas`, changes);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

describe('the documents quota (ACCOUNT_MAX_DOCUMENTS)', () => {
  it('refuses an upload that would pass it with 403 naming the quota, and keeps what is stored', async () => {
    const { api } = await team('docs-team');
    const first = await api.upload([file('a.md'), file('b.md')]);
    expect(first.status).toBe(202);
    const workspaceId = first.body.workspace.id;
    const over = await api.upload([file('c.md'), file('d.md')], { workspaceId });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'quota_exceeded', quota: 'documents', limit: 3, used: 2 });
    expect(over.body.error.message).toBe(
      'Quota "documents" exceeded: The account may hold 3 documents and holds 2, so nothing was stored; delete documents to make room, or ask the operator for a higher limit.',
    );
    expect(over.headers.get('retry-after')).toBeNull();
    // Nothing of the refused upload was recorded; the first run finishes with both documents.
    const done = await api.waitForRun(first.body.run.id);
    expect(done.counts).toMatchObject({ total: 2, ready: 2 });
    const listed = await api.get(`/v1/workspaces/${workspaceId}/documents`);
    expect(listed.body.documents.map((d: { filename: string }) => d.filename).sort()).toEqual([
      'a.md',
      'b.md',
    ]);
    // What fits still goes in, up to the limit exactly; a deleted document makes room again.
    expect((await api.upload([file('c.md')], { workspaceId })).status).toBe(202);
    const full = await api.upload([file('d.md')], { workspaceId });
    expect(full.body.error).toMatchObject({ quota: 'documents', limit: 3, used: 3 });
    expect((await api.delete(`/v1/documents/${listed.body.documents[0].id}`)).status).toBe(200);
    expect((await api.upload([file('d.md')], { workspaceId })).status).toBe(202);
  });

  it('lets exactly the limit through when uploads race at it', async () => {
    const { api, id } = await team('race-team');
    await setQuotas(id, { documents: 5 });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => api.upload([file(`r${i}.md`)])));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([202, 202, 202, 202, 202, 403, 403, 403]);
    expect((await api.get('/v1/quotas')).body.documents).toEqual({ limit: 5, used: 5 });
  });

  it('stops a sync at the quota: it adds what fits and records why the rest was skipped', async () => {
    const { api, id } = await team('sync-team');
    await setQuotas(id, { documents: 3 });
    const up = await api.upload([file('kept.md')]);
    expect(up.status).toBe(202);
    const folder = path.join(root, 'sync-team');
    await mkdir(folder);
    for (const n of ['one', 'two', 'three', 'four'])
      await writeFile(path.join(folder, `${n}.md`), `# ${n}\n`);
    const source = await api.post(`/v1/workspaces/${up.body.workspace.id}/sources`, {
      type: 'folder',
      settings: { path: folder },
    });
    expect(source.status, JSON.stringify(source.body)).toBe(201);
    const run = await api.waitForRun(source.body.syncRunId);
    expect(run.counts).toMatchObject({ total: 2, ready: 2 });
    const record = (await api.get(`/v1/runs/${run.id}`)).body;
    expect(record.skipped.total).toBe(2);
    expect(record.skipped.reasons[0]).toMatchObject({ count: 2 });
    expect(record.skipped.reasons[0].reason).toMatch(
      /over the account's documents quota \(3 documents; 1 document held before this sync\)/,
    );
    expect(record.changes).toMatchObject({ added: 2 });
    // The upload's document is untouched.
    expect((await api.waitForRun(up.body.run.id)).counts).toMatchObject({ total: 1, ready: 1 });
    expect((await api.get('/v1/quotas')).body.documents).toEqual({ limit: 3, used: 3 });
  });
});

describe('the stored-bytes quota', () => {
  it('counts the bytes of originals, and refuses URLs once the account is full', async () => {
    const { api, id } = await team('bytes-team');
    await setQuotas(id, { storedBytes: 100 });
    expect((await api.upload([file('a.md', 60)])).status).toBe(202);
    const over = await api.upload([file('b.md', 50)]);
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({
      code: 'quota_exceeded',
      quota: 'storedBytes',
      limit: 100,
      used: 60,
    });
    expect((await api.upload([file('c.md', 40)])).status).toBe(202);
    // A page's size is known only once fetched: a full account takes none.
    const urls = await api.post('/v1/ingest/urls', { urls: ['http://127.0.0.1:9/page'] });
    expect(urls.status).toBe(403);
    expect(urls.body.error).toMatchObject({ quota: 'storedBytes', limit: 100, used: 100 });
    expect((await api.get('/v1/quotas')).body.storedBytes).toEqual({ limit: 100, used: 100 });
  });
});

describe('the uploads-per-day quota', () => {
  it('counts files of uploads and URLs, and answers 429 with Retry-After until midnight UTC', async () => {
    const { api, id } = await team('daily-team');
    await setQuotas(id, { uploadsPerDay: 3, documents: 'unlimited' });
    expect((await api.upload([file('a.md'), file('b.md')])).status).toBe(202);
    const over = await api.upload([file('c.md'), file('d.md')]);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({
      code: 'quota_exceeded',
      quota: 'uploadsPerDay',
      limit: 3,
      used: 2,
    });
    const retryAfter = Number(over.headers.get('retry-after'));
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((midnight - now.getTime()) / 1000) + 1);
    expect((await api.post('/v1/ingest/urls', { urls: ['http://127.0.0.1:9/a'] })).status).toBe(202);
    const urls = await api.post('/v1/ingest/urls', { urls: ['http://127.0.0.1:9/b'] });
    expect(urls.status).toBe(429);
    expect(urls.body.error).toMatchObject({ quota: 'uploadsPerDay', used: 3 });
    const quotas = (await api.get('/v1/quotas')).body;
    expect(quotas.uploadsPerDay).toEqual({ limit: 3, used: 3 });
    expect(Date.parse(quotas.resetsAt)).toBe(midnight);
  });
});

describe('the questions-per-day quota', () => {
  it('counts chat and chat completions, not searches, and answers 429 in either face', async () => {
    const { api, id, key } = await team('asks-team');
    await setQuotas(id, { questionsPerDay: 2 });
    const up = await api.upload([md('gate.md', '# Gate\n\nThe garden gate opens at nine every morning.\n')]);
    await api.waitForRun(up.body.run.id);
    const workspaceId = up.body.workspace.id;
    const ask = () => api.post('/v1/search/chat', { workspaceId, q: 'When does the garden gate open?' });
    const completion = () =>
      api.post(`/v1/workspaces/${workspaceId}/openai/chat/completions`, {
        model: 'docslurp',
        messages: [{ role: 'user', content: 'When does the garden gate open?' }],
      });
    expect((await ask()).status).toBe(200);
    expect((await completion()).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await api.post('/v1/search', { workspaceId, q: 'garden gate' })).status).toBe(200);
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'quota_exceeded',
      quota: 'questionsPerDay',
      limit: 2,
      used: 2,
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const openai = await completion();
    expect(openai.status).toBe(429);
    expect(openai.body.error).toMatchObject({
      code: 'quota_exceeded',
      type: 'insufficient_quota',
      quota: 'questionsPerDay',
      limit: 2,
      used: 2,
    });
    // A higher limit from the operator applies to the next question.
    await setQuotas(id, { questionsPerDay: 3 });
    expect((await completion()).status).toBe(200);
    expect((await ask()).status).toBe(429);
    expect((await api.get('/v1/quotas')).body.questionsPerDay).toEqual({ limit: 3, used: 3 });
    // MCP's ask is a question too: refused as a tool error the agent can read.
    const mcp = new Client({ name: 'docslurp-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/v1/workspaces/${workspaceId}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const tool = (await mcp.callTool({
        name: 'ask',
        arguments: { question: 'When does the garden gate open?' },
      })) as CallToolResult;
      expect(tool.isError).toBe(true);
      const text = (tool.content[0] as { text: string }).text;
      expect(JSON.parse(text).error.code).toBe('quota_exceeded');
      await setQuotas(id, { questionsPerDay: 4 });
      const answered = (await mcp.callTool({
        name: 'ask',
        arguments: { question: 'When does the garden gate open?' },
      })) as CallToolResult;
      expect(answered.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
    expect((await api.get('/v1/quotas')).body.questionsPerDay).toEqual({ limit: 4, used: 4 });
  });
});

describe('setting quotas', () => {
  it('is for the operator only; an owner reads its own account', async () => {
    const { api, id } = await team('owners-team');
    const other = await team('other-team');
    const denied = await api.patch(`/v1/accounts/${id}/quotas`, { documents: 1000 });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('permission_denied');
    expect((await api.get(`/v1/accounts/${other.id}/quotas`)).status).toBe(403);
    const own = await api.get(`/v1/accounts/${id}/quotas`);
    expect(own.status).toBe(200);
    expect(own.body.documents).toEqual({ limit: 3, used: 0 });
    // By name or id; unlimited; null back to the server's default.
    expect(
      (await setQuotas('owners-team', { documents: 'unlimited', storedBytes: 1000 })).documents.limit,
    ).toBeNull();
    expect((await api.get('/v1/quotas')).body).toMatchObject({
      documents: { limit: null },
      storedBytes: { limit: 1000 },
      uploadsPerDay: { limit: null },
    });
    expect((await setQuotas(id, { documents: null })).documents.limit).toBe(3);
    const bad = await operator.patch(`/v1/accounts/${id}/quotas`, { documents: -1 });
    expect(bad.status).toBe(400);
    expect((await operator.patch('/v1/accounts/no-such-account/quotas', { documents: 1 })).status).toBe(400);
    const audit = await api.get('/v1/audit?action=account.quotas_changed');
    expect(audit.body.events.length).toBeGreaterThanOrEqual(2);
  });

  it('works through the CLI, and the next upload is held to it', async () => {
    const { api } = await team('cli-team');
    const env = {
      ...baseEnv(),
      DATABASE_URL: svc.dbs.urls.service,
      WORKFLOW_DATABASE_URL: svc.dbs.urls.workflow,
      DATA_DIR: svc.dataDir,
    };
    const set = await runCli(
      [
        'accounts',
        'quota',
        'set',
        'cli-team',
        '--documents',
        '1',
        '--stored-bytes',
        '1KB',
        '--questions-per-day',
        'unlimited',
      ],
      env,
    );
    expect(set.code, set.output).toBe(0);
    expect(set.output).toMatch(/documents\s+0 used of 1/);
    expect(set.output).toMatch(/stored-bytes\s+0 used of 1000/);
    const shown = await runCli(['accounts', 'quota', 'show', 'cli-team', '--json'], env);
    expect(JSON.parse(shown.output.trim().split('\n').at(-1)!)).toMatchObject({
      account: 'cli-team',
      documents: { limit: 1, used: 0 },
      questionsPerDay: { limit: null },
    });
    const wrong = await runCli(['accounts', 'quota', 'set', 'cli-team', '--stored-bytes', 'lots'], env);
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain('--stored-bytes takes bytes or a size such as 10GB');
    expect((await api.upload([file('a.md')])).status).toBe(202);
    expect((await api.upload([file('b.md')])).body.error).toMatchObject({
      quota: 'documents',
      limit: 1,
      used: 1,
    });
  });
});

describe('GET /v1/overview', () => {
  it('shows the use of each quota to those who see the whole account', async () => {
    const { api, id } = await team('overview-team');
    await setQuotas(id, { uploadsPerDay: 10 });
    const up = await api.upload([file('a.md', 30), file('b.md', 30)]);
    await api.waitForRun(up.body.run.id);
    const overview = await api.get('/v1/overview');
    expect(overview.status).toBe(200);
    expect(overview.body.quotas).toMatchObject({
      documents: { limit: 3, used: 2 },
      storedBytes: { limit: null, used: 60 },
      uploadsPerDay: { limit: 10, used: 2 },
      questionsPerDay: { limit: null, used: 0 },
    });
    // A member who sees part of the account gets no quotas: their counts would tell the rest.
    const editor = await api.post('/v1/users', { email: 'ed@example.com', role: 'editor' });
    expect(editor.status).toBe(201);
    const bound = await createApiKey(svc.deps.accounts, {
      accountId: id,
      scopes: ['ingest', 'search', 'artifacts'],
      name: 'editor',
      userId: editor.body.id,
    });
    const seen = await client(svc.url, bound.secret).get('/v1/overview');
    expect(seen.status).toBe(200);
    expect(seen.body.documents).toBeDefined();
    expect(seen.body.quotas).toBeUndefined();
  });
});

describe('the daily counts', () => {
  it('are forgotten after the days kept, today and recent days staying', async () => {
    const { api, id } = await team('purge-team');
    expect((await api.upload([file('a.md')])).status).toBe(202);
    await svc.deps.pool.query(
      `INSERT INTO account_daily_use (account_id, quota, day, used) VALUES
         ($1, 'questionsPerDay', current_date - 40, 9), ($1, 'questionsPerDay', current_date - 3, 4)`,
      [id],
    );
    expect(await svc.deps.quotas.purgeDailyUse(31)).toBeGreaterThanOrEqual(1);
    const left = await svc.deps.pool.query<{ used: number }>(
      'SELECT used FROM account_daily_use WHERE account_id = $1 ORDER BY day',
      [id],
    );
    expect(left.rows.map((r) => r.used)).toEqual([4, 1]);
  });
});
