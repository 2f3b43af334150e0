import { describe, expect, it } from 'vitest';
import { ConfigError, deriveWorkflowUrl, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('defaults to embedded mode under ./data on 127.0.0.1:8080', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c.mode).toBe('embedded');
    expect(c.dataDir).toBe('/srv/app/data');
    expect(c.server).toMatchObject({ host: '127.0.0.1', port: 8080 });
    expect(c.objects).toEqual({ kind: 'fs', dir: '/srv/app/data/objects' });
    expect(c.index.uri).toBe('/srv/app/data/index');
    expect(c.worker.docConcurrency).toBe(1);
    expect(c.database.workflowNamespace).toBe('service');
  });

  it('uses the stack mode and S3 layout when DATABASE_URL and S3 settings are given', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u:p@db/service', S3_ENDPOINT: 'http://minio:9000' });
    expect(c.mode).toBe('stack');
    expect(c.objects).toMatchObject({ kind: 's3', bucket: 'service-files', endpoint: 'http://minio:9000' });
    expect(c.index.uri).toBe('s3://service-files/lancedb');
  });

  it('refuses a default workflow namespace in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /workflow namespace must be non-default in production/,
    );
    expect(() => loadConfig({ NODE_ENV: 'production', WORKFLOW_NAMESPACE: 'default' })).toThrow(ConfigError);
    expect(
      loadConfig({ NODE_ENV: 'production', WORKFLOW_NAMESPACE: 'service' }).database.workflowNamespace,
    ).toBe('service');
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig({ SERVER_PORT: 'eighty' })).toThrow(/SERVER_PORT/);
    expect(() => loadConfig({ WORKER_DOC_CONCURRENCY: '0' })).toThrow(/WORKER_DOC_CONCURRENCY/);
    expect(() => loadConfig({ WORKFLOW_NAMESPACE: 'Bad-Name' })).toThrow(/WORKFLOW_NAMESPACE/);
  });
});

describe('trusted proxies', () => {
  it('trusts no proxy unless told, in either mode', () => {
    expect(loadConfig({}).server.trustedProxies).toEqual([]);
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db/service' }).server.trustedProxies).toEqual([]);
  });

  it('reads addresses and CIDR ranges and refuses anything else', () => {
    expect(
      loadConfig({ TRUSTED_PROXIES: ' 10.0.0.5, 172.16.0.0/12 ,fd00::/8' }).server.trustedProxies,
    ).toEqual(['10.0.0.5', '172.16.0.0/12', 'fd00::/8']);
    for (const bad of ['proxy.internal', '10.0.0.0/33', '*', '10.0.0.0/8/1', 'true'])
      expect(() => loadConfig({ TRUSTED_PROXIES: bad })).toThrow(/TRUSTED_PROXIES/);
  });
});

describe('HTTP timeouts and connections', () => {
  it('has defaults and reads the settings in seconds', () => {
    expect(loadConfig({}).server).toMatchObject({
      requestTimeoutMs: 600_000,
      bodyTimeoutMs: 30_000,
      keepAliveTimeoutMs: 72_000,
      maxConnectionsPerAddress: 100,
    });
    const c = loadConfig({
      HTTP_REQUEST_TIMEOUT_SECONDS: '3600',
      HTTP_BODY_TIMEOUT_SECONDS: '10',
      HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '5',
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
    }).server;
    expect(c).toMatchObject({
      requestTimeoutMs: 3_600_000,
      bodyTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
    });
    expect(c.maxConnectionsPerAddress).toBe(0);
  });

  it('refuses a body timeout longer than the request timeout', () => {
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_SECONDS: '20', HTTP_BODY_TIMEOUT_SECONDS: '30' })).toThrow(
      /HTTP_BODY_TIMEOUT_SECONDS/,
    );
  });
});

describe('parser settings', () => {
  it('requires isolation in the stack and allows the fallback in embedded mode', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/service' }).parser.isolation).toBe('required');
    expect(loadConfig({}).parser.isolation).toBe('auto');
    expect(loadConfig({ PARSER_ISOLATION: 'required' }).parser.isolation).toBe('required');
    expect(
      loadConfig({ DATABASE_URL: 'postgres://db/s', PARSER_ISOLATION: 'process' }).parser.isolation,
    ).toBe('process');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/s', PARSER_ISOLATION: '' }).parser.isolation).toBe(
      'required',
    );
  });

  it('batches more documents in embedded mode, where one worker takes the whole queue', () => {
    expect(loadConfig({}).worker.batchDocuments).toBe(500);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/service' }).worker.batchDocuments).toBe(200);
    expect(loadConfig({ WORKER_BATCH_DOCUMENTS: '7' }).worker.batchDocuments).toBe(7);
    expect(() => loadConfig({ WORKER_BATCH_DOCUMENTS: '0' })).toThrow(/WORKER_BATCH_DOCUMENTS/);
  });

  it('reads the profile and the limits, in MiB where they are sizes', () => {
    const c = loadConfig({ WORKER_PROFILE: 'full', PARSER_MEMORY_MB: '512', PARSER_TIMEOUT_SECONDS: '9' });
    expect(c.parser.profile).toBe('full');
    expect(c.parser.limits).toMatchObject({ memoryBytes: 512 * 1024 * 1024, timeoutSeconds: 9 });
    expect(loadConfig({}).parser).toMatchObject({
      profile: 'default',
      limits: { outputBytes: 64 * 1024 * 1024, unpackedBytes: 1024 * 1024 * 1024, cpuSeconds: 300 },
    });
  });

  it('finds bubblewrap through PARSER_BWRAP_PATH, else PATH', () => {
    expect(loadConfig({ PATH: '/opt/bin:/usr/bin' }).parser.bwrapSearchPath).toBe('/opt/bin:/usr/bin');
    expect(loadConfig({ PATH: '/usr/bin', PARSER_BWRAP_PATH: '/opt/bwrap' }).parser.bwrapSearchPath).toBe(
      '/opt/bwrap',
    );
  });

  it('names a wrong parser setting', () => {
    expect(() => loadConfig({ PARSER_ISOLATION: 'off' })).toThrow(/PARSER_ISOLATION/);
    expect(() => loadConfig({ WORKER_PROFILE: 'huge' })).toThrow(/WORKER_PROFILE/);
    expect(() => loadConfig({ PARSER_MEMORY_MB: '10' })).toThrow(/PARSER_MEMORY_MB/);
  });
});

describe('deriveWorkflowUrl', () => {
  it('keeps URL-encoded credentials intact', () => {
    const url = `postgres://svc:${encodeURIComponent('p@ss:w/rd#1')}@db:5432/service`;
    const derived = new URL(deriveWorkflowUrl(url));
    expect(derived.pathname).toBe('/service_workflow');
    expect(decodeURIComponent(derived.password)).toBe('p@ss:w/rd#1');
  });
});

describe('fair shares between accounts', () => {
  it("keeps one webhook slot of a worker out of any one account's reach, unless told otherwise", () => {
    expect(loadConfig({}).webhooks).toMatchObject({ concurrency: 4, accountConcurrency: 3 });
    expect(loadConfig({ WEBHOOK_CONCURRENCY: '10' }).webhooks.accountConcurrency).toBe(9);
    expect(loadConfig({ WEBHOOK_CONCURRENCY: '1' }).webhooks.accountConcurrency).toBe(1);
    expect(loadConfig({ WEBHOOK_ACCOUNT_CONCURRENCY: '6' }).webhooks.accountConcurrency).toBe(6);
    expect(() => loadConfig({ WEBHOOK_ACCOUNT_CONCURRENCY: '0' })).toThrow(/WEBHOOK_ACCOUNT_CONCURRENCY/);
  });

  it('runs several syncs per worker, of which one account takes at most half', () => {
    expect(loadConfig({}).worker).toMatchObject({ syncConcurrency: 3, syncsPerAccount: 1 });
    expect(loadConfig({ WORKER_SYNC_CONCURRENCY: '4' }).worker.syncsPerAccount).toBe(2);
    expect(loadConfig({ WORKER_SYNC_CONCURRENCY: '1' }).worker.syncsPerAccount).toBe(1);
    expect(() => loadConfig({ WORKER_SYNC_CONCURRENCY: '0' })).toThrow(/WORKER_SYNC_CONCURRENCY/);
  });
});
