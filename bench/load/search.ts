/** Search under concurrent clients: the service over HTTP (autocannon) and the LanceDB reference. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { repoRoot } from '../lib/data.js';
import { mean, percentile } from '../lib/metrics.js';
import { loadTexts, queryCycle } from './corpus.js';
import { cpuMs } from './service.js';

export interface LatencySummary {
  requests: number;
  errors: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** CPU time of the searching process (the service, or the reference) per request. */
  cpuMsPerRequest: number;
}

function summarize(latencies: number[], errors: number, elapsedMs: number, cpu: number): LatencySummary {
  const round = (n: number) => Number(n.toFixed(2));
  return {
    requests: latencies.length,
    errors,
    requestsPerSecond: round(latencies.length / (elapsedMs / 1000)),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    meanMs: round(mean(latencies)),
    cpuMsPerRequest: round(cpu / Math.max(1, latencies.length)),
  };
}

/**
 * POST /v1/search from `clients` connections for `seconds`, cycling through the queries. Latencies
 * are taken from autocannon's per-response timings (sub-millisecond; its histogram keeps whole ms).
 */
export async function searchService(options: {
  url: string;
  pid: number;
  key: string;
  workspaceId: string;
  clients: number;
  seconds: number;
  topK: number;
  /** Served as this user (DocSlurp-On-Behalf-Of; the key needs the act-as scope). */
  onBehalfOf?: string | undefined;
}): Promise<LatencySummary & { non2xx: number; timeouts: number; clientCpuMsPerRequest: number }> {
  const next = queryCycle(loadTexts().queries);
  const latencies: number[] = [];
  const t0 = performance.now();
  const cpu0 = cpuMs(options.pid);
  const client0 = process.cpuUsage();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${options.url}/v1/search`,
        connections: options.clients,
        duration: options.seconds,
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.key}`,
          'content-type': 'application/json',
          ...(options.onBehalfOf ? { 'docslurp-on-behalf-of': options.onBehalfOf } : {}),
        },
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({ workspaceId: options.workspaceId, q: next(), topK: options.topK }),
            }),
          },
        ],
      },
      (err, r) => (err ? reject(err) : resolve(r)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  const elapsedMs = performance.now() - t0;
  const cpu = cpuMs(options.pid) - cpu0;
  const client = process.cpuUsage(client0);
  const failed = result.errors + result.non2xx + result.timeouts;
  return {
    ...summarize(latencies, failed, elapsedMs, cpu),
    non2xx: result.non2xx,
    timeouts: result.timeouts,
    // The load generator shares the two cores with the service: what it costs is part of the picture.
    clientCpuMsPerRequest: Number(
      ((client.user + client.system) / 1000 / Math.max(1, latencies.length)).toFixed(2),
    ),
  };
}

const execFileAsync = promisify(execFile);

/** The direct LanceDB query in its own Node process (see lance-reference.ts). */
export async function searchReference(options: {
  indexUri: string;
  table: string;
  clients: number;
  seconds: number;
  limit: number;
}): Promise<LatencySummary> {
  const { stdout } = await execFileAsync(
    path.join(repoRoot, 'node_modules/.bin/tsx'),
    [path.join(repoRoot, 'bench/load/lance-reference.ts'), JSON.stringify({ ...options, warmup: 50 })],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  const r = JSON.parse(stdout.trim().split('\n').pop()!) as {
    latencies: number[];
    errors: number;
    elapsedMs: number;
    cpuMs: number;
  };
  return summarize(r.latencies, r.errors, r.elapsedMs, r.cpuMs);
}
