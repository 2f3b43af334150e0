import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ParserConfig } from '../config.js';
import type { Log } from '../domain/log.js';
import type { DocumentParser, ParsedDocument, ParseInput } from '../domain/ports.js';
import { DocumentFailure } from '../errors.js';
import { bwrapArgs, explainBwrapFailure, SANDBOX_ENV, SANDBOX_INPUT, type SandboxLayout } from './bwrap.js';
import { type ParseRequest, type ParseResponse, SANDBOX_FAILURES } from './protocol.js';
import { type Command, type Outcome, type ProcessLimits, supervise } from './supervise.js';

export type Isolation = 'bwrap' | 'process';

export class ParserIsolationUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`parser isolation unavailable: ${reason}`);
    this.name = 'ParserIsolationUnavailable';
  }
}

export interface SandboxedParserOptions {
  config: ParserConfig;
  layout: SandboxLayout;
  /** Host folder for the per-document working folders of the unisolated fallback. */
  tmpDir: string;
  log: Log;
}

/** A parse that reached a verdict, with what it cost (for benchmarks and logs). */
export interface SandboxedParse {
  result: ParseResponse;
  peakRssBytes: number;
  wallMs: number;
}

const PROBE_TIMEOUT_MS = 20_000;

/** The bubblewrap program: a file named by the setting itself, or `bwrap` in one of its folders. */
function findBwrap(searchPath: string): string | undefined {
  for (const entry of searchPath.split(':')) {
    if (!entry) continue;
    const candidate = entry.endsWith('/bwrap') ? entry : path.join(entry, 'bwrap');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Parses every document in a fresh process: inside bubblewrap when it can run here, otherwise (only
 * when isolation is not required) in a plain child process under the same resource limits. The
 * choice is made once, by running the sandbox for real, before the first document.
 */
export class SandboxedParser implements DocumentParser {
  private isolation: Promise<Isolation> | undefined;

  constructor(private readonly options: SandboxedParserOptions) {}

  /** Checks once how parsers will run; throws ParserIsolationUnavailable when isolation is required and impossible. */
  start(): Promise<Isolation> {
    this.isolation ??= this.chooseIsolation();
    return this.isolation;
  }

  async parse(input: ParseInput, signal: AbortSignal): Promise<ParsedDocument> {
    const { result } = await this.parseMeasured(input, signal);
    if (!result.ok) throw new DocumentFailure(result.code, result.message);
    return result.document;
  }

  async parseMeasured(input: ParseInput, signal: AbortSignal): Promise<SandboxedParse> {
    const isolation = await this.start();
    const { config } = this.options;
    const inside = isolation === 'bwrap' ? SANDBOX_INPUT : input.path;
    const request: ParseRequest = {
      inputPath: inside,
      filename: input.filename,
      declaredMediaType: input.declaredMediaType,
      profile: config.profile,
      maxOutputBytes: config.limits.outputBytes,
      maxUnpackedBytes: config.limits.unpackedBytes,
    };
    let workDir: string | undefined;
    try {
      let command: Command;
      if (isolation === 'bwrap') {
        command = this.bwrapCommand(input.path, []);
      } else {
        workDir = await mkdtemp(path.join(this.options.tmpDir, 'parse-'));
        command = this.processCommand(workDir, []);
      }
      const outcome = await supervise(command, JSON.stringify(request), this.limits(), signal);
      return {
        result: interpret(outcome),
        peakRssBytes: outcome.peakRssBytes,
        wallMs: outcome.wallMs,
      };
    } finally {
      if (workDir) await rm(workDir, { recursive: true, force: true });
    }
  }

  /** Each full-profile tool's version as seen from inside the sandbox, or why it cannot start there. */
  async probeTools(): Promise<Record<string, string>> {
    const isolation = await this.start();
    const command =
      isolation === 'bwrap'
        ? this.bwrapCommand(undefined, ['--probe-tools'])
        : this.processCommand(this.options.tmpDir, ['--probe-tools']);
    const outcome = await supervise(command, '', this.limits(), new AbortController().signal);
    if (outcome.kind === 'failed') throw new Error(outcome.message);
    return JSON.parse(outcome.stdout.toString('utf8')) as Record<string, string>;
  }

  private limits(): ProcessLimits {
    const l = this.options.config.limits;
    return {
      timeoutMs: l.timeoutSeconds * 1000,
      cpuSeconds: l.cpuSeconds,
      memoryBytes: l.memoryBytes,
      // JSON escaping can at most double the text; the envelope is small.
      stdoutBytes: l.outputBytes * 2 + 1024 * 1024,
      fileBytes: l.tmpBytes,
    };
  }

  private nodeArgs(extra: string[]): string[] {
    const { layout, config } = this.options;
    // The JS heap gets most of the budget; the watchdog counts native memory and helper programs too.
    const heapMb = Math.max(64, Math.floor((config.limits.memoryBytes / (1024 * 1024)) * 0.75));
    return [layout.nodePath, `--max-old-space-size=${heapMb}`, layout.entry, ...extra];
  }

  private bwrapCommand(inputPath: string | undefined, extra: string[]): Command {
    const { layout, config } = this.options;
    return {
      argv: [
        this.bwrapPath(),
        ...bwrapArgs(layout, inputPath, config.limits.tmpBytes),
        ...this.nodeArgs(extra),
      ],
      env: { PATH: SANDBOX_ENV.PATH! },
      cwd: '/',
    };
  }

  private processCommand(workDir: string, extra: string[]): Command {
    return {
      argv: this.nodeArgs(extra),
      env: { ...SANDBOX_ENV, HOME: workDir, TMPDIR: workDir },
      cwd: workDir,
    };
  }

  private bwrapPath(): string {
    return findBwrap(this.options.config.bwrapSearchPath) ?? 'bwrap';
  }

  private async chooseIsolation(): Promise<Isolation> {
    const { config, log } = this.options;
    const reason = await this.probeBwrap();
    if (reason === undefined) {
      log.info({ isolation: 'bwrap', profile: config.profile }, 'parsers run in the bubblewrap sandbox');
      return 'bwrap';
    }
    if (config.isolation === 'required') throw new ParserIsolationUnavailable(reason);
    log.warn(
      { isolation: 'process', reason },
      `PARSERS ARE NOT ISOLATED: ${reason}. Each document is still parsed in a separate, resource-limited process, but that process can read this machine's files. Install bubblewrap (apt-get install bubblewrap) to isolate parsers, or set PARSER_ISOLATION=required to refuse to run without it.`,
    );
    const probe = await this.runProbe(this.processCommand(this.options.tmpDir, ['--probe']));
    if (probe !== undefined) throw new Error(`the parser process cannot start: ${probe}`);
    return 'process';
  }

  /** Runs the real sandbox once; undefined when it works, otherwise the reason in plain words. */
  private async probeBwrap(): Promise<string | undefined> {
    if (!findBwrap(this.options.config.bwrapSearchPath)) {
      return 'bubblewrap (bwrap) is not installed; install it with apt-get install bubblewrap';
    }
    if (!existsSync(this.options.layout.entry)) {
      return `the parser program ${this.options.layout.entry} is missing; run npm run build`;
    }
    const failure = await this.runProbe(this.bwrapCommand(undefined, ['--probe']));
    return failure === undefined ? undefined : explainBwrapFailure(failure);
  }

  private async runProbe(command: Command): Promise<string | undefined> {
    let outcome: Outcome;
    try {
      outcome = await supervise(
        command,
        '',
        { ...this.limits(), timeoutMs: PROBE_TIMEOUT_MS },
        new AbortController().signal,
      );
    } catch (err) {
      return (err as Error).message;
    }
    if (outcome.kind === 'exited' && outcome.stdout.toString('utf8').trim() === 'ok') return undefined;
    return (
      outcome.stderr.trim() || (outcome.kind === 'failed' ? outcome.message : 'the parser did not answer')
    );
  }
}

function interpret(outcome: Outcome): ParseResponse {
  if (outcome.kind === 'failed') return { ok: false, code: outcome.code, message: outcome.message };
  try {
    const response = JSON.parse(outcome.stdout.toString('utf8')) as ParseResponse;
    if (typeof response === 'object' && response !== null && typeof response.ok === 'boolean')
      return response;
  } catch {
    // Reported below like any other broken answer.
  }
  return {
    ok: false,
    code: SANDBOX_FAILURES.crash,
    message: 'The parser ended without a readable result.',
  };
}
