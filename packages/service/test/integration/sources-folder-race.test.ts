import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Issue 26, finding 4: a user who can write inside an allowed root swaps a folder for a symbolic
 * link to somewhere else, over and over, while the service lists and reads the folder. Checking a
 * path and then opening it again by its string let 52 of 202 documents read files outside the root
 * (the service's own encryption key among them). Here a separate process swaps the folder as fast
 * as it can while real syncs run; no document may ever hold what lies outside.
 */

const FILES = 40;
/**
 * Syncs to run: at least the first, and more until one of them found the folder in place. Each sync
 * meets the folder as a folder or as a link by chance (as the swapper leaves it at each moment), so a
 * few in a row may list nothing; each one is a try of the attack either way.
 */
const ROUNDS = 4;
const MAX_ROUNDS = 16;
const SECRET = 'OUTSIDE-THE-ROOT';

/**
 * Exchanges `docs` (a folder) and `evil` (a link to the outside folder) atomically with
 * renameat2(RENAME_EXCHANGE), as the attack did, in a tight loop until killed: at every moment one
 * of the two names is the real folder and the other the link.
 */
const SWAPPER = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = (p.encode() for p in sys.argv[1:3])
while True:
    libc.renameat2(-100, a, -100, b, 2)
`;

describe('a folder swapped for a symbolic link while it is synced', () => {
  let tmp: string;
  let svc: TestService;
  let api: ReturnType<typeof client>;
  let swapper: ChildProcess | undefined;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'docslurp-race-'));
    const site = path.join(tmp, 'root', 'site');
    await mkdir(path.join(site, 'docs'), { recursive: true });
    await mkdir(path.join(tmp, 'outside'));
    for (let i = 0; i < FILES; i++) {
      const name = `page-${String(i).padStart(3, '0')}.md`;
      await writeFile(
        path.join(site, 'docs', name),
        `# Page ${i}\n\nThe inside page number ${i} of the handbook.\n`,
      );
      await writeFile(path.join(tmp, 'outside', name), `# Secret ${i}\n\n${SECRET} number ${i}.\n`);
    }
    await symlink(path.join(tmp, 'outside'), path.join(site, 'evil'));
    svc = await startTestService({ env: { SOURCE_FOLDER_ROOTS: path.join(tmp, 'root') } });
    api = client(svc.url, await svc.key());
  });
  afterAll(async () => {
    swapper?.kill('SIGKILL');
    await svc?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('never makes a document of what lies outside the root', async () => {
    const site = path.join(tmp, 'root', 'site');
    swapper = spawn('python3', ['-c', SWAPPER, path.join(site, 'docs'), path.join(site, 'evil')], {
      stdio: 'ignore',
    });
    const workspaceId = (await api.post('/v1/workspaces', { name: 'race' })).body.id as string;
    let ready = 0;
    let listed = 0;
    // A new source each round: every file it lists is a new document, read by the worker when it
    // starts, while the swapping goes on.
    for (let round = 0; round < MAX_ROUNDS && (round < ROUNDS || ready === 0); round++) {
      const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
        type: 'folder',
        settings: { path: site },
      });
      expect(created.status).toBe(201);
      const started = await api.post(`/v1/workspaces/${workspaceId}/sources/${created.body.id}/sync`, {});
      const run = await api.waitForRun(started.body.run.id, 120_000);
      listed += run.counts.total;
      ready += run.counts.ready;
    }
    swapper.kill('SIGKILL');
    const docs = (await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents as {
      id: string;
      status: string;
    }[];
    for (const doc of docs.filter((d) => d.status === 'ready')) {
      const text = await api.get(`/v1/documents/${doc.id}/text`);
      expect(text.status).toBe(200);
      expect(String(text.body)).not.toContain(SECRET);
      expect(String(text.body)).toContain('inside page number');
    }
    const hits = await api.post('/v1/search', { workspaceId, q: `${SECRET} number` });
    expect(hits.body.results.map((h: { text: string }) => h.text).join('\n')).not.toContain(SECRET);
    // The race was real: syncs listed the folder and read files while it was being swapped.
    expect(listed).toBeGreaterThan(0);
    expect(ready).toBeGreaterThan(0);
  });
});
