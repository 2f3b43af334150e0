import { readdir } from 'node:fs/promises';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serverConnectionCap } from '../../src/app.js';
import { probeConnectionCap } from '../../src/http/worker-app.js';
import { freePort, type RunningProcess, startCli } from '../support/processes.js';
import { idleConnection, jsonRequest } from '../support/raw-http.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

/**
 * Issue 44: the server's port and a worker's probe port (WORKER_HTTP_PORT) against callers that open
 * connections and send nothing (finding 2), and that call /ready in a loop (finding 9). Both
 * processes run with a small limit on open files, so that a flood that would take every descriptor
 * fits in a test.
 */

const OPEN_FILES = 512;
const limits = {
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: '5',
  HTTP_BODY_TIMEOUT_SECONDS: '3',
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '2',
};
let srv: ServerProcess;
let worker: RunningProcess;
let port: number;

beforeAll(async () => {
  srv = await startServerProcess(limits, { openFiles: OPEN_FILES });
  port = await freePort();
  worker = startCli(
    'worker',
    ['worker'],
    { ...srv.env, WORKER_HTTP_PORT: String(port), READY_RATE_LIMIT_PER_MINUTE: '5', LOG_LEVEL: 'info' },
    { openFiles: OPEN_FILES },
  );
  await worker.waitFor(/worker probes listening/, 60_000);
}, 90_000);
afterAll(async () => {
  await worker?.stop();
  await srv?.stop();
});

async function descriptors(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`)).length;
}

/** A connection from `from` that sends nothing; resolves once connected, says when the server closed it. */
function silentConnection(to: number, from: string) {
  const socket = net.connect({ port: to, host: '127.0.0.1', localAddress: from });
  socket.on('error', () => {});
  let closed = false;
  socket.once('close', () => {
    closed = true;
  });
  return new Promise<{ closed: () => boolean; destroy: () => void }>((resolve) => {
    const result = { closed: () => closed, destroy: () => socket.destroy() };
    socket.once('connect', () => resolve(result));
    socket.once('close', () => resolve(result));
  });
}

/**
 * 5 silent connections from each of 100 addresses (127.0.1.1 on), none over the per-address cap;
 * after half a second, how many the server kept open, and how many descriptors its process holds.
 */
async function flood(to: number, pid: number) {
  const connections = await Promise.all(
    Array.from({ length: 100 }, (_, a) =>
      Array.from({ length: 5 }, () => silentConnection(to, `127.0.1.${a + 1}`)),
    ).flat(),
  );
  await new Promise((r) => setTimeout(r, 500));
  return {
    open: connections.filter((c) => !c.closed()).length,
    descriptors: await descriptors(pid),
    end: () => {
      for (const c of connections) c.destroy();
    },
  };
}

describe("the worker's probe port", () => {
  it('caps the connections of one address, and others still get /ready', async () => {
    const from = '127.0.0.2';
    const held = await Promise.all(
      Array.from({ length: 5 }, () => idleConnection(port, { localAddress: from })),
    );
    const refused = await idleConnection(port, { localAddress: from });
    const answer = await refused.answer();
    expect(answer.closed).toBe(true);
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.body).error.code).toBe('too_many_connections');
    const ready = await jsonRequest(port, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.json.status).toBe('ready');
    for (const c of held) c.close();
  });

  it('ends a connection that sends nothing, and an idle keep-alive one, after their timeouts', async () => {
    const t0 = Date.now();
    const silent = await idleConnection(port, { localAddress: '127.0.0.3' });
    const answer = await silent.answer(10_000);
    // HTTP_BODY_TIMEOUT_SECONDS=3, checked every second.
    expect(answer.closed).toBe(true);
    expect(answer.status).toBe(408);
    expect(Date.now() - t0).toBeLessThan(6_000);

    const kept = await idleConnection(port, { localAddress: '127.0.0.3' });
    kept.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    const t1 = Date.now();
    const after = await kept.answer(10_000);
    expect(after.status).toBe(200);
    // HTTP_KEEP_ALIVE_TIMEOUT_SECONDS=2: closed by the server, not by the wait running out.
    expect(after.closed).toBe(true);
    expect(Date.now() - t1).toBeLessThan(5_000);
  });

  it('holds at most its share of the descriptors, however many addresses connect', async () => {
    const cap = probeConnectionCap(OPEN_FILES);
    const pid = worker.child.pid!;
    const before = await descriptors(pid);
    const flooded = await flood(port, pid);
    expect(flooded.open).toBeLessThanOrEqual(cap);
    // The rest of the limit stays with the work: a little slack for the pools, which may open one more.
    expect(flooded.descriptors).toBeLessThanOrEqual(before + cap + 8);
    expect(worker.output()).toContain('closed connections to the worker probes over their cap');
    flooded.end();
    // Once the flood is gone, a prober from one of its addresses is answered, every check passing.
    await vi.waitFor(
      async () => {
        const ready = await jsonRequest(port, 'GET', '/ready', { localAddress: '127.0.1.1' });
        expect(ready.status).toBe(200);
        expect(ready.json.status).toBe('ready');
      },
      { timeout: 10_000, interval: 250 },
    );
  });

  it('limits /ready per address, with Retry-After and the error body, as the server does', async () => {
    const answers = [];
    for (let i = 0; i < 8; i++)
      answers.push(await jsonRequest(port, 'GET', '/ready', { localAddress: '127.0.0.4' }));
    // READY_RATE_LIMIT_PER_MINUTE=5: one more every 12 s.
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    const refused = answers.at(-1)!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.json.error.code).toBe('rate_limited');
    const other = await jsonRequest(port, 'GET', '/ready', { localAddress: '127.0.0.5' });
    expect(other.status).toBe(200);
  });
});

describe("the server's port", () => {
  it('holds what its limit on open files leaves the requests, however many addresses connect', async () => {
    const cap = serverConnectionCap(OPEN_FILES)!;
    const before = await descriptors(srv.pid);
    const flooded = await flood(srv.port, srv.pid);
    expect(flooded.open).toBeLessThanOrEqual(cap);
    expect(flooded.descriptors).toBeLessThanOrEqual(before + cap + 8);
    await vi.waitFor(() => expect(srv.process.output()).toContain('closed connections over the total cap'));
    flooded.end();
    // Once the flood is gone, API calls are answered from the database as before.
    await vi.waitFor(
      async () => {
        const r = await jsonRequest(srv.port, 'GET', '/v1/workspaces', {
          headers: { authorization: `Bearer ${srv.key}` },
        });
        expect(r.status).toBe(200);
      },
      { timeout: 10_000, interval: 250 },
    );
  });
});
