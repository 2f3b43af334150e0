/** A small fetch wrapper for tests: JSON in, `{status, body, headers}` out. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies and assert on their shape.
export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export function client(baseUrl: string, key?: string) {
  const headers = (extra: Record<string, string> = {}) => ({
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...extra,
  });
  const parse = async (res: Response): Promise<Reply> => {
    const text = await res.text();
    let body: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) body = text ? JSON.parse(text) : undefined;
    return { status: res.status, body, headers: res.headers };
  };
  return {
    get: async (path: string) => parse(await fetch(baseUrl + path, { headers: headers() })),
    delete: async (path: string) =>
      parse(await fetch(baseUrl + path, { method: 'DELETE', headers: headers() })),
    post: async (path: string, json?: unknown) =>
      parse(
        await fetch(baseUrl + path, {
          method: 'POST',
          headers: headers(json === undefined ? {} : { 'content-type': 'application/json' }),
          ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        }),
      ),
    patch: async (path: string, json: unknown) =>
      parse(
        await fetch(baseUrl + path, {
          method: 'PATCH',
          headers: headers({ 'content-type': 'application/json' }),
          body: JSON.stringify(json),
        }),
      ),
    upload: async (
      files: { name: string; content: string | Uint8Array; type?: string }[],
      fields: Record<string, string> = {},
    ) => {
      const form = new FormData();
      // Fields first, as the SDK sends them, so a bad workspace id fails before the upload.
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      for (const f of files)
        form.append('files', new Blob([f.content], { type: f.type ?? 'application/octet-stream' }), f.name);
      return parse(
        await fetch(`${baseUrl}/v1/ingest/bulk`, { method: 'POST', headers: headers(), body: form }),
      );
    },
    /** Polls the run's progress until it is done (or paused), failing after `timeoutMs`. */
    waitForRun: async (runId: string, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const answer = await fetch(`${baseUrl}/v1/runs/${runId}/progress`, { headers: headers() });
        const r = await parse(answer);
        // Polled ten times a second, a long run meets the key's rate limit: wait as told, as a client would.
        if (r.status === 429 && Date.now() < deadline) {
          const wait = Number(answer.headers.get('retry-after') ?? 1) * 1000;
          await new Promise((res) => setTimeout(res, wait));
          continue;
        }
        if (r.status !== 200) throw new Error(`progress returned ${r.status}: ${JSON.stringify(r.body)}`);
        if (r.body.done || r.body.status === 'paused') return r.body;
        if (Date.now() > deadline)
          throw new Error(`run ${runId} still ${r.body.status} after ${timeoutMs} ms`);
        await new Promise((res) => setTimeout(res, 100));
      }
    },
  };
}
