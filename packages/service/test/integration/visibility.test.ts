import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mayEditWorkspace, mayReadDocument, mayReadWorkspace, memberView } from '../../src/access/policy.js';
import { createPool, type Pool } from '../../src/adapters/postgres/db.js';
import { PgDocumentRepository } from '../../src/adapters/postgres/documents.js';
import { PgRunRepository } from '../../src/adapters/postgres/runs.js';
import { PgWorkspaceRepository } from '../../src/adapters/postgres/workspaces.js';
import type { Audience, DocumentAccess, Grants, Role, WorkspaceAccess } from '../../src/domain/types.js';
import { scopeOf } from '../../src/search/scope.js';
import { createTestDatabases } from '../support/service.js';

/**
 * The access rule is stated once in access/policy.ts and implemented as SQL where the data is
 * (adapters/postgres/visibility.ts, decision 0017). Here the two are held to each other: accounts of
 * random users, groups, workspaces and documents with random access lists, and for every member the
 * repositories answer exactly what the policy says, in every query that filters by it.
 */

const USERS = ['usr_a', 'usr_b', 'usr_c', 'usr_d'];
const GROUPS = ['grp_x', 'grp_y', 'grp_z'];
const ACCOUNT = 'acc_default';

const grants: fc.Arbitrary<Grants> = fc.record({
  users: fc.subarray(USERS),
  groups: fc.subarray(GROUPS),
});
const workspaceAccess: fc.Arbitrary<WorkspaceAccess> = fc.option(fc.record({ read: grants, edit: grants }), {
  nil: null,
});
const documentAccess: fc.Arbitrary<DocumentAccess> = fc.option(grants, { nil: null });
const account = fc.record({
  memberships: fc.array(fc.subarray(GROUPS), { minLength: USERS.length, maxLength: USERS.length }),
  roles: fc.array(fc.constantFrom<Role>('editor', 'reader'), {
    minLength: USERS.length,
    maxLength: USERS.length,
  }),
  workspaces: fc.array(
    fc.record({
      access: workspaceAccess,
      documents: fc.array(documentAccess, { minLength: 0, maxLength: 5 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

let pool: Pool;
let workspaces: PgWorkspaceRepository;
let documents: PgDocumentRepository;
let runs: PgRunRepository;

beforeAll(async () => {
  const dbs = await createTestDatabases();
  pool = createPool(dbs.urls.service, 2, 'visibility-test');
  workspaces = new PgWorkspaceRepository(pool);
  documents = new PgDocumentRepository(pool);
  runs = new PgRunRepository(pool);
});
afterAll(() => pool?.end());

const columns = (g: Grants | null) => (g ? [g.users, g.groups] : [null, null]);

describe('the access rule, in SQL and in the domain', () => {
  it('gives every member exactly the workspaces, documents, runs, counts and search scope the policy allows', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(account, async (acc) => {
        n++;
        const ids: {
          workspace: string;
          access: WorkspaceAccess;
          docs: { id: string; access: DocumentAccess }[];
        }[] = [];
        for (const [w, ws] of acc.workspaces.entries()) {
          const id = `ws_v${n}_${w}`;
          const [ru, rg] = columns(ws.access?.read ?? null);
          const [eu, eg] = columns(ws.access?.edit ?? null);
          await pool.query(
            `INSERT INTO workspaces (id, account_id, read_users, read_groups, edit_users, edit_groups)
             VALUES ($1, $2, $3, $4, $5, $6)`,
            [id, ACCOUNT, ru, rg, eu, eg],
          );
          const runId = `run_v${n}_${w}`;
          await pool.query(
            `INSERT INTO runs (id, account_id, workspace_id, status, kind) VALUES ($1, $2, $3, 'completed', 'upload')`,
            [runId, ACCOUNT, id],
          );
          const docs = [];
          for (const [d, access] of ws.documents.entries()) {
            const docId = `doc_v${n}_${w}_${d}`;
            const [au, ag] = columns(access);
            await pool.query(
              `INSERT INTO documents (id, account_id, workspace_id, run_id, filename, storage_key, status,
                                      language, access_users, access_groups)
               VALUES ($1, $2, $3, $4, $5, $6, 'ready', $7, $8, $9)`,
              [docId, ACCOUNT, id, runId, `${docId}.md`, `raw/${docId}`, d % 2 ? 'de' : 'en', au, ag],
            );
            docs.push({ id: docId, access });
          }
          ids.push({ workspace: id, access: ws.access, docs });
        }
        try {
          for (const [u, userId] of USERS.entries()) {
            const audience: Audience = {
              accountId: ACCOUNT,
              member: memberView(userId, acc.roles[u]!, acc.memberships[u]!),
            };
            const listed = new Set((await workspaces.listWorkspaces(audience)).map((w) => w.id));
            for (const ws of ids) {
              const readable = mayReadWorkspace(audience, ws.access);
              expect(listed.has(ws.workspace), `list ${ws.workspace} for ${userId}`).toBe(readable);
              const found = await workspaces.getWorkspace(audience, ws.workspace);
              expect(found !== undefined).toBe(readable);
              if (found)
                expect(mayEditWorkspace(audience, found.access)).toBe(mayEditWorkspace(audience, ws.access));
              const visible = ws.docs
                .filter((d) => mayReadDocument(audience, ws.access, d.access))
                .map((d) => d.id);
              const listedDocs = (await documents.listDocuments(audience, ws.workspace)).map((d) => d.id);
              expect(listedDocs.sort()).toEqual([...visible].sort());
              for (const d of ws.docs)
                expect((await documents.getDocument(audience, d.id)) !== undefined).toBe(
                  visible.includes(d.id),
                );
              if (readable) {
                expect((await documents.countsByStatus(audience, ws.workspace)).total).toBe(visible.length);
                // The search scope lets through exactly the visible documents, whichever list it keeps.
                const context = (await workspaces.searchContext(audience, ws.workspace))!;
                const scope = scopeOf(undefined, context.visibility);
                const allowed = ws.docs
                  .map((d) => d.id)
                  .filter(
                    (id) =>
                      (scope.documentIds === undefined || scope.documentIds.includes(id)) &&
                      !(scope.excludeDocumentIds ?? []).includes(id),
                  );
                expect(allowed.sort()).toEqual([...visible].sort());
                const languages = [
                  ...new Set(visible.map((id) => (Number(id.at(-1)) % 2 ? 'de' : 'en'))),
                ].sort();
                if (context.visibility) expect(context.languages).toEqual(languages);
                const run = await runs.getRun(audience, `run_v${n}_${ids.indexOf(ws)}`);
                const seesRun = ws.docs.length === 0 || visible.length > 0;
                expect(run !== undefined, `run of ${ws.workspace} for ${userId}`).toBe(seesRun);
                if (run) expect(run.counts.total).toBe(visible.length);
              } else {
                expect(await workspaces.searchContext(audience, ws.workspace)).toBeUndefined();
                expect(await runs.getRun(audience, `run_v${n}_${ids.indexOf(ws)}`)).toBeUndefined();
              }
            }
          }
        } finally {
          await pool.query('DELETE FROM workspaces WHERE id = ANY($1::text[])', [
            ids.map((w) => w.workspace),
          ]);
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
