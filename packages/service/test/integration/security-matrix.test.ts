import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNT, hashApiKey } from '../../src/domain/keys.js';
import type { Scope } from '../../src/domain/types.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Every endpoint × every kind of caller. The list of endpoints comes from the served OpenAPI document,
 * so a new route without a row here fails this test instead of going unchecked.
 */
/**
 * The scope a route needs, or several of which any one will do; `operator`: the service's operator
 * only (SERVICE_BOOTSTRAP_API_KEY), whatever scopes an account's key holds.
 */
type Need = Scope | Scope[] | 'session' | 'operator';
const MATRIX: Record<string, Need> = {
  'POST /v1/ingest/bulk': 'ingest',
  'POST /v1/ingest/urls': 'ingest',
  'GET /v1/runs/{id}': 'ingest',
  'GET /v1/runs/{id}/progress': 'ingest',
  'POST /v1/runs/{id}/pause': 'ingest',
  'POST /v1/runs/{id}/resume': 'ingest',
  'POST /v1/runs/{id}/cancel': 'ingest',
  'POST /v1/runs/{id}/reprocess': 'ingest',
  'POST /v1/search': 'search',
  'GET /v1/search': 'search',
  'POST /v1/search/chat': 'search',
  'GET /v1/workspaces': 'artifacts',
  'POST /v1/workspaces': 'ingest',
  'GET /v1/workspaces/{id}': 'artifacts',
  'PATCH /v1/workspaces/{id}': 'ingest',
  'DELETE /v1/workspaces/{id}': 'ingest',
  'GET /v1/workspaces/{id}/documents': 'artifacts',
  'GET /v1/workspaces/{id}/availability': 'search',
  'GET /v1/workspaces/{id}/runs': 'ingest',
  'GET /v1/documents/{id}': 'artifacts',
  'GET /v1/documents/{id}/text': 'artifacts',
  'GET /v1/documents/{id}/content': 'artifacts',
  'DELETE /v1/documents/{id}': 'ingest',
  'POST /v1/documents/{id}/reprocess': 'ingest',
  'GET /v1/overview': 'artifacts',
  'POST /v1/workspaces/{workspaceId}/openai/chat/completions': 'search',
  'GET /v1/workspaces/{workspaceId}/openai/models': 'search',
  'POST /v1/workspaces/{workspaceId}/mcp': ['search', 'artifacts'],
  'GET /v1/workspaces/{workspaceId}/mcp': ['search', 'artifacts'],
  'DELETE /v1/workspaces/{workspaceId}/mcp': ['search', 'artifacts'],
  'POST /v1/webhooks': 'ingest',
  'GET /v1/webhooks': 'ingest',
  'GET /v1/webhooks/{id}': 'ingest',
  'DELETE /v1/webhooks/{id}': 'ingest',
  'GET /v1/webhooks/{id}/deliveries': 'ingest',
  'POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver': 'ingest',
  'GET /v1/source-types': ['ingest', 'artifacts'],
  'POST /v1/workspaces/{id}/sources': 'ingest',
  'GET /v1/workspaces/{id}/sources': 'artifacts',
  'GET /v1/workspaces/{id}/sources/{sourceId}': 'artifacts',
  'PATCH /v1/workspaces/{id}/sources/{sourceId}': 'ingest',
  'DELETE /v1/workspaces/{id}/sources/{sourceId}': 'ingest',
  'POST /v1/workspaces/{id}/sources/{sourceId}/sync': 'ingest',
  'POST /v1/workspaces/{id}/question-sets': 'ingest',
  'GET /v1/workspaces/{id}/question-sets': ['search', 'artifacts'],
  'GET /v1/question-sets/{id}': ['search', 'artifacts'],
  'DELETE /v1/question-sets/{id}': 'ingest',
  'POST /v1/evaluations': 'search',
  'GET /v1/workspaces/{id}/evaluations': ['search', 'artifacts'],
  'GET /v1/evaluations/{id}': ['search', 'artifacts'],
  'GET /v1/evaluations/{id}/questions': ['search', 'artifacts'],
  'GET /v1/evaluations/{id}/compare/{other}': ['search', 'artifacts'],
  'POST /v1/evaluations/{id}/cancel': 'search',
  'DELETE /v1/evaluations/{id}': 'search',
  'GET /v1/keys': 'session',
  'POST /v1/keys': 'session',
  'DELETE /v1/keys/{id}': 'session',
  'PATCH /v1/documents/{id}': 'ingest',
  'GET /v1/users': 'admin',
  'POST /v1/users': 'admin',
  'GET /v1/users/{id}': 'admin',
  'PATCH /v1/users/{id}': 'admin',
  'DELETE /v1/users/{id}': 'admin',
  'GET /v1/groups': 'admin',
  'POST /v1/groups': 'admin',
  'GET /v1/groups/{id}': 'admin',
  'PATCH /v1/groups/{id}': 'admin',
  'DELETE /v1/groups/{id}': 'admin',
  'PUT /v1/groups/{id}/members/{userId}': 'admin',
  'DELETE /v1/groups/{id}/members/{userId}': 'admin',
  'GET /v1/audit': 'admin',
  'GET /v1/quotas': 'artifacts',
  'GET /v1/accounts/{accountId}/quotas': 'admin',
  'PATCH /v1/accounts/{accountId}/quotas': 'operator',
};
/** Routes that anyone may call (they authenticate differently or not at all). */
const OPEN = new Set([
  'POST /v1/session',
  'GET /v1/session',
  'DELETE /v1/session',
  'GET /v1/session/options',
  'GET /v1/session/oidc',
  'GET /v1/session/oidc/callback',
  'GET /v1/formats',
]);

let svc: TestService;
let ids: {
  workspace: string;
  run: string;
  document: string;
  key: string;
  webhook: string;
  delivery: string;
  source: string;
  user: string;
  group: string;
  questionSet: string;
  evaluation: string;
};
let routes: string[];

beforeAll(async () => {
  // Webhook URLs on loopback are allowed by name, so that an endpoint (and a delivery) can exist.
  // Every route is tried with wrong credentials from this one address: its budget of failures
  // (credential-limits.test.ts) would answer 429 instead of what each route says.
  svc = await startTestService({
    env: {
      URL_FETCH_ALLOW_HOSTS: '127.0.0.1',
      ENCRYPTION_KEY: 'ef'.repeat(32),
      AUTH_FAILURES_PER_MINUTE: '0',
    },
  });
  const owner = client(svc.url, await svc.key());
  const hook = await owner.post('/v1/webhooks', {
    url: 'http://127.0.0.1:9/hook',
    events: ['run.completed'],
  });
  const up = await owner.upload([
    { name: 'owned.md', content: '# Owned\n\nOnly the owner may see this text.' },
  ]);
  await owner.waitForRun(up.body.run.id);
  const [delivery] = (await owner.get(`/v1/webhooks/${hook.body.webhook.id}/deliveries`)).body.deliveries;
  const source = await owner.post(`/v1/workspaces/${up.body.workspace.id}/sources`, {
    type: 'website',
    settings: { startUrl: 'http://127.0.0.1:9/' },
  });
  const questions = await owner.post(`/v1/workspaces/${up.body.workspace.id}/question-sets`, {
    name: 'Matrix',
    questions: [{ q: 'Who may see this text?' }],
  });
  const evaluation = await owner.post('/v1/evaluations', {
    questionSetId: questions.body.id,
    configurations: [{ answers: null }],
  });
  const admin = client(svc.url, await svc.key(['admin']));
  const user = await admin.post('/v1/users', { email: 'matrix@example.com', role: 'reader' });
  const group = await admin.post('/v1/groups', { name: 'Matrix' });
  const keySecret = await svc.key(['search']);
  const keyRecord = await svc.deps.accounts.findApiKeyByHash(hashApiKey(keySecret));
  ids = {
    workspace: up.body.workspace.id,
    run: up.body.run.id,
    document: up.body.documents[0].id,
    key: keyRecord!.id,
    webhook: hook.body.webhook.id,
    delivery: delivery.id,
    source: source.body.id,
    user: user.body.id,
    group: group.body.id,
    questionSet: questions.body.id,
    evaluation: evaluation.body.id,
  };
  const doc = (await client(svc.url).get('/openapi.json')).body as {
    paths: Record<string, Record<string, unknown>>;
  };
  routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
  );
});
afterAll(() => svc?.close());

function request(route: string) {
  const [method, template] = route.split(' ') as [string, string];
  const id = template.startsWith('/v1/runs')
    ? ids.run
    : template.startsWith('/v1/documents')
      ? ids.document
      : template.startsWith('/v1/keys')
        ? ids.key
        : template.startsWith('/v1/webhooks')
          ? ids.webhook
          : template.startsWith('/v1/users')
            ? ids.user
            : template.startsWith('/v1/groups')
              ? ids.group
              : template.startsWith('/v1/question-sets')
                ? ids.questionSet
                : template.startsWith('/v1/evaluations/')
                  ? ids.evaluation
                  : ids.workspace;
  const path = template
    .replace('{id}', id)
    .replace('{workspaceId}', ids.workspace)
    .replace('{deliveryId}', ids.delivery)
    .replace('{sourceId}', ids.source)
    .replace('{userId}', ids.user)
    .replace('{other}', ids.evaluation)
    .replace('{accountId}', DEFAULT_ACCOUNT);
  const bodies: Record<string, unknown> = {
    'POST /v1/search': { workspaceId: ids.workspace, q: 'owner text' },
    'POST /v1/search/chat': { workspaceId: ids.workspace, q: 'owner text' },
    'POST /v1/ingest/urls': { urls: ['http://127.0.0.1:9/'], workspaceId: ids.workspace },
    'POST /v1/keys': { scopes: ['search'] },
    'POST /v1/workspaces': { name: 'Matrix' },
    'PATCH /v1/documents/{id}': { access: null },
    'PATCH /v1/accounts/{accountId}/quotas': { documents: 1000 },
    'POST /v1/workspaces/{id}/question-sets': { name: 'More', questions: [{ q: 'And this?' }] },
    'POST /v1/evaluations': { questionSetId: ids.questionSet, configurations: [{ answers: null }] },
    'POST /v1/users': { email: `u${Math.random().toString(36).slice(2)}@example.com`, role: 'reader' },
    'PATCH /v1/users/{id}': { name: 'Renamed' },
    'POST /v1/groups': { name: `G ${Math.random().toString(36).slice(2)}` },
    'PATCH /v1/groups/{id}': { name: 'Matrix renamed' },
    'PATCH /v1/workspaces/{id}': { name: 'Renamed' },
    'POST /v1/webhooks': { url: 'http://127.0.0.1:9/other', events: ['run.failed'] },
    'POST /v1/workspaces/{id}/sources': { type: 'website', settings: { startUrl: 'http://127.0.0.1:9/' } },
    'PATCH /v1/workspaces/{id}/sources/{sourceId}': { name: 'Renamed source' },
    'POST /v1/workspaces/{id}/sources/{sourceId}/sync': {},
    'POST /v1/workspaces/{workspaceId}/openai/chat/completions': {
      model: 'docslurp',
      messages: [{ role: 'user', content: 'owner text' }],
    },
  };
  const query = route === 'GET /v1/search' ? `?workspaceId=${ids.workspace}&q=owner` : '';
  return { method, path: path + query, body: bodies[route] };
}

async function call(route: string, headers: Record<string, string>): Promise<number> {
  const { method, path, body } = request(route);
  let payload: FormData | string | undefined;
  const h: Record<string, string> = { ...headers };
  if (route === 'POST /v1/ingest/bulk') {
    const form = new FormData();
    form.append('workspaceId', ids.workspace);
    form.append('files', new Blob(['x']), 'x.txt');
    payload = form;
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    h['content-type'] = 'application/json';
  }
  const res = await fetch(svc.url + path, { method, headers: h, ...(payload ? { body: payload } : {}) });
  await res.arrayBuffer();
  return res.status;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('security matrix', () => {
  it('has a row for every /v1 route the server serves', () => {
    const v1 = routes.filter((r) => r.includes(' /v1/'));
    const missing = v1.filter((r) => !(r in MATRIX) && !OPEN.has(r));
    expect(missing).toEqual([]);
    expect(Object.keys(MATRIX).filter((r) => !v1.includes(r))).toEqual([]);
  });

  it('answers 401 without a key, with a malformed header and with a revoked key', async () => {
    const revoked = await svc.key();
    await svc.deps.accounts.revokeApiKey(
      (await svc.deps.accounts.findApiKeyByHash(hashApiKey(revoked)))!.id,
      undefined,
    );
    for (const route of Object.keys(MATRIX)) {
      expect(await call(route, {}), `${route} without a key`).toBe(401);
      expect(await call(route, { authorization: 'Basic abc' }), `${route} with Basic auth`).toBe(401);
      expect(await call(route, bearer(revoked)), `${route} with a revoked key`).toBe(401);
    }
  });

  it('answers 404 to another account for every resource, as if it did not exist', async () => {
    const stranger = await svc.key(['ingest', 'search', 'artifacts', 'admin'], 'stranger');
    // The owner's search first, so that the server knows the workspace already (it remembers found ones).
    expect(await call('POST /v1/search', bearer(await svc.key()))).toBe(200);
    const resourceRoutes = Object.entries(MATRIX).filter(
      ([route, need]) =>
        need !== 'session' &&
        (route.includes('{id}') ||
          route.startsWith('POST /v1/search') ||
          route === 'GET /v1/search' ||
          route.startsWith('POST /v1/ingest') ||
          route === 'POST /v1/evaluations' ||
          route.endsWith('/mcp')),
    );
    for (const [route] of resourceRoutes) {
      expect(await call(route, bearer(stranger)), `${route} by another account`).toBe(404);
    }
  });

  it('answers 403 to a key without the required scope, and lets the right scope through', async () => {
    const keys = {
      ingest: await svc.key(['ingest']),
      search: await svc.key(['search']),
      artifacts: await svc.key(['artifacts']),
      admin: await svc.key(['admin']),
    };
    // Destructive routes last, so earlier checks still find the resources; the workspace's own last.
    const weight = (r: string) =>
      r === 'DELETE /v1/workspaces/{id}'
        ? 3
        : r === 'DELETE /v1/users/{id}' || r === 'DELETE /v1/groups/{id}'
          ? 2
          : Number(r.startsWith('DELETE') || r.includes('/cancel'));
    const order = Object.keys(MATRIX).sort((a, b) => weight(a) - weight(b));
    for (const route of order) {
      const need = MATRIX[route]!;
      for (const scope of ['ingest', 'search', 'artifacts', 'admin'] as const) {
        const status = await call(route, bearer(keys[scope]));
        if (need === scope || (Array.isArray(need) && need.includes(scope)))
          expect([401, 403], `${route} with the ${scope} scope`).not.toContain(status);
        else expect(status, `${route} with only the ${scope} scope`).toBe(403);
      }
    }
  });
});

describe('responses', () => {
  it('carry security headers and no CORS permission, whatever the Origin', async () => {
    const res = await fetch(`${svc.url}/v1/workspaces`, {
      headers: { origin: 'https://evil.example', ...bearer(await svc.key()) },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const preflight = await fetch(`${svc.url}/v1/search`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('never include a stack trace or internal detail, even for an internal error', async () => {
    // A database failure inside a request: the pool is closed under a live app.
    const { buildApp } = await import('../../src/app.js');
    const { createPool } = await import('../../src/adapters/postgres/db.js');
    const { createRepositories } = await import('../../src/adapters/postgres/repositories.js');
    const pool = createPool(svc.dbs.urls.service, 1, 'broken');
    await pool.end();
    const app = await buildApp({ ...svc.deps, ...createRepositories(pool) });
    try {
      const r = await app.inject({ method: 'GET', url: '/v1/workspaces', headers: bearer(await svc.key()) });
      expect(r.statusCode).toBe(500);
      const body = r.json();
      expect(body).toEqual({
        error: { code: 'internal_error', message: expect.any(String), requestId: r.headers['x-request-id'] },
      });
      expect(r.body).not.toMatch(/at \w+ \(|\.ts:\d+|pool|Pool/);
    } finally {
      await app.close();
    }
  });
});
