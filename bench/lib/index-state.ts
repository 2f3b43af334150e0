import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';

/** BM25 index state of a workspace's table, read straight from LanceDB: rows, and rows not yet indexed. */
export async function indexState(indexUri: string, workspaceId: string) {
  const db = await lancedb.connect(indexUri, { readConsistencyInterval: 0 });
  try {
    const t = await db.openTable(workspaceId.replaceAll(':', '_'));
    const fts = (await t.listIndices()).find(
      (i) => i.columns.includes('terms') || i.columns.includes('search_text'),
    );
    const stats = fts ? await t.indexStats(fts.name) : undefined;
    const rows = await t.countRows();
    t.close();
    return { rows, unindexed: stats ? stats.numUnindexedRows : rows };
  } finally {
    db.close();
  }
}

/**
 * Waits until the worker's background maintenance has folded every row of the workspace into the BM25
 * index. Until then BM25 scores rows outside the index by a scan, so the same query can rank a little
 * differently before and after: measurements wait, so that every run sees the same index.
 */
export async function waitForIndexed(indexUri: string, workspaceId: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await indexState(indexUri, workspaceId);
    if (state.unindexed === 0 || Date.now() > deadline) return state;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/**
 * What a workspace's table holds on disk (a local index folder): versions, fragments, files and
 * bytes. Many small commits leave many versions and files until the worker's maintenance removes them.
 */
export async function indexFootprint(indexUri: string, workspaceId: string) {
  const name = workspaceId.replaceAll(':', '_');
  const db = await lancedb.connect(indexUri, { readConsistencyInterval: 0 });
  try {
    const t = await db.openTable(name);
    const versions = (await t.listVersions()).length;
    const fragments = (await t.stats()).fragmentStats.numFragments;
    t.close();
    let files = 0;
    let bytes = 0;
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else {
          files++;
          bytes += statSync(p).size;
        }
      }
    };
    walk(path.join(indexUri, `${name}.lance`));
    return { versions, fragments, files, megabytes: Number((bytes / 2 ** 20).toFixed(1)) };
  } finally {
    db.close();
  }
}
