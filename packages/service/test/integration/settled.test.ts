import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * The same answer whenever asked (issue 24): rows not yet folded into the full-text index are scored
 * apart and rank differently, so a run completes only once the index maintenance has folded its rows
 * in. A client that searches as soon as its run completed gets what it gets later.
 */
let svc: TestService;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  svc = await startTestService();
  api = client(svc.url, await svc.key());
});
afterAll(() => svc?.close());

/** Rows of the workspace's table outside its full-text index, read straight from LanceDB. */
async function unindexedRows(workspaceId: string): Promise<number> {
  const db = await lancedb.connect(path.join(svc.dataDir, 'index'), { readConsistencyInterval: 0 });
  try {
    const table = await db.openTable(workspaceId);
    const fts = (await table.listIndices()).find((i) => i.columns.includes('terms'))!;
    const stats = await table.indexStats(fts.name);
    table.close();
    return stats?.numUnindexedRows ?? -1;
  } finally {
    db.close();
  }
}

const topics = ['vacation', 'travel', 'parking', 'security', 'laptops', 'printing', 'payroll', 'badges'];
const doc = (topic: string, n: number) =>
  `# ${topic} ${n}\n\nThe ${topic} policy number ${n} explains who approves ${topic} requests and how long ${topic} records are kept.`;

describe('a completed run', () => {
  it('has every row in the full-text index, so its answers do not change afterwards', async () => {
    const first = await api.upload(
      topics.map((t) => ({ name: `${t}.md`, content: doc(t, 1), type: 'text/markdown' })),
    );
    const workspaceId = first.body.workspace.id as string;
    await api.waitForRun(first.body.run.id);
    // A second run into the same table: its rows must be folded in before it is reported complete.
    const second = await api.upload(
      topics.map((t) => ({ name: `${t}-2.md`, content: doc(t, 2), type: 'text/markdown' })),
      { workspaceId },
    );
    const done = await api.waitForRun(second.body.run.id);
    expect(done.status).toBe('completed');
    expect(await unindexedRows(workspaceId)).toBe(0);
    const ask = async () =>
      (
        await api.post('/v1/search', { workspaceId, q: 'who approves vacation requests', topK: 10 })
      ).body.results.map((h: { citation: { chunkId: string }; score: number }) => [
        h.citation.chunkId,
        h.score.toFixed(6),
      ]);
    const atCompletion = await ask();
    await svc.deps.index.optimize(workspaceId);
    expect(await ask()).toEqual(atCompletion);
  });
});
