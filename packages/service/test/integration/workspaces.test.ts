import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { capturingLog } from '../support/log.js';
import { type ModelServer, startModelServer } from '../support/model-servers.js';
import { startTestService, type TestService } from '../support/service.js';
import { holdsFor, waitFor } from '../support/wait.js';

/**
 * Workspaces as people manage them: created empty with a name, listed by name, renamed, and deleted
 * with everything in them. Deletion is counted where things live: every table of the service database
 * that names the workspace, its runs or its documents (found from the schema, so tables added later
 * are counted too), the object store's folder and the LanceDB folder (chunk and vector tables).
 */

let svc: TestService;
let models: ModelServer;
let api: ReturnType<typeof client>;
/** An allowed root for folder sources: a workspace's synced documents and items go with it too. */
let folders: string;
const { log, lines } = capturingLog();

beforeAll(async () => {
  models = await startModelServer();
  folders = await mkdtemp(path.join(os.tmpdir(), 'docslurp-ws-folders-'));
  // Vectors too, so that deleting a workspace has vector tables to remove.
  svc = await startTestService({
    log,
    env: {
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDINGS_BASE_URL: models.url,
      EMBEDDINGS_MODEL: 'm1',
      EMBEDDINGS_MAX_RETRIES: '0',
      // For a webhook endpoint on loopback (run.cancelled of a deleted workspace's run).
      ENCRYPTION_KEY: 'ab'.repeat(32),
      URL_FETCH_ALLOW_HOSTS: '127.0.0.1',
      SOURCE_FOLDER_ROOTS: folders,
    },
  });
  api = client(svc.url, await svc.key());
});
afterAll(async () => {
  await svc?.close();
  await models?.close();
  await rm(folders, { recursive: true, force: true });
});

interface Held {
  workspace: string;
  runs: string[];
  documents: string[];
}

/** What the service database holds of a workspace: rows per table that name it, its runs or its documents. */
async function rowsOf(held: Held): Promise<Record<string, number>> {
  const c = new pg.Client({ connectionString: svc.dbs.urls.service });
  await c.connect();
  try {
    const columns = await c.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name IN ('workspace_id', 'run_id', 'document_id')`,
    );
    const out: Record<string, number> = {};
    const count = async (table: string, column: string, ids: string[]) => {
      const r = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${table}" WHERE "${column}" = ANY($1::text[])`,
        [ids],
      );
      if (r.rows[0]!.n > 0) out[`${table}.${column}`] = r.rows[0]!.n;
    };
    await count('workspaces', 'id', [held.workspace]);
    await count('runs', 'id', held.runs);
    await count('documents', 'id', held.documents);
    for (const { table_name, column_name } of columns.rows) {
      const ids =
        column_name === 'workspace_id'
          ? [held.workspace]
          : column_name === 'run_id'
            ? held.runs
            : held.documents;
      await count(table_name, column_name, ids);
    }
    return out;
  } finally {
    await c.end();
  }
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.map((e) => e.toString());
}

/** Files and folders of the object store that belong to these documents. */
async function objectsOf(documents: string[]): Promise<string[]> {
  const dir = svc.config.objects.kind === 'fs' ? svc.config.objects.dir : '';
  return (await walk(dir)).filter((p) => documents.some((d) => p.split(path.sep).includes(d)));
}

/** The workspace's LanceDB tables: its chunks, and its vectors of each model. */
async function tablesOf(workspace: string): Promise<string[]> {
  const entries = await readdir(svc.config.index.uri).catch(() => [] as string[]);
  return entries.filter((e) => e === `${workspace}.lance` || e.startsWith(`${workspace}__`));
}

async function fill(
  fields: Record<string, string>,
  files: { name: string; content: string }[],
): Promise<Held> {
  const up = await api.upload(files, fields);
  expect(up.status).toBe(202);
  await api.waitForRun(up.body.run.id);
  return {
    workspace: up.body.workspace.id,
    runs: [up.body.run.id],
    documents: up.body.documents.map((d: { id: string }) => d.id),
  };
}

describe('a workspace is created, listed by name and renamed', () => {
  it('creates an empty named workspace, lists it with its name, renames it and uploads into it', async () => {
    const created = await api.post('/v1/workspaces', {
      name: '  Handbook 2024 ',
      description: 'Policies for staff',
      metadata: { team: 'hr' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Handbook 2024',
      description: 'Policies for staff',
      metadata: { team: 'hr' },
    });
    const id = created.body.id as string;
    const listed = await api.get('/v1/workspaces');
    expect(listed.body.workspaces.find((w: { id: string }) => w.id === id)).toMatchObject({
      name: 'Handbook 2024',
      counts: { total: 0 },
    });

    // Renaming needs the ingest scope only.
    const ingestOnly = client(svc.url, await svc.key(['ingest']));
    const renamed = await ingestOnly.patch(`/v1/workspaces/${id}`, { name: 'Handbook 2025' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Handbook 2025', description: 'Policies for staff' });
    expect((await api.get(`/v1/workspaces/${id}`)).body.name).toBe('Handbook 2025');

    const cleared = await api.patch(`/v1/workspaces/${id}`, { description: null });
    expect(cleared.body).toMatchObject({
      description: null,
      name: 'Handbook 2025',
      metadata: { team: 'hr' },
    });
    for (const bad of [{}, { name: '   ' }, { name: 'two\nlines' }, { name: 'x'.repeat(201) }]) {
      const r = await api.patch(`/v1/workspaces/${id}`, bad);
      expect([r.status, r.body.error.code], JSON.stringify(bad)).toEqual([400, 'invalid_request']);
    }

    const up = await api.upload([{ name: 'leave.md', content: '# Leave\n\nTwenty-five days.' }], {
      workspaceId: id,
    });
    expect(up.body.workspace).toMatchObject({ id, name: 'Handbook 2025' });
    await api.waitForRun(up.body.run.id);
    const listedAgain = await api.get('/v1/workspaces');
    expect(listedAgain.body.workspaces.find((w: { id: string }) => w.id === id).counts.ready).toBe(1);
  });

  it('names the workspace an upload creates, and refuses a name next to a workspace id', async () => {
    const up = await api.upload([{ name: 'a.md', content: '# A\n\nAlpha.' }], { workspaceName: 'Contracts' });
    expect(up.status).toBe(202);
    expect(up.body.workspace.name).toBe('Contracts');
    const both = await api.upload([{ name: 'b.md', content: '# B\n\nBravo.' }], {
      workspaceId: up.body.workspace.id,
      workspaceName: 'Other',
    });
    expect([both.status, both.body.error.code]).toEqual([400, 'invalid_request']);
    const urls = await api.post('/v1/ingest/urls', {
      urls: ['http://127.0.0.1:9/x'],
      workspaceName: 'From the web',
    });
    expect(urls.body.workspace.name).toBe('From the web');
  });
});

describe('deleting a workspace', () => {
  it('leaves no row, object, index table or vector behind, and the other workspaces keep theirs', async () => {
    const docs = (prefix: string) => [
      { name: `${prefix}-fleet.md`, content: '# Fleet\n\nThe automobile fleet is serviced every spring.' },
      { name: `${prefix}-leave.md`, content: '# Leave\n\nStaff get twenty days of holiday.' },
      { name: `${prefix}-coffee.md`, content: '# Kitchen\n\nThe espresso machine is cleaned on Fridays.' },
    ];
    const doomed = await fill({ workspaceName: 'Doomed' }, docs('a'));
    const kept = await fill({ workspaceName: 'Kept' }, docs('b'));
    // One document deleted before: its row stays (status deleted) until the workspace goes.
    expect((await api.delete(`/v1/documents/${doomed.documents[2]}`)).status).toBe(200);
    // A synced source: its row, its items and the document it brought go with the workspace.
    const folder = await mkdtemp(path.join(folders, 'doomed-'));
    await writeFile(path.join(folder, 'synced.md'), '# Synced\n\nThe boiler is checked in October.');
    const source = await api.post(`/v1/workspaces/${doomed.workspace}/sources`, {
      type: 'folder',
      settings: { path: folder },
    });
    const sync = await api.post(`/v1/workspaces/${doomed.workspace}/sources/${source.body.id}/sync`, {});
    const synced = await api.waitForRun(sync.body.run.id);
    expect(synced.counts.ready).toBe(1);
    doomed.runs.push(synced.id);
    doomed.documents.push(synced.documents[0].id);

    const before = {
      rows: await rowsOf(doomed),
      objects: await objectsOf(doomed.documents),
      tables: await tablesOf(doomed.workspace),
    };
    expect(Object.keys(before.rows)).toEqual(
      expect.arrayContaining([
        'workspaces.id',
        'documents.id',
        'runs.id',
        'sources.workspace_id',
        'source_items.document_id',
      ]),
    );
    expect(before.objects.length).toBeGreaterThanOrEqual(6); // originals and texts of the three left
    expect(before.tables).toHaveLength(2); // chunks, and vectors of m1
    const keptBefore = {
      rows: await rowsOf(kept),
      objects: (await objectsOf(kept.documents)).sort(),
      tables: (await tablesOf(kept.workspace)).sort(),
      hits: (await api.post('/v1/search', { workspaceId: kept.workspace, q: 'car repairs' })).body.results,
    };
    expect(keptBefore.hits.length).toBeGreaterThan(0);

    const deleted = await api.delete(`/v1/workspaces/${doomed.workspace}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({
      workspace: { id: doomed.workspace, name: 'Doomed' },
      documents: 3,
      cancelledRuns: 0,
      storage: 'done',
    });

    expect(await rowsOf(doomed)).toEqual({});
    expect(await objectsOf(doomed.documents)).toEqual([]);
    expect(await tablesOf(doomed.workspace)).toEqual([]);
    const pending = await svc.deps.pool.query('SELECT * FROM workspace_deletions');
    expect(pending.rows).toEqual([]);

    expect((await api.get(`/v1/workspaces/${doomed.workspace}`)).status).toBe(404);
    const search = await api.post('/v1/search', { workspaceId: doomed.workspace, q: 'fleet' });
    expect([search.status, search.body.error.code]).toEqual([404, 'workspace_not_found']);
    expect((await api.get(`/v1/documents/${doomed.documents[0]}`)).status).toBe(404);
    expect((await api.get(`/v1/runs/${doomed.runs[0]}`)).status).toBe(404);
    const ids = (await api.get('/v1/workspaces')).body.workspaces.map((w: { id: string }) => w.id);
    expect(ids).toContain(kept.workspace);
    expect(ids).not.toContain(doomed.workspace);
    expect((await api.delete(`/v1/workspaces/${doomed.workspace}`)).status).toBe(404);

    expect(await rowsOf(kept)).toEqual(keptBefore.rows);
    expect((await objectsOf(kept.documents)).sort()).toEqual(keptBefore.objects);
    expect((await tablesOf(kept.workspace)).sort()).toEqual(keptBefore.tables);
    const hits = (await api.post('/v1/search', { workspaceId: kept.workspace, q: 'car repairs' })).body
      .results;
    expect(hits).toEqual(keptBefore.hits);
    const vector = await api.post('/v1/search', {
      workspaceId: kept.workspace,
      q: 'car repairs',
      mode: 'vector',
    });
    expect(vector.body.results[0].citation.filename).toBe('b-fleet.md');
  });

  it('ends a run in progress, and what a worker holding its documents writes afterwards does not stay', async () => {
    // Someone waits for runs to end: the deletion cancels the run first, and says so.
    const hook = await api.post('/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['run.cancelled'],
    });
    expect(hook.status).toBe(201);
    // The worker parses, writes the texts, indexes the chunks (creating the table) and then waits for
    // the embedding model: the workspace is deleted while it holds the documents.
    const release = models.hold('m1');
    const seen = models.embeddingRequests.length;
    const up = await api.upload(
      [
        { name: 'x.md', content: '# X\n\nThe automobile fleet is serviced every spring.' },
        { name: 'y.md', content: '# Y\n\nStaff get twenty days of holiday.' },
      ],
      { workspaceName: 'Busy' },
    );
    const held: Held = {
      workspace: up.body.workspace.id,
      runs: [up.body.run.id],
      documents: up.body.documents.map((d: { id: string }) => d.id),
    };
    try {
      await waitFor('the worker to ask for vectors', () => models.embeddingRequests.length > seen);
      expect(await tablesOf(held.workspace)).toHaveLength(1);

      const deleted = await api.delete(`/v1/workspaces/${held.workspace}`);
      expect(deleted.body).toMatchObject({ documents: 2, cancelledRuns: 1, storage: 'done' });
      expect(await tablesOf(held.workspace)).toEqual([]);
      expect(await objectsOf(held.documents)).toEqual([]);
    } finally {
      release();
    }
    // The worker gets its vectors and writes them (a vector table again), then finds its documents gone.
    await waitFor('the worker to notice', () =>
      lines.some((l) => l.workspaceId === held.workspace && /deleted during the batch/.test(l.msg)),
    );
    const gone = async () =>
      Object.keys(await rowsOf(held)).length === 0 &&
      (await objectsOf(held.documents)).length === 0 &&
      (await tablesOf(held.workspace)).length === 0 &&
      (await svc.deps.pool.query('SELECT 1 FROM workspace_deletions')).rowCount === 0;
    await waitFor('the reconciler to remove what the worker wrote', gone);
    await holdsFor('nothing of the workspace coming back', gone, 1500);
    expect((await api.get(`/v1/runs/${up.body.run.id}`)).status).toBe(404);
    const events = await svc.deps.pool.query<{ body: string }>(
      `SELECT body FROM webhook_events WHERE type = 'run.cancelled'`,
    );
    const cancelled = events.rows.map((e) => JSON.parse(e.body).data);
    expect(cancelled).toEqual([
      expect.objectContaining({ id: up.body.run.id, workspaceId: held.workspace, status: 'cancelled' }),
    ]);
  });
});
