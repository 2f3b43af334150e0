// Over 400 lines: the whole route table and the rules it is checked by, over fixtures built once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_SCOPES } from '../../src/access/policy.js';
import { createApiKey } from '../../src/domain/keys.js';
import type { Role, Scope } from '../../src/domain/types.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Every route of the OpenAPI document × each role × a target the caller may see (and edit), one it
 * may see but not edit, and one it may not see, through a session, a key bound to the user and a key
 * acting on the user's behalf (issue 39). The list of routes comes from the served document, so a
 * new route without a row here fails instead of going unchecked.
 *
 * What to expect follows from the rules of decision 0017, stated here independently of the code: a
 * route needs a scope, and a role allows some scopes (403); owners and admins see everything;
 * others do not find what they may not see (404), may read what they may see, edit only where they
 * are editors (403 otherwise), and never manage access, workspaces' deletion, webhooks, keys or people.
 */

type Kind =
  /** Reads something of a workspace (the target). */
  | 'read'
  /** Changes something in a workspace: editors of it, owners and admins. */
  | 'edit'
  /** Deletes a workspace: owners and admins only. */
  | 'manage'
  /** Needs no target: what the whole account holds (what the caller sees of it). */
  | 'account'
  /** Webhooks: owners and admins. */
  | 'webhooks'
  /** Key management: a session of an owner or admin. */
  | 'keys'
  /** People, groups, audit: the admin scope, which only owners' and admins' roles allow. */
  | 'people'
  /** An evaluation: its creator's and the whole account's (the fixtures are the account key's). */
  | 'own'
  /** Setting quotas: the service's operator (SERVICE_BOOTSTRAP_API_KEY) only, no account's people. */
  | 'operator';
/** What a route is about, and so which fixture stands for a visible, read-only or hidden one. */
type Target = 'workspace' | 'document' | 'run' | 'source' | 'questionSet' | 'evaluation' | 'none';

interface Row {
  /** Scopes of which any one opens the route. */
  scopes: Scope[];
  kind: Kind;
  target: Target;
  /** Removes what it is called on: given a fresh target each time it is allowed. */
  destructive?: boolean;
}
const row = (scopes: Scope | Scope[], kind: Kind, target: Target, destructive = false): Row => ({
  scopes: Array.isArray(scopes) ? scopes : [scopes],
  kind,
  target,
  destructive,
});

const MATRIX: Record<string, Row> = {
  'POST /v1/ingest/bulk': row('ingest', 'edit', 'workspace'),
  'POST /v1/ingest/urls': row('ingest', 'edit', 'workspace'),
  'GET /v1/runs/{id}': row('ingest', 'read', 'run'),
  'GET /v1/runs/{id}/progress': row('ingest', 'read', 'run'),
  'POST /v1/runs/{id}/pause': row('ingest', 'edit', 'run'),
  'POST /v1/runs/{id}/resume': row('ingest', 'edit', 'run'),
  'POST /v1/runs/{id}/cancel': row('ingest', 'edit', 'run'),
  'POST /v1/runs/{id}/reprocess': row('ingest', 'edit', 'run'),
  'POST /v1/search': row('search', 'read', 'workspace'),
  'GET /v1/search': row('search', 'read', 'workspace'),
  'POST /v1/search/chat': row('search', 'read', 'workspace'),
  'GET /v1/workspaces': row('artifacts', 'account', 'none'),
  'POST /v1/workspaces': row('ingest', 'account', 'none'),
  'GET /v1/workspaces/{id}': row('artifacts', 'read', 'workspace'),
  'PATCH /v1/workspaces/{id}': row('ingest', 'edit', 'workspace'),
  'DELETE /v1/workspaces/{id}': row('ingest', 'manage', 'workspace', true),
  'GET /v1/workspaces/{id}/documents': row('artifacts', 'read', 'workspace'),
  'GET /v1/workspaces/{id}/availability': row('search', 'read', 'workspace'),
  'GET /v1/workspaces/{id}/runs': row('ingest', 'read', 'workspace'),
  'GET /v1/documents/{id}': row('artifacts', 'read', 'document'),
  'GET /v1/documents/{id}/text': row('artifacts', 'read', 'document'),
  'GET /v1/documents/{id}/content': row('artifacts', 'read', 'document'),
  'PATCH /v1/documents/{id}': row('ingest', 'edit', 'document'),
  'DELETE /v1/documents/{id}': row('ingest', 'edit', 'document', true),
  'POST /v1/documents/{id}/reprocess': row('ingest', 'edit', 'document'),
  'GET /v1/overview': row('artifacts', 'account', 'none'),
  'GET /v1/quotas': row('artifacts', 'account', 'none'),
  'GET /v1/accounts/{accountId}/quotas': row('admin', 'people', 'none'),
  'PATCH /v1/accounts/{accountId}/quotas': row('admin', 'operator', 'none'),
  'POST /v1/workspaces/{workspaceId}/openai/chat/completions': row('search', 'read', 'workspace'),
  'GET /v1/workspaces/{workspaceId}/openai/models': row('search', 'read', 'workspace'),
  'POST /v1/workspaces/{workspaceId}/mcp': row(['search', 'artifacts'], 'read', 'workspace'),
  'GET /v1/workspaces/{workspaceId}/mcp': row(['search', 'artifacts'], 'read', 'workspace'),
  'DELETE /v1/workspaces/{workspaceId}/mcp': row(['search', 'artifacts'], 'read', 'workspace'),
  'POST /v1/webhooks': row('ingest', 'webhooks', 'none'),
  'GET /v1/webhooks': row('ingest', 'webhooks', 'none'),
  'GET /v1/webhooks/{id}': row('ingest', 'webhooks', 'none'),
  'DELETE /v1/webhooks/{id}': row('ingest', 'webhooks', 'none', true),
  'GET /v1/webhooks/{id}/deliveries': row('ingest', 'webhooks', 'none'),
  'POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver': row('ingest', 'webhooks', 'none'),
  'GET /v1/source-types': row(['ingest', 'artifacts'], 'account', 'none'),
  'POST /v1/workspaces/{id}/sources': row('ingest', 'edit', 'workspace'),
  'GET /v1/workspaces/{id}/sources': row('artifacts', 'read', 'workspace'),
  'GET /v1/workspaces/{id}/sources/{sourceId}': row('artifacts', 'read', 'source'),
  'PATCH /v1/workspaces/{id}/sources/{sourceId}': row('ingest', 'edit', 'source'),
  'DELETE /v1/workspaces/{id}/sources/{sourceId}': row('ingest', 'edit', 'source', true),
  'POST /v1/workspaces/{id}/sources/{sourceId}/sync': row('ingest', 'edit', 'source'),
  'POST /v1/workspaces/{id}/question-sets': row('ingest', 'edit', 'workspace'),
  'GET /v1/workspaces/{id}/question-sets': row(['search', 'artifacts'], 'read', 'workspace'),
  'GET /v1/question-sets/{id}': row(['search', 'artifacts'], 'read', 'questionSet'),
  'DELETE /v1/question-sets/{id}': row('ingest', 'edit', 'questionSet', true),
  'POST /v1/evaluations': row('search', 'read', 'questionSet'),
  'GET /v1/workspaces/{id}/evaluations': row(['search', 'artifacts'], 'read', 'workspace'),
  'GET /v1/evaluations/{id}': row(['search', 'artifacts'], 'own', 'evaluation'),
  'GET /v1/evaluations/{id}/questions': row(['search', 'artifacts'], 'own', 'evaluation'),
  'GET /v1/evaluations/{id}/compare/{other}': row(['search', 'artifacts'], 'own', 'evaluation'),
  'POST /v1/evaluations/{id}/cancel': row('search', 'own', 'evaluation'),
  'DELETE /v1/evaluations/{id}': row('search', 'own', 'evaluation', true),
  'GET /v1/keys': row([], 'keys', 'none'),
  'POST /v1/keys': row([], 'keys', 'none'),
  'DELETE /v1/keys/{id}': row([], 'keys', 'none', true),
  'GET /v1/users': row('admin', 'people', 'none'),
  'POST /v1/users': row('admin', 'people', 'none'),
  'GET /v1/users/{id}': row('admin', 'people', 'none'),
  'PATCH /v1/users/{id}': row('admin', 'people', 'none'),
  'DELETE /v1/users/{id}': row('admin', 'people', 'none', true),
  'GET /v1/groups': row('admin', 'people', 'none'),
  'POST /v1/groups': row('admin', 'people', 'none'),
  'GET /v1/groups/{id}': row('admin', 'people', 'none'),
  'PATCH /v1/groups/{id}': row('admin', 'people', 'none'),
  'DELETE /v1/groups/{id}': row('admin', 'people', 'none', true),
  'PUT /v1/groups/{id}/members/{userId}': row('admin', 'people', 'none'),
  'DELETE /v1/groups/{id}/members/{userId}': row('admin', 'people', 'none'),
  'GET /v1/audit': row('admin', 'people', 'none'),
};
/** Routes anyone may call: signing in (with a password or through the identity provider), and the formats. */
const OPEN = new Set([
  'POST /v1/session',
  'GET /v1/session',
  'DELETE /v1/session',
  'GET /v1/session/options',
  'GET /v1/session/oidc',
  'GET /v1/session/oidc/callback',
  'GET /v1/formats',
]);

const ROLES: Role[] = ['owner', 'admin', 'editor', 'reader'];
type Via = 'session' | 'boundKey' | 'actAs';
const VIAS: Via[] = ['session', 'boundKey', 'actAs'];
/** A target the member may see and edit, see only, or not see (a document hidden in a visible workspace too). */
type Place = 'visible' | 'readOnly' | 'hidden' | 'hiddenInVisible';

type Expected = 'allowed' | 403 | 404;
type RequestBody = FormData | string;

/** What the rules say a role may do with a route's target (independently of the service's code). */
function expected(r: Row, role: Role, via: Via, place: Place | undefined): Expected {
  if (r.kind === 'keys') return via === 'session' && (role === 'owner' || role === 'admin') ? 'allowed' : 403;
  if (r.kind === 'operator') return 403;
  if (!r.scopes.some((s) => ROLE_SCOPES[role].includes(s))) return 403;
  const manager = role === 'owner' || role === 'admin';
  if (manager) return 'allowed';
  if (r.kind === 'people' || r.kind === 'webhooks') return 403;
  if (r.kind === 'account') return 'allowed';
  // Someone else's evaluation (here the account key's) does not exist for a member.
  if (r.kind === 'own') return 404;
  if (place === 'hidden' || place === 'hiddenInVisible') return 404;
  if (r.kind === 'read') return 'allowed';
  if (r.kind === 'manage') return 403;
  // edit
  return place === 'visible' ? 'allowed' : 403;
}

let svc: TestService;
let root: ReturnType<typeof client>;
let accountId: string;
let routes: string[];
/** The fixtures each target names, by place. */
const at: Record<Exclude<Target, 'none'>, Partial<Record<Place, () => Promise<Record<string, string>>>>> = {
  workspace: {},
  document: {},
  run: {},
  source: {},
  questionSet: {},
  evaluation: {},
};
const fixed: Record<string, string> = {};
const callers: Record<
  Role,
  Record<Via, (method: string, path: string, body?: RequestBody, type?: string) => Promise<number>>
> = {} as never;
const access = {
  visible: { read: { groups: ['Team'] }, edit: { groups: ['Team'] } },
  readOnly: { read: { groups: ['Team'] }, edit: { groups: ['Other'] } },
  hidden: { read: { groups: ['Other'] }, edit: { groups: ['Other'] } },
};

async function workspace(place: keyof typeof access): Promise<string> {
  const ws = await root.post('/v1/workspaces', { name: `Matrix ${place}`, access: access[place] });
  expect(ws.status, JSON.stringify(ws.body)).toBe(201);
  return ws.body.id;
}

async function upload(workspaceId: string, docAccess?: unknown) {
  const up = await root.upload([{ name: 'page.md', content: '# Page\n\nThe garden gate opens at nine.\n' }], {
    workspaceId,
    ...(docAccess ? { access: JSON.stringify(docAccess) } : {}),
  });
  expect(up.status, JSON.stringify(up.body)).toBe(202);
  return { document: up.body.documents[0].id as string, run: up.body.run.id as string };
}

async function questionSet(workspaceId: string) {
  const s = await root.post(`/v1/workspaces/${workspaceId}/question-sets`, {
    name: 'Matrix questions',
    questions: [{ q: 'When does the garden gate open?', answers: ['nine'] }],
  });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  return s.body.id as string;
}

async function evaluation(questionSetId: string) {
  const e = await root.post('/v1/evaluations', { questionSetId, configurations: [{ answers: null }] });
  expect(e.status, JSON.stringify(e.body)).toBe(202);
  return e.body.id as string;
}

async function source(workspaceId: string) {
  const s = await root.post(`/v1/workspaces/${workspaceId}/sources`, {
    type: 'website',
    settings: { startUrl: 'http://127.0.0.1:9/' },
  });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  return s.body.id as string;
}

beforeAll(async () => {
  svc = await startTestService({
    env: { URL_FETCH_ALLOW_HOSTS: '127.0.0.1', ENCRYPTION_KEY: 'ab'.repeat(32) },
  });
  accountId = (await svc.deps.accounts.ensureAccount('default')).id;
  root = client(svc.url, await svc.key(['ingest', 'search', 'artifacts', 'admin']));
  for (const name of ['Team', 'Other']) expect((await root.post('/v1/groups', { name })).status).toBe(201);
  const actKey = await svc.key(['ingest', 'search', 'artifacts', 'admin', 'act-as']);
  for (const role of ROLES) {
    const email = `${role}@example.com`;
    const user = await root.post('/v1/users', {
      email,
      role,
      groups: ['Team'],
      password: `the ${role}'s long password`,
    });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const signIn = await fetch(`${svc.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: `the ${role}'s long password` }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const { csrfToken } = (await signIn.json()) as { csrfToken: string };
    const bound = await createApiKey(svc.deps.accounts, {
      accountId,
      scopes: ['ingest', 'search', 'artifacts', 'admin'],
      name: role,
      userId: user.body.id,
    });
    const send =
      (headers: Record<string, string>) =>
      async (method: string, path: string, body?: RequestBody, type?: string): Promise<number> => {
        const res = await fetch(svc.url + path, {
          method,
          headers: { ...headers, ...(type ? { 'content-type': type } : {}) },
          ...(body ? { body } : {}),
        });
        await res.arrayBuffer();
        return res.status;
      };
    callers[role] = {
      session: send({ cookie, 'x-csrf-token': csrfToken }),
      boundKey: send({ authorization: `Bearer ${bound.secret}` }),
      actAs: send({ authorization: `Bearer ${actKey}`, 'docslurp-on-behalf-of': email }),
    };
  }

  const spaces = {
    visible: await workspace('visible'),
    readOnly: await workspace('readOnly'),
    hidden: await workspace('hidden'),
  };
  const uploads = {
    visible: await upload(spaces.visible),
    readOnly: await upload(spaces.readOnly),
    hidden: await upload(spaces.hidden),
    hiddenInVisible: await upload(spaces.visible, { groups: ['Other'] }),
  };
  const sources = {
    visible: await source(spaces.visible),
    readOnly: await source(spaces.readOnly),
    hidden: await source(spaces.hidden),
  };
  const questionSets = {
    visible: await questionSet(spaces.visible),
    readOnly: await questionSet(spaces.readOnly),
    hidden: await questionSet(spaces.hidden),
  };
  const evaluations = {
    visible: await evaluation(questionSets.visible),
    readOnly: await evaluation(questionSets.readOnly),
    hidden: await evaluation(questionSets.hidden),
  };
  for (const run of Object.values(uploads)) await root.waitForRun(run.run);
  for (const place of ['visible', 'readOnly', 'hidden'] as const) {
    at.workspace[place] = async () => ({ workspace: spaces[place] });
    at.run[place] = async () => ({ workspace: spaces[place], run: uploads[place].run });
    at.source[place] = async () => ({ workspace: spaces[place], source: sources[place] });
    at.questionSet[place] = async () => ({ workspace: spaces[place], questionSet: questionSets[place] });
    at.evaluation[place] = async () => ({ workspace: spaces[place], evaluation: evaluations[place] });
  }
  for (const place of ['visible', 'readOnly', 'hidden', 'hiddenInVisible'] as const)
    at.document[place] = async () => ({
      document: uploads[place].document,
      workspace: spaces[place === 'hiddenInVisible' ? 'visible' : place],
    });
  const hook = await root.post('/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['run.completed'] });
  expect(hook.status).toBe(201);
  const done = await upload(spaces.visible);
  await root.waitForRun(done.run);
  const deliveries = await root.get(`/v1/webhooks/${hook.body.webhook.id}/deliveries`);
  const target = await root.post('/v1/users', { email: 'target@example.com', role: 'reader' });
  const group = await root.post('/v1/groups', { name: 'Target' });
  Object.assign(fixed, {
    webhook: hook.body.webhook.id,
    delivery: deliveries.body.deliveries[0].id,
    user: target.body.id,
    group: group.body.id,
  });
  const doc = (await client(svc.url).get('/openapi.json')).body as { paths: Record<string, object> };
  routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
  );
}, 240_000);
afterAll(() => svc?.close());

let unique = 0;
/** A fresh thing for a destructive call that will be allowed, in the place the case names. */
async function freshFor(route: string, ids: Record<string, string>, place: Place | undefined) {
  const p = (place === 'hiddenInVisible' ? 'visible' : place) as keyof typeof access | undefined;
  if (route === 'DELETE /v1/workspaces/{id}') return { ...ids, workspace: await workspace(p!) };
  if (route === 'DELETE /v1/documents/{id}')
    return {
      ...ids,
      document: (
        await upload(ids.workspace!, place === 'hiddenInVisible' ? { groups: ['Other'] } : undefined)
      ).document,
    };
  if (route === 'DELETE /v1/workspaces/{id}/sources/{sourceId}')
    return { ...ids, source: await source(ids.workspace!) };
  if (route === 'DELETE /v1/question-sets/{id}')
    return { ...ids, questionSet: await questionSet(ids.workspace!) };
  if (route === 'DELETE /v1/evaluations/{id}')
    return { ...ids, evaluation: await evaluation(await questionSet(ids.workspace!)) };
  if (route === 'DELETE /v1/webhooks/{id}')
    return {
      ...ids,
      webhook: (await root.post('/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['run.failed'] })).body
        .webhook.id,
    };
  if (route === 'DELETE /v1/users/{id}')
    return {
      ...ids,
      user: (await root.post('/v1/users', { email: `gone${++unique}@example.com`, role: 'reader' })).body.id,
    };
  if (route === 'DELETE /v1/groups/{id}')
    return { ...ids, group: (await root.post('/v1/groups', { name: `Gone ${++unique}` })).body.id };
  if (route === 'DELETE /v1/keys/{id}') {
    const made = await createApiKey(svc.deps.accounts, { accountId, scopes: ['search'], name: 'gone' });
    return { ...ids, key: made.key.id };
  }
  return ids;
}

function requestOf(route: string, ids: Record<string, string>, place: Place | undefined) {
  const [method, template] = route.split(' ') as [string, string];
  const id = template.startsWith('/v1/runs')
    ? ids.run
    : template.startsWith('/v1/documents')
      ? ids.document
      : template.startsWith('/v1/webhooks')
        ? (ids.webhook ?? fixed.webhook)
        : template.startsWith('/v1/users')
          ? (ids.user ?? fixed.user)
          : template.startsWith('/v1/groups')
            ? (ids.group ?? fixed.group)
            : template.startsWith('/v1/keys')
              ? ids.key
              : template.startsWith('/v1/question-sets')
                ? ids.questionSet
                : template.startsWith('/v1/evaluations/')
                  ? ids.evaluation
                  : ids.workspace;
  let path = template
    .replace('{id}', id ?? '')
    .replace('{workspaceId}', ids.workspace ?? '')
    .replace('{deliveryId}', fixed.delivery!)
    .replace('{sourceId}', ids.source ?? '')
    .replace('{userId}', fixed.user!)
    .replace('{other}', ids.evaluation ?? '')
    .replace('{accountId}', accountId);
  if (route === 'GET /v1/search') path += `?workspaceId=${ids.workspace}&q=garden`;
  const n = ++unique;
  const bodies: Record<string, unknown> = {
    'POST /v1/search': { workspaceId: ids.workspace, q: 'garden gate' },
    'POST /v1/search/chat': { workspaceId: ids.workspace, q: 'When does the garden gate open?' },
    'POST /v1/ingest/urls': { urls: ['http://127.0.0.1:9/'], workspaceId: ids.workspace },
    'POST /v1/keys': { scopes: ['search'] },
    'PATCH /v1/accounts/{accountId}/quotas': { documents: 1000 },
    'POST /v1/workspaces': { name: 'Made in the matrix' },
    'PATCH /v1/workspaces/{id}': { name: `Renamed ${n}` },
    // The document keeps the access it has: a change here must not open it to later cases.
    'PATCH /v1/documents/{id}': {
      access: place === 'hidden' || place === 'hiddenInVisible' ? { groups: ['Other'] } : null,
    },
    'POST /v1/webhooks': { url: 'http://127.0.0.1:9/other', events: ['run.failed'] },
    'POST /v1/workspaces/{id}/sources': { type: 'website', settings: { startUrl: 'http://127.0.0.1:9/' } },
    'PATCH /v1/workspaces/{id}/sources/{sourceId}': { name: `Renamed ${n}` },
    'POST /v1/workspaces/{id}/sources/{sourceId}/sync': {},
    'POST /v1/workspaces/{workspaceId}/openai/chat/completions': {
      model: 'docslurp',
      messages: [{ role: 'user', content: 'When does the garden gate open?' }],
    },
    'POST /v1/workspaces/{workspaceId}/mcp': { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    'POST /v1/workspaces/{id}/question-sets': { name: `Set ${n}`, questions: [{ q: 'Is the gate open?' }] },
    'POST /v1/evaluations': { questionSetId: ids.questionSet, configurations: [{ answers: null }] },
    'POST /v1/users': { email: `new${n}@example.com`, role: 'reader' },
    'PATCH /v1/users/{id}': { name: `Renamed ${n}` },
    'POST /v1/groups': { name: `New ${n}` },
    'PATCH /v1/groups/{id}': { name: `Target ${n}` },
  };
  if (route === 'POST /v1/ingest/bulk') {
    const form = new FormData();
    if (ids.workspace) form.append('workspaceId', ids.workspace);
    form.append('files', new Blob(['# Note\n\nA line.\n']), 'note.md');
    return { method, path, body: form as RequestBody, type: undefined };
  }
  const body = bodies[route];
  return {
    method,
    path,
    body: body === undefined ? undefined : JSON.stringify(body),
    type: body === undefined ? undefined : 'application/json',
  };
}

describe('the permission matrix', () => {
  it('has a row for every /v1 route the server serves', () => {
    const v1 = routes.filter((r) => r.includes(' /v1/'));
    expect(v1.filter((r) => !(r in MATRIX) && !OPEN.has(r))).toEqual([]);
    expect(Object.keys(MATRIX).filter((r) => !v1.includes(r))).toEqual([]);
  });

  for (const role of ROLES) {
    it(`gives ${role}s what the rules allow, through a session, a bound key and on behalf of them`, async () => {
      const failures: string[] = [];
      let cases = 0;
      for (const [route, r] of Object.entries(MATRIX)) {
        const places: (Place | undefined)[] =
          r.target === 'none'
            ? [undefined]
            : r.target === 'document'
              ? ['visible', 'readOnly', 'hidden', 'hiddenInVisible']
              : ['visible', 'readOnly', 'hidden'];
        for (const place of places) {
          for (const via of VIAS) {
            const want = expected(r, role, via, place);
            let ids = place && r.target !== 'none' ? await at[r.target][place]!() : {};
            if (r.destructive && want === 'allowed') ids = await freshFor(route, ids, place);
            else if (route === 'DELETE /v1/keys/{id}') ids = { ...ids, key: 'key_never_made' };
            const req = requestOf(route, ids, place);
            const status = await callers[role][via](req.method, req.path, req.body, req.type);
            cases++;
            const ok =
              want === 'allowed' ? ![401, 403, 404].includes(status) && status < 500 : status === want;
            if (!ok) failures.push(`${route} on ${place ?? '-'} via ${via}: ${status}, expected ${want}`);
          }
        }
      }
      expect(failures).toEqual([]);
      expect(cases).toBeGreaterThan(150);
    }, 300_000);
  }
});
