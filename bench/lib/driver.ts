/** Drives a running DocSlurp over HTTP exactly as a client would: upload, wait for runs, query. */

export interface UploadFile {
  name: string;
  content: string;
  type: string;
}

// biome-ignore lint/suspicious/noExplicitAny: benchmark code reads the API's JSON by field name.
type Json = any;

export class ServiceClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
  ) {}

  private async request(path: string, init: RequestInit = {}): Promise<Json> {
    const res = await fetch(this.baseUrl + path, {
      ...init,
      headers: { authorization: `Bearer ${this.key}`, ...(init.headers as Record<string, string>) },
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path} → ${res.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text);
  }

  async get(path: string): Promise<Json> {
    return this.request(path);
  }

  /** A text (not JSON) answer, e.g. a document's extracted text. */
  async getText(path: string): Promise<string> {
    const res = await fetch(this.baseUrl + path, { headers: { authorization: `Bearer ${this.key}` } });
    const text = await res.text();
    if (!res.ok) throw new Error(`GET ${path} → ${res.status}: ${text.slice(0, 300)}`);
    return text;
  }

  async post(path: string, body: unknown): Promise<Json> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /** One upload request; returns the workspace and run ids and the documents' ids by file name. */
  async upload(files: UploadFile[], workspaceId?: string) {
    const form = new FormData();
    if (workspaceId) form.append('workspaceId', workspaceId);
    for (const f of files) form.append('files', new Blob([f.content], { type: f.type }), f.name);
    const body = await this.request('/v1/ingest/bulk', { method: 'POST', body: form });
    return {
      workspaceId: body.workspace.id as string,
      runId: body.run.id as string,
      documents: (body.documents as { id: string; filename: string }[]).map((d) => [d.filename, d.id]),
    };
  }

  async waitForRun(runId: string, timeoutMs: number): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const p = await this.request(`/v1/runs/${runId}/progress`);
      if (p.done || p.status === 'paused') return p;
      if (Date.now() > deadline) throw new Error(`run ${runId} not done after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /**
   * Uploads every file into one workspace in batches, then waits for all runs. Returns the workspace
   * and a map from file name to document id. Fails if any document did not become ready.
   */
  async ingest(
    files: UploadFile[],
    options: { batch?: number; timeoutMs?: number; log?: (s: string) => void } = {},
  ) {
    const batch = options.batch ?? 250;
    let workspaceId: string | undefined;
    const ids = new Map<string, string>();
    const runs: string[] = [];
    for (let i = 0; i < files.length; i += batch) {
      const up = await this.upload(files.slice(i, i + batch), workspaceId);
      workspaceId = up.workspaceId;
      runs.push(up.runId);
      for (const [name, id] of up.documents) ids.set(name!, id!);
    }
    let done = 0;
    for (const runId of runs) {
      const p = await this.waitForRun(runId, options.timeoutMs ?? 60 * 60 * 1000);
      if (p.counts.ready !== p.counts.total) {
        throw new Error(
          `run ${runId}: ${p.counts.ready}/${p.counts.total} ready: ${JSON.stringify(p.failures)}`,
        );
      }
      done += p.counts.total;
      options.log?.(`  ${done}/${files.length} documents ready`);
    }
    return { workspaceId: workspaceId!, ids };
  }

  async search(body: Record<string, unknown>): Promise<Json> {
    return this.post('/v1/search', body);
  }

  async chat(body: Record<string, unknown>): Promise<Json> {
    return this.post('/v1/search/chat', body);
  }
}
