import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeTraceIds } from '../../src/adapters/tracing/propagate.js';
import { createLogger } from '../../src/logger.js';
import { client } from '../support/http.js';
import type { LogLine } from '../support/log.js';
import { type ModelServer, startModelServer } from '../support/model-servers.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import { startCli } from '../support/processes.js';
import { startServerProcess } from '../support/server-process.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * Traces (issue 43) against a real OTLP/HTTP receiver: with OTEL_EXPORTER_OTLP_ENDPOINT set, an
 * upload, its job and each document's stages, searches, answers (the model call included) and
 * webhook deliveries arrive as spans with their parent links; a caller's `traceparent` is continued
 * and passed on. Without it, the SDK is not even loaded.
 */

const SDK_MODULE = /[\\/]@opentelemetry[\\/]sdk-trace-node[\\/]/;
const sdkLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((m) => SDK_MODULE.test(m));
const DOC = {
  name: 'leave.md',
  content: '# Leave\n\nEvery employee receives 25 days of paid vacation per year.\n',
};

describe('with tracing off (the default)', () => {
  it('loads no OpenTelemetry SDK and has no tracer', async () => {
    const svc = await startTestService();
    try {
      const api = client(svc.url, await svc.key());
      const up = await api.upload([DOC]);
      expect(up.status).toBe(202);
      await api.waitForRun(up.body.run.id);
      const found = await api.post('/v1/search', { workspaceId: up.body.workspace.id, q: 'vacation' });
      expect(found.status).toBe(200);
      expect(found.body.results.length).toBeGreaterThan(0);
      expect(svc.config.tracing).toBeUndefined();
      expect(svc.deps.tracer).toBeUndefined();
      expect(sdkLoaded()).toBe(false);
    } finally {
      await svc.close();
    }
  });
});

describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let otlp: OtlpReceiver;
  let models: ModelServer;
  let hooks: Receiver;
  let svc: TestService;
  let api: ReturnType<typeof client>;
  let key: string;
  let workspaceId: string;
  const lines: LogLine[] = [];
  const hex = (bytes: number) => randomBytes(bytes).toString('hex');
  /** A caller's own trace, as its `traceparent` names it. */
  const caller = () => {
    const traceId = hex(16);
    const spanId = hex(8);
    return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
  };
  const send = (path: string, init: { method?: string; body?: unknown; traceparent?: string } = {}) =>
    fetch(svc.url + path, {
      method: init.method ?? 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.traceparent ? { traceparent: init.traceparent } : {}),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  /** The spans received once the service sent what it has, until `find` finds what it looks for. */
  const spanWhere = async (what: string, find: (spans: ReceivedSpan[]) => ReceivedSpan | undefined) =>
    waitFor(what, async () => {
      await svc.deps.tracer!.flush();
      return find(otlp.spans);
    });
  const childrenOf = (span: ReceivedSpan) =>
    otlp.spans.filter((s) => s.parentSpanId === span.spanId && s.traceId === span.traceId);

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    models = await startModelServer();
    hooks = await startReceiver();
    svc = await startTestService({
      // The worker starts in the first test, once its documents wait for it.
      worker: false,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `${otlp.url}/`,
        OTEL_SERVICE_NAME: 'docslurp-traced',
        LLM_BASE_URL: models.url,
        LLM_MODEL: 'fake-chat',
        LLM_MAX_RETRIES: '0',
        EMBEDDINGS_PROVIDER: 'openai',
        EMBEDDINGS_BASE_URL: models.url,
        EMBEDDINGS_MODEL: 'fake-embeddings',
        EMBEDDINGS_MAX_RETRIES: '0',
        ENCRYPTION_KEY: 'cd'.repeat(32),
        URL_FETCH_ALLOW_HOSTS: '127.0.0.1',
        WEBHOOK_POLL_INTERVAL_SECONDS: '0.1',
      },
      log: createLogger('info', {
        traceIds: activeTraceIds,
        destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
      }),
    });
    key = await svc.key();
    api = client(svc.url, key);
  });
  afterAll(async () => {
    await svc?.close();
    await Promise.all([otlp?.close(), models?.close(), hooks?.close()]);
  });

  /** Uploads `content` with the caller's `traceparent`; the upload's answer. */
  const uploadAs = async (traceparent: string, content: string, workspace?: string) => {
    const form = new FormData();
    if (workspace) form.append('workspaceId', workspace);
    form.append('files', new Blob([content]), DOC.name);
    const res = await fetch(`${svc.url}/v1/ingest/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, traceparent },
      body: form,
    });
    expect(res.status).toBe(202);
    return (await res.json()) as {
      workspace: { id: string };
      run: { id: string };
      documents: { id: string }[];
    };
  };
  const uploadSpan = (traceId: string) =>
    spanWhere('the upload request span', (spans) =>
      spans.find((s) => s.traceId === traceId && s.name === 'POST /v1/ingest/bulk'),
    );

  it('links a batch job to the upload of each of its documents', async () => {
    expect(sdkLoaded()).toBe(true);
    const hook = await api.post('/v1/webhooks', { url: hooks.url('/hook'), events: ['document.ready'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    // Both uploads wait for the worker, which then takes their documents as one batch.
    const first = caller();
    const second = caller();
    const a = await uploadAs(first.traceparent, DOC.content);
    workspaceId = a.workspace.id;
    const b = await uploadAs(second.traceparent, '# Badges\n\nBadges are worn inside.\n', workspaceId);
    await svc.startWorker();
    await api.waitForRun(a.run.id);
    await api.waitForRun(b.run.id);
    const uploads = [await uploadSpan(first.traceId), await uploadSpan(second.traceId)];
    const job = await spanWhere('the batch job span', (spans) =>
      spans.find((s) => s.name === 'job process-document' && s.links.length > 0),
    );
    expect(job.parentSpanId).toBe('');
    expect(job.attributes['messaging.batch.message_count']).toBe(2);
    expect(job.links.map((l) => `${l.traceId}-${l.spanId}`).sort()).toEqual(
      uploads.map((u) => `${u.traceId}-${u.spanId}`).sort(),
    );
    expect(childrenOf(job).filter((s) => s.name === 'parsing')).toHaveLength(2);
  });

  it('makes an upload, its job and each document stage one trace, continuing the caller', async () => {
    const from = caller();
    const up = await uploadAs(from.traceparent, '# Parking\n\nThe garage opens at seven.\n', workspaceId);
    await api.waitForRun(up.run.id);
    const upload = await uploadSpan(from.traceId);
    expect(upload).toMatchObject({ parentSpanId: from.spanId, kind: 2, service: 'docslurp-traced' });
    expect(upload.attributes).toMatchObject({
      'http.route': '/v1/ingest/bulk',
      'http.response.status_code': 202,
    });
    const job = await spanWhere('the job span', (spans) =>
      spans.find((s) => s.traceId === from.traceId && s.name === 'job process-document'),
    );
    expect(job.parentSpanId).toBe(upload.spanId);
    expect(job.links).toEqual([]);
    // The worker's lines, written outside any request, name the job's span.
    const processed = lines.find(
      (l) => l.msg === 'document processed' && l.documentId === up.documents[0]!.id,
    );
    expect(processed).toMatchObject({ traceId: from.traceId, spanId: job.spanId });
    const stages = childrenOf(job).map((s) => s.name);
    for (const stage of ['parsing', 'chunking', 'embedding', 'indexing', 'index commit'])
      expect(stages).toContain(stage);
    for (const s of childrenOf(job)) {
      expect(BigInt(s.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(job.startTimeUnixNano));
      expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano));
    }
    expect(otlp.requests.every((r) => r.path === '/v1/traces' && r.contentType === 'application/json')).toBe(
      true,
    );
  });

  it('sends each webhook delivery in a span whose traceparent the receiver gets', async () => {
    const [delivery] = await hooks.waitFor('/hook', 3);
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(delivery!.headers.traceparent ?? '');
    expect(match, delivery!.headers.traceparent).not.toBeNull();
    const span = await spanWhere('the delivery span', (spans) =>
      spans.find((s) => s.name === 'webhook delivery' && s.spanId === match![2]),
    );
    expect(span).toMatchObject({ traceId: match![1], kind: 3 });
    expect(span.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'http.response.status_code': 200,
    });
  });

  it('continues a search caller’s trace, with a span per stage, and names it in the log line', async () => {
    const from = caller();
    const res = await send('/v1/search', {
      body: { workspaceId, q: 'How many vacation days?' },
      traceparent: from.traceparent,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    // The stages are traced, not shown: timings are only for who asks.
    expect(body).not.toHaveProperty('timings');
    const span = await spanWhere('the search request span', (spans) =>
      spans.find((s) => s.traceId === from.traceId && s.name === 'POST /v1/search'),
    );
    expect(span.parentSpanId).toBe(from.spanId);
    expect(childrenOf(span).map((s) => s.name)).toEqual(['prepare', 'retrieval', 'ranking', 'snippets']);
    const line = lines.find(
      (l) => l.msg === 'request' && l.route === '/v1/search' && l.traceId === from.traceId,
    );
    expect(line).toMatchObject({ traceId: from.traceId, spanId: span.spanId, status: 200 });
  });

  it('starts a trace of its own for a request without traceparent', async () => {
    const res = await send(`/v1/search?workspaceId=${workspaceId}&q=vacation`, { method: 'GET' });
    expect(res.status).toBe(200);
    const known = new Set(otlp.spans.map((s) => s.traceId));
    const span = await spanWhere('the search by query span', (spans) =>
      spans.find((s) => s.name === 'GET /v1/search' && !known.has(s.traceId)),
    );
    expect(span.parentSpanId).toBe('');
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(childrenOf(span).map((s) => s.name)).toEqual(['prepare', 'retrieval', 'ranking', 'snippets']);
  });

  it('passes an answer’s trace on to the model provider', async () => {
    const from = caller();
    const res = await send('/v1/search/chat', {
      body: { workspaceId, q: 'How many vacation days?' },
      traceparent: from.traceparent,
    });
    expect(res.status).toBe(200);
    const span = await spanWhere('the chat request span', (spans) =>
      spans.find((s) => s.traceId === from.traceId && s.name === 'POST /v1/search/chat'),
    );
    expect(span.parentSpanId).toBe(from.spanId);
    expect(childrenOf(span).map((s) => s.name)).toEqual(['prepare', 'retrieval', 'ranking', 'model']);
    // The model is called from the request's span: the provider's trace is the caller's.
    expect(models.chatRequests.at(-1)!.traceparent).toBe(`00-${from.traceId}-${span.spanId}-01`);
  });

  it('traces the OpenAI-compatible chat the same way, streamed or not', async () => {
    for (const stream of [false, true]) {
      const from = caller();
      const res = await send(`/v1/workspaces/${workspaceId}/openai/chat/completions`, {
        body: { model: 'docslurp', stream, messages: [{ role: 'user', content: 'How many vacation days?' }] },
        traceparent: from.traceparent,
      });
      expect(res.status).toBe(200);
      await res.text();
      const span = await spanWhere('the OpenAI chat span', (spans) =>
        spans.find(
          (s) =>
            s.traceId === from.traceId &&
            s.name === 'POST /v1/workspaces/:workspaceId/openai/chat/completions',
        ),
      );
      expect(span.parentSpanId).toBe(from.spanId);
      expect(childrenOf(span).map((s) => s.name)).toEqual(['prepare', 'retrieval', 'ranking', 'model']);
      expect(models.chatRequests.at(-1)).toMatchObject({
        stream,
        traceparent: `00-${from.traceId}-${span.spanId}-01`,
      });
    }
  });
});

describe('the built server and worker, each a process of its own', () => {
  it('carry one trace from the upload to its job, and the worker logs it', async () => {
    const otlp = await startOtlpReceiver();
    // The SDK's own variable: spans go out every 100 ms instead of every 5 s.
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100' };
    const server = await startServerProcess({ ...tracing, OTEL_SERVICE_NAME: 'docslurp-server' });
    const worker = startCli('worker', ['worker'], {
      ...server.env,
      OTEL_SERVICE_NAME: 'docslurp-worker',
      JOB_POLL_INTERVAL_SECONDS: '0.5',
      LOG_LEVEL: 'info',
    });
    try {
      const traceId = randomBytes(16).toString('hex');
      const form = new FormData();
      form.append('files', new Blob([DOC.content]), DOC.name);
      const res = await fetch(`${server.url}/v1/ingest/bulk`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.key}`, traceparent: `00-${traceId}-${'1'.repeat(16)}-01` },
        body: form,
      });
      expect(res.status).toBe(202);
      const up = (await res.json()) as { run: { id: string }; documents: { id: string }[] };
      await client(server.url, server.key).waitForRun(up.run.id);
      const spanOf = (name: string) =>
        waitFor(name, () => otlp.spans.find((s) => s.traceId === traceId && s.name === name));
      const upload = await spanOf('POST /v1/ingest/bulk');
      const job = await spanOf('job process-document');
      const parsing = await spanOf('parsing');
      expect(upload).toMatchObject({ parentSpanId: '1'.repeat(16), service: 'docslurp-server' });
      expect(job).toMatchObject({ parentSpanId: upload.spanId, service: 'docslurp-worker' });
      expect(parsing.parentSpanId).toBe(job.spanId);
      const processed = await waitFor("the worker's log line", () =>
        worker
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as LogLine)
          .find((l) => l.msg === 'document processed' && l.documentId === up.documents[0]!.id),
      );
      expect(processed).toMatchObject({ traceId, spanId: job.spanId });
    } finally {
      await worker.stop();
      await server.stop();
      await otlp.close();
    }
  }, 120_000);
});
