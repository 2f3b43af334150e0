import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * A client as its users make one: types generated with openapi-typescript from the document the
 * running service serves, calls made with openapi-fetch, compiled by tsc under --strict. The plain
 * chat call must type as the JSON answer (a stream declared beside it as a second media type of the
 * same 200 made `data` a union, TS2339 under strict), and the stream is still there for who asks.
 */

const run = promisify(execFile);
const repo = path.resolve(packageRoot(), '..', '..');
const tsc = path.join(repo, 'node_modules', '.bin', 'tsc');

/** What a user writes: each call's result assigned to the types the API documents. */
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './openapi.js';

export async function ask(baseUrl: string, key: string, workspaceId: string, q: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });
  const { data, error } = await client.POST('/v1/search/chat', { body: { workspaceId, q } });
  if (error) throw new Error(error.error.code);
  const answer: string = data.answer;
  const cited: string[] = data.citations.map((c) => c.filename);
  return { answer, cited };
}

export async function complete(baseUrl: string, key: string, workspaceId: string, question: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });
  const { data, error } = await client.POST('/v1/workspaces/{workspaceId}/openai/chat/completions', {
    params: { path: { workspaceId } },
    body: { model: 'docslurp', messages: [{ role: 'user', content: question }] },
  });
  if (error) throw new Error(error.error.message);
  const content: string = data.choices[0]!.message.content;
  return content;
}

export async function askStreaming(baseUrl: string, key: string, workspaceId: string, q: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });
  const { data, error } = await client.POST('/v1/search/chat', {
    body: { workspaceId, q, stream: true },
    parseAs: 'stream',
  });
  if (error || !data) throw new Error('no stream');
  const events: string = await new Response(data).text();
  return events;
}
`;

let svc: TestService;
let key: string;
let served: OpenAPI3;
let work: string;

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.key();
  served = (await (await fetch(`${svc.url}/openapi.json`)).json()) as OpenAPI3;
  // Inside the repository, so that the client's imports resolve to its node_modules.
  const cache = path.join(repo, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  work = await mkdtemp(path.join(cache, 'docslurp-openapi-fetch-'));
});
afterAll(async () => {
  await svc?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Writes the generated types and the client into a folder of their own and compiles them strictly. */
async function compile(doc: OpenAPI3, name: string): Promise<{ ok: boolean; output: string; dir: string }> {
  const dir = path.join(work, name);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), '{"type": "module"}\n');
  await writeFile(path.join(dir, 'openapi.ts'), astToString(await openapiTS(doc, { silent: true })));
  await writeFile(path.join(dir, 'client.ts'), CLIENT);
  const args = [
    '--strict',
    '--target',
    'es2022',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--lib',
    'es2022,dom,dom.iterable',
    '--skipLibCheck',
    '--outDir',
    path.join(dir, 'out'),
    path.join(dir, 'client.ts'),
  ];
  return run(tsc, args, { cwd: dir }).then(
    () => ({ ok: true, output: '', dir }),
    (err: { stdout?: string }) => ({ ok: false, output: err.stdout ?? String(err), dir }),
  );
}

let current: ReturnType<typeof compile> | undefined;
/** The client compiled against the served document, once for both tests. */
const compiled = () => {
  current ??= compile(served, 'now');
  return current;
};

/** The document as it was before: each stream as a second media type of the JSON answer's 200. */
function streamBesideJson(doc: OpenAPI3): OpenAPI3 {
  const old = structuredClone(doc) as unknown as {
    paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>>;
  };
  for (const item of Object.values(old.paths))
    for (const op of Object.values(item)) {
      const ok = op.responses?.['200'] as
        | { content: Record<string, unknown>; 'x-stream'?: { content: Record<string, unknown> } }
        | undefined;
      if (ok?.['x-stream']) Object.assign(ok.content, ok['x-stream'].content);
    }
  return old as unknown as OpenAPI3;
}

describe('an openapi-fetch client generated from /openapi.json', () => {
  it('compiles under --strict with the plain chat typed as its JSON answer, which it was not before', async () => {
    const now = await compiled();
    expect(now.output).toBe('');
    expect(now.ok).toBe(true);
    // The same client against the stream described beside the JSON: `data` is a union with string.
    const before = await compile(streamBesideJson(served), 'before');
    expect(before.ok).toBe(false);
    expect(before.output).toMatch(/client\.ts\(\d+,\d+\): error TS2339: Property 'answer' does not exist/);
    expect(before.output).toMatch(/error TS2339: Property 'choices' does not exist/);
  });

  it('gets typed answers from the running service, and the stream when it asks for one', async () => {
    const { dir, ok } = await compiled();
    expect(ok).toBe(true);
    const client = (await import(pathToFileURL(path.join(dir, 'out', 'client.js')).href)) as {
      ask(url: string, key: string, ws: string, q: string): Promise<{ answer: string; cited: string[] }>;
      complete(url: string, key: string, ws: string, q: string): Promise<string>;
      askStreaming(url: string, key: string, ws: string, q: string): Promise<string>;
    };
    const auth = { authorization: `Bearer ${key}` };
    const workspace = (await (
      await fetch(`${svc.url}/v1/workspaces`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Typed chat' }),
      })
    ).json()) as { id: string };
    const form = new FormData();
    form.append('workspaceId', workspace.id);
    form.append(
      'files',
      new Blob(['# Leave\n\nEvery employee gets twenty-five days of paid vacation a year.'], {
        type: 'text/markdown',
      }),
      'leave.md',
    );
    const upload = (await (
      await fetch(`${svc.url}/v1/ingest/bulk`, { method: 'POST', headers: auth, body: form })
    ).json()) as { run: { id: string } };
    let done = false;
    while (!done) {
      const progress = (await (
        await fetch(`${svc.url}/v1/runs/${upload.run.id}/progress`, { headers: auth })
      ).json()) as { done: boolean; status: string };
      done = progress.done;
      if (!done) await new Promise((r) => setTimeout(r, 100));
      else expect(progress.status).toBe('completed');
    }

    const question = 'How many days of paid vacation does an employee get?';
    const { answer, cited } = await client.ask(svc.url, key, workspace.id, question);
    expect(answer).toMatch(/twenty-five days/);
    expect(cited).toEqual(['leave.md']);
    expect(await client.complete(svc.url, key, workspace.id, question)).toMatch(/twenty-five days/);
    const events = await client.askStreaming(svc.url, key, workspace.id, question);
    expect(events).toMatch(/^event: delta\n/m);
    expect(events).toMatch(/^event: done\ndata: \{"answer":".*twenty-five days/m);
  });
});
