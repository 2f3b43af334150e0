import {
  createDocSlurpClient,
  DocSlurpError,
  type EvaluationConfigurationInput,
  type FetchLike,
  type GrantsInput,
  type UploadResult,
} from '@service/sdk';
import type { components, paths } from '@service/sdk/openapi';
import { fileFractions } from './lib/progress';

/**
 * How the console talks to the service: same origin, with the HttpOnly session cookie the browser
 * attaches by itself, and the session's CSRF token on every state-changing request. It never holds an
 * API key: the SDK runs here without one.
 */

/**
 * The records the console reads are the schemas the service serves in its OpenAPI document (the same
 * generated types the SDK is built on), so a route that changes its response fails to compile here.
 */
type Schemas = components['schemas'];

export type Session = Schemas['Session'];
export type SessionUser = Session['user'];
export type ApiKey = Schemas['ApiKey'];
export type Scope = ApiKey['scopes'][number];
/** In the order the key form offers them. */
export const SCOPES: readonly Scope[] = ['ingest', 'search', 'artifacts', 'admin', 'act-as'];
export type Overview = Schemas['Overview'];
export type QuestionSetSummary = Schemas['QuestionSetSummary'];
export type Evaluation = Schemas['Evaluation'];
export type EvaluationConfiguration = Schemas['EvaluationConfiguration'];
export type EvaluationMetric = Schemas['EvaluationMetric'];
export type EvaluationMetrics = Schemas['EvaluationMetrics'];
export type EvaluationOutcome = Schemas['EvaluationOutcome'];
export type EvaluationComparison = Schemas['EvaluationComparison'];
export type SignInOptions =
  paths['/v1/session/options']['get']['responses'][200]['content']['application/json'];

let csrfToken: string | undefined;
const signedOutListeners = new Set<() => void>();

/** Called when the server says the session is gone (expired, or signed out in another tab). */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

const SAFE = new Set(['GET', 'HEAD']);

function headersWithCsrf(method: string, given: HeadersInit | undefined): Headers {
  const headers = new Headers(given);
  if (!SAFE.has(method.toUpperCase()) && csrfToken) headers.set('x-csrf-token', csrfToken);
  return headers;
}

function sessionEnded(): void {
  csrfToken = undefined;
  for (const l of signedOutListeners) l();
}

const sessionFetch: FetchLike = async (url, init) => {
  const method = init.method ?? 'GET';
  const response = await fetch(url, {
    ...init,
    credentials: 'same-origin',
    headers: headersWithCsrf(method, init.headers),
  });
  if (response.status === 401 && csrfToken) sessionEnded();
  return response;
};

/** The SDK for everything it covers (workspaces, uploads' runs, documents, search, chat). */
export const sdk = createDocSlurpClient({ apiUrl: window.location.origin, fetch: sessionFetch });

/** An error the API answered, with its stable code and the request id that finds it in the logs. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}

export function describeError(err: unknown): { message: string; code?: string; requestId?: string } {
  if (err instanceof ApiError || err instanceof DocSlurpError) {
    return { message: err.message, code: err.code, ...(err.requestId ? { requestId: err.requestId } : {}) };
  }
  return { message: err instanceof Error ? err.message : String(err) };
}

export function isNotFound(err: unknown): boolean {
  return (err instanceof ApiError || err instanceof DocSlurpError) && err.status === 404;
}

interface ErrorBody {
  error?: { code?: string; message?: string; requestId?: string };
}

async function errorFrom(response: Response): Promise<ApiError> {
  const text = await response.text();
  let body: ErrorBody = {};
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    // Not the service's error body (a proxy's page): report the status.
  }
  return new ApiError(
    body.error?.message ?? `The server answered ${response.status}.`,
    response.status,
    body.error?.code ?? `http_${response.status}`,
    body.error?.requestId ?? response.headers.get('x-request-id') ?? undefined,
  );
}

async function call<T>(method: string, path: string, json?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (json !== undefined) headers['content-type'] = 'application/json';
  const response = await sessionFetch(path, {
    method,
    headers,
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  if (!response.ok) throw await errorFrom(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** The console-only endpoints: session, API keys, overview. */
export const consoleApi = {
  /** The current session, or null when the browser is not signed in. */
  async session(): Promise<Session | null> {
    const response = await fetch('/v1/session', {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    });
    if (response.status === 401) return null;
    if (!response.ok) throw await errorFrom(response);
    const session = (await response.json()) as Session;
    csrfToken = session.csrfToken;
    return session;
  },
  async signIn(email: string, password: string): Promise<Session> {
    const session = await call<Session>('POST', '/v1/session', { email, password });
    csrfToken = session.csrfToken;
    return session;
  },
  /** Ends the session; answers where to end the identity provider's too, when it signed the person in. */
  async signOut(): Promise<string | undefined> {
    const ended = await call<{ endSessionUrl: string } | undefined>('DELETE', '/v1/session');
    csrfToken = undefined;
    return ended?.endSessionUrl;
  },
  /** How people sign in here (password, identity provider, both): asked before anyone is signed in. */
  signInOptions: () => call<SignInOptions>('GET', '/v1/session/options'),
  listKeys: () => call<{ keys: ApiKey[] }>('GET', '/v1/keys'),
  /** `userId` (an id or e-mail): the key acts exactly as that user; without it, for the whole account. */
  createKey: (name: string, scopes: Scope[], userId?: string) =>
    call<{ key: ApiKey; secret: string }>('POST', '/v1/keys', {
      ...(name ? { name } : {}),
      scopes,
      ...(userId ? { userId } : {}),
    }),
  revokeKey: (id: string) => call<ApiKey>('DELETE', `/v1/keys/${encodeURIComponent(id)}`),
  overview: () => call<Overview>('GET', '/v1/overview'),
};

/** A configuration as asked for: what it leaves out is the server's choice. */
export type ConfigurationInput = EvaluationConfigurationInput;

/** Evaluations through the SDK (the session's fetch), in the shapes the Quality screens read. */
export const evaluationsApi = {
  list: async (workspaceId: string) => ({ evaluations: await sdk.evaluations.list(workspaceId) }),
  get: (id: string) => sdk.evaluations.get(id),
  create: (questionSetId: string, configurations: ConfigurationInput[]) =>
    sdk.evaluations.create({ questionSetId, configurations }),
  /** `b` against the baseline `a`, both completed. */
  compare: (a: string, b: string) => sdk.evaluations.compare(a, b),
  cancel: (id: string) => sdk.evaluations.cancel(id),
  questions: (id: string, configuration: string, offset: number, limit: number) =>
    sdk.evaluations.questions(id, { configuration, offset, limit }),
  /** What every question got under every configuration, read 500 at a time. */
  allQuestions: async (id: string, signal?: AbortSignal) => {
    const all: EvaluationOutcome[] = [];
    for await (const o of sdk.evaluations.allQuestions(id, { limit: 500 }, signal ? { signal } : {}))
      all.push(o);
    return all;
  },
};

export interface UploadTask {
  promise: Promise<UploadResult>;
  abort(): void;
}

/**
 * Uploads files in one multipart request with XMLHttpRequest, the one browser API that reports upload
 * progress. The parts go out in order, so the bytes sent so far say how far each file has got:
 * `onProgress` receives one fraction (0–1) per file.
 */
export function uploadFiles(
  files: File[],
  target: { workspaceId: string } | { workspaceName: string | undefined },
  onProgress: (perFile: number[]) => void,
  access: GrantsInput | null = null,
): UploadTask {
  const form = new FormData();
  // Fields before files: the server checks the workspace before any file is streamed.
  if ('workspaceId' in target) form.append('workspaceId', target.workspaceId);
  else if (target.workspaceName) form.append('workspaceName', target.workspaceName);
  // Who of the workspace's readers may read every file of this upload; left out, all of them.
  if (access) form.append('access', JSON.stringify(access));
  for (const f of files) form.append('files', f, f.name);
  const xhr = new XMLHttpRequest();
  const promise = new Promise<UploadResult>((resolve, reject) => {
    xhr.open('POST', '/v1/ingest/bulk');
    xhr.responseType = 'text';
    xhr.setRequestHeader('accept', 'application/json');
    if (csrfToken) xhr.setRequestHeader('x-csrf-token', csrfToken);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(fileFractions(files, e.loaded, e.total));
    };
    xhr.onload = () => {
      const response = new Response(xhr.responseText, {
        status: xhr.status,
        headers: { 'x-request-id': xhr.getResponseHeader('x-request-id') ?? '' },
      });
      if (xhr.status === 401 && csrfToken) sessionEnded();
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(files.map(() => 1));
        resolve(JSON.parse(xhr.responseText) as UploadResult);
      } else void errorFrom(response).then(reject);
    };
    xhr.onerror = () => reject(new Error('The upload failed: the connection to the server was lost.'));
    xhr.onabort = () => reject(new Error('The upload was cancelled.'));
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}
