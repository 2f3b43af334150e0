import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

type Doc = { id: string; sourceItem: string | null; version: number; status: string; source: string | null };

describe('an S3 bucket prefix source', () => {
  let s3: TestS3;
  let bucket: S3Client;
  let svc: TestService;
  let api: ReturnType<typeof client>;
  let workspaceId: string;
  let sourceId: string;

  const put = (key: string, body: string) =>
    bucket.send(
      new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body, ContentType: 'text/markdown' }),
    );
  const docs = async () =>
    new Map(
      ((await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents as Doc[]).map((d) => [
        d.sourceItem ?? d.id,
        d,
      ]),
    );
  const requestSync = async (body: unknown = {}) => {
    const r = await api.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, body);
    expect(r.status).toBe(202);
    return r.body.run.id as string;
  };
  const search = async (q: string) =>
    ((await api.post('/v1/search', { workspaceId, q })).body.results as { text: string }[]).map(
      (h) => h.text,
    );

  beforeAll(async () => {
    s3 = await startS3Server({ bucket: 'team-drop' });
    bucket = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    svc = await startTestService({
      env: { URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32', ENCRYPTION_KEY: 'ab'.repeat(32) },
    });
    api = client(svc.url, await svc.key());
    workspaceId = (await api.post('/v1/workspaces', { name: 'bucket sync' })).body.id;
  });
  afterAll(async () => {
    bucket?.destroy();
    await svc?.close();
    await s3?.close();
  });

  it('syncs new, changed, renamed, deleted and unchanged objects under the prefix', async () => {
    await put('policies/travel.md', '# Travel\n\nTrain tickets are booked through the travel desk.\n');
    await put('policies/security.md', '# Security\n\nBadges must be worn at all times on site.\n');
    await put('policies/old/menu.md', '# Canteen\n\nThe canteen serves soup on Fridays.\n');
    await put('elsewhere/ignored.md', '# Ignored\n\nOutside the prefix.\n');
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 's3',
      name: 'Team drop',
      settings: { endpoint: s3.endpoint, bucket: s3.bucket, prefix: 'policies/' },
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    expect(created.status).toBe(201);
    expect(created.body.hasCredentials).toBe(true);
    expect(JSON.stringify(created.body)).not.toContain(s3.secretAccessKey);
    sourceId = created.body.id;

    const first = await api.waitForRun(await requestSync());
    expect(first.failures).toEqual([]);
    expect(first).toMatchObject({ status: 'completed', sourceId });
    expect(first.counts).toMatchObject({ total: 3, ready: 3 });
    let now = await docs();
    expect([...now.keys()].sort()).toEqual([
      'policies/old/menu.md',
      'policies/security.md',
      'policies/travel.md',
    ]);
    const travelId = now.get('policies/travel.md')!.id;

    const unchanged = await api.waitForRun(await requestSync());
    expect(unchanged.counts.total).toBe(0);

    await put('policies/travel.md', '# Travel\n\nFlights are booked through the travel desk.\n');
    await put('policies/new/canteen.md', '# Canteen\n\nThe canteen serves soup on Fridays.\n');
    await bucket.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: 'policies/old/menu.md' }));
    const third = await api.waitForRun(await requestSync());
    // travel.md changed, canteen.md is new, menu.md was deleted: all three in this sync's run.
    expect(third.counts).toMatchObject({ total: 3, ready: 2, deleted: 1 });
    now = await docs();
    expect([...now.keys()].sort()).toEqual([
      'policies/new/canteen.md',
      'policies/security.md',
      'policies/travel.md',
    ]);
    expect(now.get('policies/travel.md')).toMatchObject({ id: travelId, version: 2, status: 'ready' });
    expect((await search('how are flights booked'))[0]).toContain('Flights are booked');
    expect((await search('train tickets')).some((t) => t.includes('Train tickets'))).toBe(false);
  });

  it('keeps answering from the previous version until the new one is indexed', async () => {
    await put(
      'policies/security.md',
      '# Security\n\nVisitors sign in at reception and wear a red lanyard.\n',
    );
    const runId = await requestSync();
    // Paused before its documents are processed: the listing is applied, the new version waits.
    expect((await api.post(`/v1/runs/${runId}/pause`)).status).toBe(200);
    const queued = await waitFor('the changed object queued as version 2', async () => {
      const d = (await docs()).get('policies/security.md');
      return d?.version === 2 && d.status === 'queued' && d;
    });
    expect(queued.id).toBeTruthy();
    expect((await search('badges worn on site'))[0]).toContain('Badges must be worn');
    const cite = async (q: string) =>
      (await api.post('/v1/search', { workspaceId, q })).body.results[0].citation;
    // The citation names the version the passage is from: the previous one, until the new one is in.
    expect(await cite('badges worn on site')).toMatchObject({
      documentId: queued.id,
      source: sourceId,
      sourceItem: 'policies/security.md',
      version: 1,
    });
    expect((await api.post(`/v1/runs/${runId}/resume`)).status).toBe(200);
    expect((await api.waitForRun(runId)).status).toBe('completed');
    expect((await search('visitors lanyard reception'))[0]).toContain('red lanyard');
    expect(await cite('visitors lanyard reception')).toMatchObject({ documentId: queued.id, version: 2 });
    expect((await search('badges worn on site')).some((t) => t.includes('Badges must be worn'))).toBe(false);
  });

  it('fails the run with source_credentials_refused and leaves the documents as they were', async () => {
    const before = await docs();
    const patched = await api.patch(`/v1/workspaces/${workspaceId}/sources/${sourceId}`, {
      // s3rver checks the key id (not every signature): an unknown key is what it refuses.
      credentials: { accessKeyId: 'nobody', secretAccessKey: 'wrong-secret' },
    });
    expect(patched.status).toBe(200);
    await bucket.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: 'policies/travel.md' }));
    const failed = await api.waitForRun(await requestSync());
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('source_credentials_refused');
    expect(failed.counts.total).toBe(0);
    const after = await docs();
    expect([...after.entries()].map(([k, d]) => [k, d.id, d.version, d.status])).toEqual(
      [...before.entries()].map(([k, d]) => [k, d.id, d.version, d.status]),
    );
    expect((await search('how are flights booked'))[0]).toContain('Flights are booked');
  });

  it('refuses an endpoint at a private address (the request-forgery guard)', async () => {
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 's3',
      settings: { endpoint: 'http://10.20.30.40:9000', bucket: 'internal' },
    });
    const failed = await api.waitForRun(
      (await api.post(`/v1/workspaces/${workspaceId}/sources/${created.body.id}/sync`, {})).body.run.id,
    );
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('source_forbidden');
  });
});
