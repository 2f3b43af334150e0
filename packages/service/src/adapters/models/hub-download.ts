import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { HubModelRef } from '../../config.js';
import type { Log } from '../../domain/log.js';

/**
 * Downloads a pinned model repository's files from a Hugging Face-compatible hub, the way the hub
 * serves them: `GET <hub>/<repo>/resolve/<revision>/<path>`, answered directly for small files and
 * with a redirect to a CDN for large (LFS) ones, whose SHA-256 the hub states in `X-Linked-Etag`.
 *
 * Files are written to a staging folder as `<path>.part` and continued with `Range` requests after an
 * interruption (in the same attempt, in a later one, or after a restart); each is hashed and refused
 * unless it matches its pin. When all are verified the folder is renamed in one step to
 * `<dir>/<repo>/<revision>/`, so a model folder is either complete and verified or absent.
 */

export class ModelDownloadError extends Error {
  constructor(
    message: string,
    /** Worth another attempt later (hub unreachable, 5xx, 429, a stalled transfer). */
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ModelDownloadError';
  }
}

export interface HubDownloadOptions {
  hubUrl: string;
  /** MODELS_DIR */
  dir: string;
  log: Log;
  signal?: AbortSignal | undefined;
  /** A transfer that delivers nothing for this long is abandoned (and continued later). */
  stallMs?: number | undefined;
}

const MANIFEST = 'docslurp-model.json';
const MAX_REDIRECTS = 5;
/** Interruptions of one file that are continued at once before the attempt is given up. */
const RESUMES_PER_ATTEMPT = 3;
const STALL_MS = 60_000;

export function modelFolder(dir: string, ref: HubModelRef): string {
  return path.join(dir, ...ref.repo.split('/'), ref.revision);
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The verified copy's folder when one is there: its manifest names this revision and every file
 * still hashes to its pin (checked at every start, so a damaged copy is noticed and fetched again).
 */
export async function verifiedModelFolder(dir: string, ref: HubModelRef): Promise<string | undefined> {
  const folder = modelFolder(dir, ref);
  const manifest = await readFile(path.join(folder, MANIFEST), 'utf8')
    .then((t) => JSON.parse(t) as { repo?: string; revision?: string })
    .catch(() => undefined);
  if (manifest?.repo !== ref.repo || manifest.revision !== ref.revision) return undefined;
  for (const f of ref.files) {
    const digest = await sha256File(path.join(folder, f.path)).catch(() => undefined);
    if (digest !== f.sha256) return undefined;
  }
  return folder;
}

/** The model's verified folder, downloading what is missing first. */
export async function ensureHubModel(ref: HubModelRef, options: HubDownloadOptions): Promise<string> {
  const target = modelFolder(options.dir, ref);
  const cached = await verifiedModelFolder(options.dir, ref);
  if (cached) return cached;
  const staging = await stagingFolder(options.dir, ref);
  const started = performance.now();
  for (const file of ref.files) await downloadFile(ref, file, staging, options);
  await writeFile(
    path.join(staging, MANIFEST),
    `${JSON.stringify({ repo: ref.repo, revision: ref.revision, files: ref.files, hub: options.hubUrl }, null, 2)}\n`,
  );
  // Another process sharing the folder may have finished first: its copy is as good as this one.
  if (await verifiedModelFolder(options.dir, ref)) {
    await rm(staging, { recursive: true, force: true });
    return target;
  }
  // An unverifiable copy in the way (another pin of the same revision, a damaged file) is replaced.
  await rm(target, { recursive: true, force: true });
  await mkdir(path.dirname(target), { recursive: true });
  try {
    await rename(staging, target);
  } catch (err) {
    // Another process got its copy into place in between.
    await rm(staging, { recursive: true, force: true });
    if (!(await verifiedModelFolder(options.dir, ref))) throw err;
  }
  options.log.info(
    { model: ref.repo, revision: ref.revision, dir: target, ms: Math.round(performance.now() - started) },
    'model downloaded and verified',
  );
  return target;
}

/**
 * This process's staging folder. A staging folder left by a process that is gone is taken over (a
 * rename, which only one process can win) so that its partial files are continued, not restarted;
 * one of a live process is left alone.
 */
async function stagingFolder(dir: string, ref: HubModelRef): Promise<string> {
  const base = path.join(dir, '.downloads');
  await mkdir(base, { recursive: true });
  const prefix = `${ref.repo.replace('/', '--')}@${ref.revision}.`;
  const mine = path.join(base, `${prefix}${process.pid}`);
  for (const name of await readdir(base)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (pid === process.pid) return mine;
    if (Number.isInteger(pid) && isAlive(pid)) continue;
    if (
      await rename(path.join(base, name), mine).then(
        () => true,
        () => false,
      )
    )
      return mine;
  }
  await mkdir(mine, { recursive: true });
  return mine;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function downloadFile(
  ref: HubModelRef,
  file: { path: string; sha256: string },
  staging: string,
  options: HubDownloadOptions,
): Promise<void> {
  const final = path.join(staging, file.path);
  // Verified by an earlier attempt that failed on a later file.
  if ((await sha256File(final).catch(() => undefined)) === file.sha256) return;
  await mkdir(path.dirname(final), { recursive: true });
  const part = `${final}.part`;
  const url = `${options.hubUrl}/${ref.repo}/resolve/${ref.revision}/${file.path.split('/').map(encodeURIComponent).join('/')}`;
  for (let resumes = 0; ; resumes++) {
    const before = await sizeOf(part);
    try {
      await transfer(ref, file, url, part, before, options);
      break;
    } catch (err) {
      if (options.signal?.aborted) throw err;
      const progressed = (await sizeOf(part)) > before;
      const retryable = !(err instanceof ModelDownloadError) || err.retryable;
      if (!retryable || !progressed || resumes >= RESUMES_PER_ATTEMPT) {
        throw err instanceof ModelDownloadError
          ? err
          : new ModelDownloadError(`downloading ${ref.repo}/${file.path} failed: ${describe(err)}`, true, {
              cause: err,
            });
      }
      options.log.warn(
        { model: ref.repo, file: file.path, bytes: await sizeOf(part), err: describe(err) },
        'model download interrupted; continuing where it stopped',
      );
    }
  }
  const digest = await sha256File(part);
  if (digest !== file.sha256) {
    await rm(part, { force: true });
    throw new ModelDownloadError(
      `${ref.repo}/${file.path} at ${ref.revision} has SHA-256 ${digest}, not the pinned ${file.sha256}: refused and deleted`,
      false,
    );
  }
  await rename(part, final);
}

async function sizeOf(file: string): Promise<number> {
  return (await stat(file).catch(() => undefined))?.size ?? 0;
}

function describe(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return cause && !e.message.includes(cause) ? `${e.message} (${cause})` : e.message;
}

interface HubResponse {
  res: Response;
  commit: string | undefined;
}

/**
 * GET with redirects followed by hand, to read the hub's own headers before the CDN answers: a file
 * the hub says has another SHA-256 than the pin (`X-Linked-Etag`) is refused before any byte moves.
 */
async function request(
  url: string,
  offset: number,
  signal: AbortSignal,
  pinned: string,
  what: string,
): Promise<HubResponse> {
  let current = url;
  let commit: string | undefined;
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await fetch(current, {
        redirect: 'manual',
        signal,
        // Identity encoding: byte ranges and lengths then count the file's own bytes.
        headers: {
          'user-agent': 'DocSlurp',
          'accept-encoding': 'identity',
          ...(offset > 0 ? { range: `bytes=${offset}-` } : {}),
        },
      });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new ModelDownloadError(
        `${new URL(current).origin} could not be reached: ${describe(err)}`,
        true,
        {
          cause: err,
        },
      );
    }
    const linked = res.headers.get('x-linked-etag')?.replace(/^W\//, '').replaceAll('"', '');
    if (linked && /^[0-9a-f]{64}$/.test(linked) && linked !== pinned) {
      await res.body?.cancel();
      throw new ModelDownloadError(
        `the hub gives ${what} the SHA-256 ${linked}, not the pinned ${pinned}: refused`,
        false,
      );
    }
    commit ??= res.headers.get('x-repo-commit') ?? undefined;
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw new ModelDownloadError(`${url}: too many redirects`, false);
      current = new URL(location, current).toString();
      continue;
    }
    return { res, commit };
  }
}

/** One GET of the file from `offset` (a Range request when > 0), appended to `part`. */
async function transfer(
  ref: HubModelRef,
  file: { path: string; sha256: string },
  url: string,
  part: string,
  offset: number,
  options: HubDownloadOptions,
): Promise<void> {
  const stall = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stall.signal]) : stall.signal;
  const stallMs = options.stallMs ?? STALL_MS;
  let timer = setTimeout(() => stall.abort(new Error(`no data for ${stallMs} ms`)), stallMs);
  try {
    const what = `${ref.repo}/${file.path} at ${ref.revision}`;
    const { res, commit } = await request(url, offset, signal, file.sha256, what);
    if (res.status === 416) {
      // The part already holds the whole file; its hash decides.
      await res.body?.cancel();
      return;
    }
    if (!res.ok) {
      await res.body?.cancel();
      const code = res.headers.get('x-error-code');
      const reason = `${what}: HTTP ${res.status}${code ? ` ${code}` : ''} from ${new URL(res.url || url).origin}`;
      const retryable = res.status === 429 || res.status >= 500;
      throw new ModelDownloadError(
        res.status === 401 || res.status === 403
          ? `${reason} (a gated or private model; not supported)`
          : reason,
        retryable,
      );
    }
    let start = 0;
    let total = Number(res.headers.get('content-length') ?? Number.NaN);
    if (res.status === 206) {
      const m = /bytes (\d+)-\d+\/(\d+|\*)/.exec(res.headers.get('content-range') ?? '');
      start = m ? Number(m[1]) : Number.NaN;
      total = m && m[2] !== '*' ? Number(m[2]) : Number.NaN;
      if (start !== offset) {
        await res.body?.cancel();
        await rm(part, { force: true });
        throw new ModelDownloadError(`${what}: the server answered another range; starting over`, true);
      }
    } else if (offset > 0) {
      options.log.info(
        { model: ref.repo, file: file.path },
        'the server cannot continue a download; starting over',
      );
    }
    options.log.info(
      {
        model: ref.repo,
        file: file.path,
        revision: commit ?? ref.revision,
        totalBytes: Number.isFinite(total) ? total : undefined,
        ...(start > 0 ? { resumeFromBytes: start } : {}),
      },
      start > 0 ? 'continuing model download' : 'downloading model file',
    );
    const out = await open(part, start > 0 ? 'a' : 'w');
    let received = start;
    let loggedTenth = Number.isFinite(total) && total > 0 ? Math.floor((start * 10) / total) : 0;
    try {
      if (!res.body) throw new ModelDownloadError(`${what}: empty response`, true);
      for await (const chunk of Readable.fromWeb(res.body as import('node:stream/web').ReadableStream)) {
        clearTimeout(timer);
        timer = setTimeout(() => stall.abort(new Error(`no data for ${stallMs} ms`)), stallMs);
        await out.write(chunk as Buffer);
        received += (chunk as Buffer).length;
        const tenth = Number.isFinite(total) && total > 0 ? Math.floor((received * 10) / total) : 0;
        if (tenth > loggedTenth && tenth < 10) {
          loggedTenth = tenth;
          options.log.info(
            { model: ref.repo, file: file.path, bytes: received, totalBytes: total, percent: tenth * 10 },
            'model download progress',
          );
        }
      }
    } finally {
      await out.close();
    }
    if (Number.isFinite(total) && received < total) {
      throw new ModelDownloadError(`${what}: the connection ended after ${received} of ${total} bytes`, true);
    }
  } catch (err) {
    if (stall.signal.aborted && !options.signal?.aborted) {
      throw new ModelDownloadError(
        `downloading ${ref.repo}/${file.path} stalled: ${describe(stall.signal.reason)}`,
        true,
      );
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
