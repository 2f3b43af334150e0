/**
 * `docslurp eval`: a question file stored as a set of the workspace, asked under one configuration,
 * its metrics printed, and optionally compared with a baseline evaluation as a gate for CI (exit 1
 * when a quality metric dropped by more than the tolerance). With SERVICE_URL it talks to that
 * service over HTTP (SERVICE_API_KEY); otherwise it uses the local database as the other commands do
 * and runs the evaluation in this process instead of waiting for a worker.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createDeps, type Deps } from '../deps.js';
import { DEFAULT_ACCOUNT } from '../domain/keys.js';
import type { Principal } from '../domain/types.js';
import { AppError } from '../errors.js';
import type { Comparison } from '../evaluation/compare.js';
import {
  type ConfigurationInput,
  compareEvaluations,
  createEvaluation,
  evaluationDepsOf,
  getEvaluation,
} from '../evaluation/evaluations.js';
import { createQuestionSet } from '../evaluation/question-sets.js';
import { questionFormatOf } from '../evaluation/questions.js';
import { runEvaluation } from '../evaluation/runner.js';
import { FINISHED_EVALUATION } from '../evaluation/store.js';
import { evaluationView } from '../http/evaluation-views.js';
import { migrateAll, resolveDatabases } from './database.js';
import { droppedMetrics, type EvaluationJson, metricsTable } from './eval-report.js';

/** The command's lines of `docslurp --help`. */
export const EVAL_USAGE = `  eval --workspace ID --questions FILE.jsonl|csv|json [--name NAME] [--top-k N]
       [--mode lexical|vector|hybrid] [--rerank] [--no-answers | --answers extractive|model]
       [--baseline EVALUATION_ID] [--fail-on-drop 0.02] [--account ACCOUNT] [--json]
                         store the file as a question set, evaluate it (progress on stderr) and print
                         its metrics; with --baseline, exit 1 when a quality metric dropped by more
                         than --fail-on-drop. With SERVICE_URL (and SERVICE_API_KEY) it asks that
                         service; otherwise it uses the local database and runs in this process`;

/** A mistake of the caller or a failed evaluation: its message, and exit code 2. */
export class EvalFailure extends Error {}

interface Options {
  workspaceId: string;
  file: string;
  name: string | undefined;
  configuration: ConfigurationInput;
  baseline: string | undefined;
  tolerance: number;
  json: boolean;
  account: string | undefined;
}

function options(args: string[]): Options {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: false,
    options: {
      workspace: { type: 'string' },
      questions: { type: 'string' },
      name: { type: 'string' },
      'top-k': { type: 'string' },
      mode: { type: 'string' },
      rerank: { type: 'boolean' },
      'no-answers': { type: 'boolean' },
      answers: { type: 'string' },
      baseline: { type: 'string' },
      'fail-on-drop': { type: 'string' },
      account: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  void positionals;
  if (!values.workspace) throw new EvalFailure('eval needs --workspace <workspace id>');
  if (!values.questions) throw new EvalFailure('eval needs --questions <file.jsonl|csv|json>');
  if (!questionFormatOf(values.questions, undefined))
    throw new EvalFailure(`--questions "${values.questions}" must end in .jsonl, .csv or .json`);
  const search: NonNullable<ConfigurationInput['search']> = {};
  if (values['top-k'] !== undefined) {
    const k = Number(values['top-k']);
    if (!Number.isInteger(k) || k < 1)
      throw new EvalFailure(`--top-k must be a positive whole number, not "${values['top-k']}"`);
    search.topK = k;
  }
  if (values.mode !== undefined) {
    if (!['lexical', 'vector', 'hybrid'].includes(values.mode))
      throw new EvalFailure(`--mode must be lexical, vector or hybrid, not "${values.mode}"`);
    search.mode = values.mode as 'lexical' | 'vector' | 'hybrid';
  }
  if (values.rerank) search.rerank = true;
  if (values['no-answers'] && values.answers !== undefined)
    throw new EvalFailure('give either --no-answers or --answers, not both');
  if (values.answers !== undefined && !['extractive', 'model'].includes(values.answers))
    throw new EvalFailure(`--answers must be extractive or model, not "${values.answers}"`);
  const configuration: ConfigurationInput = {};
  if (Object.keys(search).length > 0) configuration.search = search;
  if (values['no-answers']) configuration.answers = null;
  else if (values.answers) configuration.answers = { mode: values.answers as 'extractive' | 'model' };
  const tolerance = values['fail-on-drop'] === undefined ? 0.02 : Number(values['fail-on-drop']);
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new EvalFailure(`--fail-on-drop must be a number of at least 0, not "${values['fail-on-drop']}"`);
  return {
    workspaceId: values.workspace,
    file: values.questions,
    name: values.name,
    configuration,
    baseline: values.baseline,
    tolerance,
    json: values.json ?? false,
    account: values.account,
  };
}

/** One line on stderr per change of progress: done/total and the ETA. */
function progressReporter(): (e: { status: string; progress: EvaluationJson['progress'] }) => void {
  let last = '';
  return (e) => {
    const { done, total, etaSeconds } = e.progress;
    const line = `[eval] ${e.status}: ${done}/${total} questions${etaSeconds === null ? '' : `, ETA ${etaSeconds} s`}`;
    if (line === last) return;
    last = line;
    process.stderr.write(`${line}\n`);
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the command needs of a service, over HTTP or in this process. */
interface Backend {
  createSet(name: string | undefined, filename: string, content: Buffer): Promise<{ id: string }>;
  create(input: {
    questionSetId: string;
    name?: string | undefined;
    configurations: ConfigurationInput[];
  }): Promise<EvaluationJson>;
  /** Until it is completed, failed or cancelled. */
  wait(id: string, onProgress: (e: EvaluationJson) => void): Promise<EvaluationJson>;
  compare(a: string, b: string): Promise<Comparison>;
  close(): Promise<void>;
}

function httpBackend(baseUrl: string, apiKey: string | undefined, workspaceId: string): Backend {
  let base = baseUrl;
  while (base.endsWith('/')) base = base.slice(0, -1);
  const call = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    let payload: FormData | string | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetch(`${base}${url}`, {
        method,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
      });
    } catch (err) {
      throw new EvalFailure(`cannot reach ${base}: ${(err as Error).message}`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new EvalFailure(`${method} ${url} answered ${res.status} with a body that is not JSON`);
    }
    if (!res.ok) {
      const e = (json as { error?: { code?: string; message?: string } }).error;
      throw new EvalFailure(
        `${method} ${url} answered ${res.status} (${e?.code ?? 'error'}): ${e?.message ?? text}`,
      );
    }
    return json as T;
  };
  return {
    createSet(name, filename, content) {
      const form = new FormData();
      if (name) form.append('name', name);
      form.append('file', new Blob([new Uint8Array(content)]), filename);
      return call('POST', `/v1/workspaces/${encodeURIComponent(workspaceId)}/question-sets`, form);
    },
    create: (input) => call('POST', '/v1/evaluations', input),
    async wait(id, onProgress) {
      for (let delay = 250; ; delay = Math.min(2000, delay * 1.5)) {
        const e = await call<EvaluationJson>('GET', `/v1/evaluations/${encodeURIComponent(id)}`);
        onProgress(e);
        if (FINISHED_EVALUATION.includes(e.status)) return e;
        await sleep(delay);
      }
    },
    compare: (a, b) =>
      call('GET', `/v1/evaluations/${encodeURIComponent(a)}/compare/${encodeURIComponent(b)}`),
    close: async () => {},
  };
}

/** The local database, as the other commands use it, and the evaluation run in this process. */
async function localBackend(
  config: Config,
  log: Logger,
  account: string | undefined,
  workspaceId: string,
): Promise<Backend> {
  const dbs = await resolveDatabases(config, log, 'attach');
  let deps: Deps | undefined;
  try {
    if (dbs.embedded?.owned) await migrateAll(config, dbs.urls, () => {});
    deps = await createDeps(config, log, dbs.urls);
  } catch (err) {
    await dbs.embedded?.stop();
    throw err;
  }
  const d = deps;
  const found = await d.accounts.findAccount(account ?? DEFAULT_ACCOUNT);
  if (!found) {
    await d.close();
    await dbs.embedded?.stop();
    throw new EvalFailure(`no account "${account ?? DEFAULT_ACCOUNT}" in this database`);
  }
  const principal: Principal = {
    accountId: found.id,
    scopes: new Set(['ingest', 'search', 'artifacts']),
    keyId: undefined,
    userId: undefined,
    role: undefined,
    member: undefined,
    actor: `command line (${os.userInfo().username}@${os.hostname()})`,
  };
  const evaluationDeps = evaluationDepsOf(d);
  return {
    async createSet(name, filename, content) {
      const format = questionFormatOf(filename, undefined);
      if (!format) throw new EvalFailure(`"${filename}" is not a question file`);
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(content);
      } catch {
        throw new EvalFailure(`${filename} is not UTF-8 text`);
      }
      const fallback = path.basename(filename).replace(/\.[^.]*$/, '') || 'Questions';
      return createQuestionSet(d, principal, workspaceId, {
        name: (name || fallback).slice(0, 200),
        questions: { kind: 'file', format, content: text },
      });
    },
    async create(input) {
      return evaluationView(await createEvaluation(evaluationDeps, principal, input));
    },
    async wait(id, onProgress) {
      const holder = `cli_${process.pid}`;
      const running = runEvaluation(d, id, holder);
      let settled = false;
      void running.finally(() => {
        settled = true;
      });
      for (;;) {
        const e = evaluationView(await getEvaluation(d, principal, id));
        onProgress(e);
        if (FINISHED_EVALUATION.includes(e.status)) {
          await running.catch(() => {});
          return e;
        }
        // A worker of a running service may have taken it first: then it is followed like over HTTP.
        if (settled) await running;
        await sleep(250);
      }
    },
    compare: (a, b) => compareEvaluations(d, principal, a, b),
    async close() {
      await d.close();
      await dbs.embedded?.stop();
    },
  };
}

export async function evaluate(
  config: Config,
  log: Logger,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<void> {
  let backend: Backend | undefined;
  try {
    const o = options(args);
    let content: Buffer;
    try {
      content = await readFile(o.file);
    } catch (err) {
      throw new EvalFailure(`cannot read ${o.file}: ${(err as Error).message}`);
    }
    const serviceUrl = env.SERVICE_URL?.trim();
    if (serviceUrl)
      backend = httpBackend(serviceUrl, env.SERVICE_API_KEY?.trim() || undefined, o.workspaceId);
    else backend = await localBackend(config, log, o.account, o.workspaceId);
    const set = await backend.createSet(o.name, path.basename(o.file), content);
    const created = await backend.create({
      questionSetId: set.id,
      ...(o.name ? { name: o.name } : {}),
      configurations: [o.configuration],
    });
    process.stderr.write(`[eval] evaluation ${created.id} of question set ${set.id}\n`);
    const done = await backend.wait(created.id, progressReporter());
    if (done.status !== 'completed')
      throw new EvalFailure(
        `evaluation ${done.id} ${done.status}${done.error ? `: ${done.error.message} (${done.error.code})` : ''}`,
      );
    const comparison = o.baseline ? await backend.compare(o.baseline, done.id) : undefined;
    const dropped = comparison ? droppedMetrics(comparison, o.tolerance) : [];
    if (o.json)
      process.stdout.write(`${JSON.stringify(comparison ? { ...done, comparison } : done, null, 2)}\n`);
    else process.stdout.write(metricsTable(done, comparison, new Set(dropped.map((d) => d.key))));
    if (dropped.length > 0) {
      process.stderr.write(
        `[eval] ${dropped.length} metric${dropped.length === 1 ? '' : 's'} dropped by more than ${o.tolerance} against ${o.baseline}:\n${dropped.map((d) => `  ${d.text}`).join('\n')}\n`,
      );
      process.exitCode = 1;
    } else if (comparison)
      process.stderr.write(`[eval] no metric dropped by more than ${o.tolerance} against ${o.baseline}\n`);
  } catch (err) {
    // A mistyped option is main's to report (with the usage, exit 2).
    if ((err as { code?: unknown }).code?.toString().startsWith('ERR_PARSE_ARGS_')) throw err;
    const known = err instanceof EvalFailure || err instanceof AppError;
    process.stderr.write(`docslurp eval: ${known ? '' : 'failed: '}${(err as Error).message}\n`);
    if (!known) log.debug({ err }, 'eval failed');
    process.exitCode = 2;
  } finally {
    await backend?.close();
  }
}
