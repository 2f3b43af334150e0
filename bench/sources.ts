/**
 * Syncing a folder source through the whole service (embedded mode, as `npm start` runs it): the
 * SciFact abstracts (5,000 by default, from the shared data folder) written as text files to a folder
 * under SOURCE_FOLDER_ROOTS, then
 *
 * 1. the first sync: every file new, so listed, hashed, recorded, fetched, parsed, chunked and indexed;
 *    timed from the sync request to the completion of its run;
 * 2. a second sync with nothing changed: listed (a stat per file), compared, nothing written; the target
 *    is under 10 % of the first;
 * 3. a third with `--changed` files edited (default 50): only those are processed again;
 * 4. the reference: the same files uploaded into a new workspace (500 a request, one after the other),
 *    which the first sync is held to (as fast as an upload of the same files).
 *
 * Options: --files N (default 5000); --changed N (default 50); --env KEY=VALUE (service setting,
 * repeatable); --label NAME (results file name, default sources).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { client } from '../packages/service/test/support/http.js';
import { embeddedDataDir, spawnServe } from '../packages/service/test/support/spawn.js';
import { dataDir, loadSciFact } from './lib/data.js';
import { parseBenchArgs, writeResults } from './lib/results.js';
import { describeMachine } from './machine.js';

const { env: extraEnv, opts } = parseBenchArgs(process.argv.slice(2));
const FILES = Number(opts.files ?? 5000);
const CHANGED = Number(opts.changed ?? 50);
const LABEL = opts.label ?? 'sources';
const KEY = 'bench-sources-key-0123456789abcdef';
const log = (s: string) => process.stdout.write(`${s}\n`);

const root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-bench-sources-'));
const folder = path.join(root, 'scifact');
await mkdir(folder);
const docs = loadSciFact(dataDir()).corpus.slice(0, FILES);
for (const d of docs) await writeFile(path.join(folder, `scifact-${d.id}.txt`), `${d.title}\n\n${d.text}\n`);
log(`${docs.length} files in ${folder}`);

const dir = await embeddedDataDir();
const loadStart = os.loadavg()[0]!;
const serve = await spawnServe(dir, {
  SERVICE_BOOTSTRAP_API_KEY: KEY,
  RATE_LIMIT_PER_MINUTE: '0',
  SOURCE_FOLDER_ROOTS: root,
  LOG_LEVEL: 'warn',
  ...extraEnv,
});
try {
  const api = client(serve.url, KEY);
  const workspaceId = (await api.post('/v1/workspaces', { name: 'scifact folder' })).body.id as string;
  const source = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
    type: 'folder',
    settings: { path: folder },
  });
  if (source.status !== 201) throw new Error(`source: ${source.status} ${JSON.stringify(source.body)}`);
  const sync = async (what: string) => {
    const t0 = performance.now();
    const r = await api.post(`/v1/workspaces/${workspaceId}/sources/${source.body.id}/sync`, {});
    // The run's record (not its progress, which lists every document) every 100 ms: polling must
    // not take the CPU the worker of this same process needs.
    let run = r.body.run;
    // Until the run holds documents, the source is being listed and the listing recorded.
    let listedMs: number | undefined;
    while (run.status === 'processing') {
      await new Promise((res) => setTimeout(res, 100));
      run = (await api.get(`/v1/runs/${run.id}`)).body;
      if (listedMs === undefined && run.counts.total > 0) listedMs = Math.round(performance.now() - t0);
    }
    const ms = Math.round(performance.now() - t0);
    if (run.status !== 'completed')
      throw new Error(`${what}: run ${run.status} ${JSON.stringify(run.error)}`);
    log(
      `${what}: ${ms} ms, ${run.counts.total} documents processed (${run.counts.ready} ready); listed and recorded after ${listedMs ?? '–'} ms`,
    );
    return { ms, listedMs, documents: run.counts.total as number, ready: run.counts.ready as number };
  };
  const first = await sync('first sync');
  const second = await sync('second sync, nothing changed');
  for (const d of docs.slice(0, CHANGED))
    await writeFile(path.join(folder, `scifact-${d.id}.txt`), `${d.title}\n\n${d.text}\nRevised.\n`);
  const third = await sync(`third sync, ${CHANGED} files changed`);
  const ratio = second.ms / first.ms;
  log(`second / first: ${(ratio * 100).toFixed(2)} % (target < 10 %)`);
  // The reference: the same files uploaded into a new workspace, 500 a request one after the other
  // (as bench:ingest does), after the syncs, so that it, not the first sync, gets the warmed process.
  const upload = await (async () => {
    const t0 = performance.now();
    let uploadWorkspace: string | undefined;
    const runs: string[] = [];
    for (let i = 0; i < docs.length; i += 500) {
      const form = new FormData();
      if (uploadWorkspace) form.append('workspaceId', uploadWorkspace);
      for (const d of docs.slice(i, i + 500))
        form.append(
          'files',
          new Blob([`${d.title}\n\n${d.text}\n`], { type: 'text/plain' }),
          `scifact-${d.id}.txt`,
        );
      const r = await fetch(`${serve.url}/v1/ingest/bulk`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}` },
        body: form,
      });
      const body = (await r.json()) as { workspace: { id: string }; run: { id: string } };
      if (!r.ok) throw new Error(`upload: ${r.status} ${JSON.stringify(body)}`);
      uploadWorkspace = body.workspace.id;
      runs.push(body.run.id);
    }
    let ready = 0;
    for (const id of runs) {
      let run = (await api.get(`/v1/runs/${id}`)).body;
      while (run.status === 'processing') {
        await new Promise((res) => setTimeout(res, 100));
        run = (await api.get(`/v1/runs/${id}`)).body;
      }
      if (run.status !== 'completed')
        throw new Error(`upload: run ${run.status} ${JSON.stringify(run.error)}`);
      ready += run.counts.ready as number;
    }
    const ms = Math.round(performance.now() - t0);
    log(`the same files uploaded: ${ms} ms, ${ready} ready`);
    return { ms, documents: docs.length, ready };
  })();
  const firstOverUpload = first.ms / upload.ms;
  log(`first sync / upload: ${firstOverUpload.toFixed(2)} (target: 1)`);
  const machine = describeMachine();
  const date = new Date().toISOString().slice(0, 10);
  const json = {
    date,
    files: docs.length,
    changed: CHANGED,
    env: extraEnv,
    first,
    second,
    third,
    secondOverFirst: Number(ratio.toFixed(4)),
    upload,
    firstOverUpload: Number(firstOverUpload.toFixed(3)),
    load: { start: loadStart, end: os.loadavg()[0] },
    machine,
  };
  const md = [
    `# Folder source sync benchmark (${date})`,
    '',
    `Embedded mode (\`docslurp serve\`), default settings${Object.keys(extraEnv).length ? ` and ${JSON.stringify(extraEnv)}` : ''}. A folder of ${docs.length} SciFact abstracts (one text file each) under \`SOURCE_FOLDER_ROOTS\`; each time from the sync request to the completion of its run.`,
    '',
    '| sync | time | of which listing and recording it (until the run holds documents) | documents processed |',
    '|---|---|---|---|',
    `| first (all new) | ${first.ms} ms | ${first.listedMs ?? '–'} ms | ${first.documents} |`,
    `| second (nothing changed) | ${second.ms} ms | – | ${second.documents} |`,
    `| third (${CHANGED} changed) | ${third.ms} ms | ${third.listedMs ?? '–'} ms | ${third.documents} |`,
    '',
    `Second over first: **${(ratio * 100).toFixed(2)} %** (target: under 10 %).`,
    '',
    `Reference: the same files uploaded into a new workspace of the same service after the syncs, 500 a request one after the other: ${upload.ms} ms (${upload.ready} ready). First sync over upload: **${firstOverUpload.toFixed(2)}** (target: 1).`,
    '',
    `Machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.node}; load ${loadStart.toFixed(2)} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end (shared with other work).`,
  ].join('\n');
  for (const f of writeResults(LABEL, json, md)) log(`wrote ${f}`);
} finally {
  await serve.stop();
  await rm(dir, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
}
