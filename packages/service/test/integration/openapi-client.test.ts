import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components, operations } from '../../../sdk/src/generated/openapi.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * A client generated from the served OpenAPI document (openapi-typescript, checked in as the SDK's
 * src/generated/openapi.ts) used with plain fetch against the real service: `npm run typecheck` holds
 * the requests built and the fields read here to the generated types, and this test holds the
 * service's answers to them.
 */

/** The JSON a response of an operation carries. */
type Answer<
  Op extends keyof operations,
  Status extends keyof operations[Op]['responses'],
> = operations[Op]['responses'][Status] extends { content: { 'application/json': infer Body } }
  ? Body
  : never;
/** The JSON body an operation takes. */
type Sent<Op extends keyof operations> = operations[Op] extends {
  requestBody: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;
type UploadFields = NonNullable<operations['upload']['requestBody']>['content']['multipart/form-data'];

let svc: TestService;
let auth: { authorization: string };

beforeAll(async () => {
  svc = await startTestService();
  auth = { authorization: `Bearer ${await svc.key()}` };
});
afterAll(() => svc?.close());

async function send<Op extends keyof operations, Status extends keyof operations[Op]['responses']>(
  _op: Op,
  status: Status,
  path: string,
  init: { method?: string; json?: Sent<Op>; form?: FormData; noKey?: boolean } = {},
): Promise<Answer<Op, Status>> {
  const res = await fetch(svc.url + path, {
    method: init.method ?? (init.json || init.form ? 'POST' : 'GET'),
    headers: {
      ...(init.noKey ? {} : auth),
      ...(init.json ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.json ? { body: JSON.stringify(init.json) } : init.form ? { body: init.form } : {}),
  });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(Number(status));
  return body as Answer<Op, Status>;
}

/** The upload's form, its field names taken from the generated type. */
function uploadForm(fields: Omit<UploadFields, 'files'>, files: { name: string; text: string }[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields) as [keyof UploadFields, string][])
    form.append(name, value);
  const field: keyof UploadFields = 'files';
  for (const f of files) form.append(field, new Blob([f.text], { type: 'text/markdown' }), f.name);
  return form;
}

describe('a client generated from /openapi.json', () => {
  it('creates a workspace, uploads, waits, searches, is refused a file, renames and deletes, all by its types', async () => {
    const formats = await send('listFormats', 200, '/v1/formats', { noKey: true });
    const names: string[] = formats.formats.map((f) => f.name);
    expect(names).toContain('Markdown');

    const created = await send('createWorkspace', 201, '/v1/workspaces', {
      json: { name: 'Typed', description: 'Made by the generated client', metadata: { origin: 'openapi' } },
    });
    const workspace: components['schemas']['Workspace'] = created;
    expect(workspace).toMatchObject({ name: 'Typed', metadata: { origin: 'openapi' } });

    const upload = await send('upload', 202, '/v1/ingest/bulk', {
      form: uploadForm({ workspaceId: workspace.id }, [
        {
          name: 'leave.md',
          text: '# Leave\n\nEvery employee gets twenty-five days of paid vacation a year.',
        },
      ]),
    });
    expect(upload.workspace.id).toBe(workspace.id);
    let progress = await send('getRunProgress', 200, `/v1/runs/${upload.run.id}/progress`);
    for (const until = Date.now() + 30_000; !progress.done && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 100));
      progress = await send('getRunProgress', 200, `/v1/runs/${upload.run.id}/progress`);
    }
    expect(progress).toMatchObject({ status: 'completed', counts: { ready: 1 } });

    const found = await send('search', 200, '/v1/search', {
      json: { workspaceId: workspace.id, q: 'how many vacation days', topK: 3, mode: 'lexical' },
    });
    const hit: components['schemas']['SearchHit'] = found.results[0]!;
    expect(hit.citation).toMatchObject({ filename: 'leave.md', documentId: upload.documents[0]!.id });
    expect(hit.snippet.highlights.length).toBeGreaterThan(0);

    const refused = await send('upload', 415, '/v1/ingest/bulk', {
      form: uploadForm({ workspaceId: workspace.id }, [{ name: 'empty.md', text: '' }]),
    });
    const files: components['schemas']['RefusedFile'][] = refused.error.files ?? [];
    expect(files).toEqual([
      { index: 0, filename: 'empty.md', code: 'empty_document', reason: 'the file is empty' },
    ]);
    expect(refused.error.supportedFormats).toEqual(names);

    const renamed = await send('updateWorkspace', 200, `/v1/workspaces/${workspace.id}`, {
      method: 'PATCH',
      json: { name: 'Typed, renamed', description: null },
    });
    expect([renamed.name, renamed.description]).toEqual(['Typed, renamed', null]);
    const listed = await send('listWorkspaces', 200, '/v1/workspaces');
    expect(listed.workspaces.find((w) => w.id === workspace.id)?.counts.ready).toBe(1);

    const deleted = await send('deleteWorkspace', 200, `/v1/workspaces/${workspace.id}`, {
      method: 'DELETE',
    });
    const storage: 'done' | 'pending' = deleted.storage;
    expect([deleted.documents, deleted.cancelledRuns, storage]).toEqual([1, 0, 'done']);
    const gone = await send('getWorkspace', 404, `/v1/workspaces/${workspace.id}`);
    expect(gone.error.code).toBe('workspace_not_found');
  });
});
