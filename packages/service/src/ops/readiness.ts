export interface DependencyCheck {
  name: string;
  /** A failing critical dependency makes the service unready (503). */
  critical: boolean;
  run: () => Promise<void>;
}

export interface CheckResult {
  ok: boolean;
  critical: boolean;
  latencyMs: number;
  error?: string;
}

export interface Readiness {
  status: 'ready' | 'degraded' | 'unavailable';
  checks: Record<string, CheckResult>;
  schemaVersion?: number | undefined;
}

function withTimeout<T>(p: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Runs every dependency check in parallel, each bounded in time, and summarises them. */
export async function checkReadiness(
  checks: DependencyCheck[],
  schemaVersion: () => Promise<number>,
  timeoutMs = 3000,
): Promise<Readiness> {
  const results: Record<string, CheckResult> = {};
  await Promise.all(
    checks.map(async (c) => {
      const t0 = performance.now();
      try {
        await withTimeout(c.run(), timeoutMs, c.name);
        results[c.name] = { ok: true, critical: c.critical, latencyMs: Math.round(performance.now() - t0) };
      } catch (err) {
        results[c.name] = {
          ok: false,
          critical: c.critical,
          latencyMs: Math.round(performance.now() - t0),
          error: (err as Error).message || String(err),
        };
      }
    }),
  );
  const failed = Object.values(results).filter((r) => !r.ok);
  const status = failed.some((r) => r.critical) ? 'unavailable' : failed.length ? 'degraded' : 'ready';
  const version = results.database?.ok ? await schemaVersion().catch(() => undefined) : undefined;
  return { status, checks: results, schemaVersion: version };
}

/**
 * One check of every dependency, shared by everyone who asks while it runs and for `maxAgeMs` after it
 * finished: a flood of `/ready` calls costs one round of checks a second (the object store's probe
 * writes, a database ping, the index's listing), not one each. A second is nothing to a probe that
 * asks every ten, and the answer still follows a dependency that fails or comes back within it.
 */
export function sharedReadiness(
  check: () => Promise<Readiness>,
  maxAgeMs = 1000,
  now: () => number = () => performance.now(),
): () => Promise<Readiness> {
  let last: { at: number; value: Readiness } | undefined;
  let running: Promise<Readiness> | undefined;
  return () => {
    if (last && now() - last.at < maxAgeMs) return Promise.resolve(last.value);
    running ??= check()
      .then((value) => {
        last = { at: now(), value };
        return value;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
}

/** What an anonymous caller may see on a hosted platform: states, no latencies, versions or errors. */
export function redactReadiness(r: Readiness): {
  status: Readiness['status'];
  checks: Record<string, { ok: boolean }>;
} {
  return {
    status: r.status,
    checks: Object.fromEntries(Object.entries(r.checks).map(([k, v]) => [k, { ok: v.ok }])),
  };
}
