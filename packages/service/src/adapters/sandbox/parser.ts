import { mkdtempSync } from 'node:fs';
import { copyFile, link, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ParserConfig } from '../../config.js';
import type { Log } from '../../domain/log.js';
import type {
  DocumentParser,
  GroupParse,
  ParsedDocument,
  ParseInput,
  SmallDocument,
} from '../../domain/ports.js';
import { DocumentFailure } from '../../errors.js';
import { interpret, readGroupAnswer } from './answers.js';
import { bwrapArgs, findBwrap, SANDBOX_ENV, SANDBOX_INPUT, type SandboxLayout } from './bwrap.js';
import { chooseIsolation, type Isolation } from './isolation.js';
import { ParserPool, type ParserSlot } from './pool.js';
import type { ParseGroupRequest, ParseLimits, ParseRequest, ParseResponse } from './protocol.js';
import { type Command, type Outcome, type ProcessLimits, SupervisedProcess, supervise } from './supervise.js';

export { type Isolation, ParserIsolationUnavailable } from './isolation.js';

export interface SandboxedParserOptions {
  config: ParserConfig;
  layout: SandboxLayout;
  /** Host folder for the inboxes and the working folders of the unisolated fallback. */
  tmpDir: string;
  log: Log;
  /** Idle processes kept for the next document (the worker's document slots). */
  maxIdleProcesses?: number;
  /** How long a group's parsing may go on before its other documents are left to requests of their own. */
  groupBudgetMs?: number;
}

/** A parse that reached a verdict, with what it cost (for benchmarks and logs). */
export interface SandboxedParse {
  result: ParseResponse;
  peakRssBytes: number;
  wallMs: number;
  /** Whether a process that had parsed earlier documents of the group took this one. */
  reused: boolean;
}

/** A group's default budget: a small share of the per-request time limit, which the group has as a whole. */
const GROUP_BUDGET_MS = 2000;

/**
 * Parses documents in separate processes: inside bubblewrap when it can run here, otherwise (only
 * when isolation is not required) in plain child processes under the same resource limits. The
 * choice is made once, by running the sandbox for real, before the first document.
 *
 * A process parses up to `documentsPerProcess` documents, all of one group (the worker passes the
 * workspace), one at a time, each under the full per-document limits; a process that fails a
 * document, grows large or is idle for `idleSeconds` ends. Reuse is what makes a batch fast: a fresh
 * Node process pays its start, module loading and the JIT's first pass on every document (decision
 * 0005), and a process never carries anything from one workspace's documents to another's.
 */
export class SandboxedParser implements DocumentParser {
  private isolation: Promise<Isolation> | undefined;
  /** The isolation once chosen. */
  private chosen: Isolation | undefined;
  /** Which process takes a document, and which are kept (pool.ts). */
  private readonly pool: ParserPool;
  /** Processes started for documents (not probes), for the metrics. */
  processesStarted = 0;

  /** Processes waiting for their workspace's next document that could still take it. */
  get idleProcesses(): number {
    return this.pool.idleProcesses;
  }

  constructor(private readonly options: SandboxedParserOptions) {
    const { config } = options;
    this.pool = new ParserPool(
      {
        documentsPerProcess: config.documentsPerProcess,
        idleSeconds: config.idleSeconds,
        maxIdleProcesses: options.maxIdleProcesses ?? 1,
        memoryBytes: config.limits.memoryBytes,
        cpuSeconds: config.limits.cpuSeconds,
        lifetimeCpuSeconds: this.limits().lifetimeCpuSeconds,
      },
      (group, extra) => (this.chosen === undefined ? undefined : this.startSlot(this.chosen, group, extra)),
    );
  }

  /** Checks once how parsers will run; throws ParserIsolationUnavailable when isolation is required and impossible. */
  start(): Promise<Isolation> {
    if (this.isolation) return this.isolation;
    const { config, log, layout, tmpDir } = this.options;
    const probe = ['--probe'];
    this.isolation = chooseIsolation({
      config,
      log,
      entry: layout.entry,
      bwrap: this.bwrapCommand(undefined, probe),
      process: this.processCommand(tmpDir, probe),
      limits: this.limits(),
    }).then((chosen) => {
      this.chosen = chosen;
      return chosen;
    });
    return this.isolation;
  }

  async parse(input: ParseInput, signal: AbortSignal): Promise<ParsedDocument> {
    const { result } = await this.parseMeasured(input, signal);
    if (!result.ok) throw new DocumentFailure(result.code, result.message);
    return result.document;
  }

  async parseMeasured(input: ParseInput, signal: AbortSignal): Promise<SandboxedParse> {
    const isolation = await this.start();
    const slot = this.pool.takeIdle(input.group, 1) ?? this.startSlot(isolation, input.group);
    const reused = slot.documents > 0;
    slot.documents++;
    let placed: string | undefined;
    let outcome: Outcome;
    try {
      let inputPath = input.path;
      if (isolation === 'bwrap') {
        placed = path.join(slot.folder, path.basename(SANDBOX_INPUT));
        // A hard link costs nothing; the inbox may be on another file system than the input.
        await link(input.path, placed).catch(() => copyFile(input.path, placed!));
        inputPath = SANDBOX_INPUT;
      }
      outcome = await slot.process.run(JSON.stringify(this.request(inputPath, input)), signal);
    } catch (err) {
      await this.pool.retire(slot);
      throw err;
    } finally {
      if (placed) await rm(placed, { force: true });
    }
    const result = interpret(outcome);
    if (result.ok) this.pool.release(slot);
    else await this.pool.retire(slot);
    return { result, peakRssBytes: outcome.peakRssBytes, wallMs: outcome.wallMs, reused };
  }

  /**
   * Parses small documents of one group in one request, their bytes inline: no files, one round trip
   * and one look at the process's usage for them all. The request has one document's limits; a
   * process that breaks them is killed and, since the document at fault cannot be told, every
   * document of the group is left to be parsed alone (`undefined`), where the fault finds its owner.
   */
  async parseGroup(
    all: SmallDocument[],
    group: string,
    signal: AbortSignal,
    options: { detectLanguage?: boolean | undefined } = {},
  ): Promise<GroupParse[]> {
    // No process takes more than its documents (PARSER_DOCUMENTS_PER_PROCESS=1 keeps each one alone).
    const documents = all.slice(0, this.options.config.documentsPerProcess);
    const unparsed = all.slice(documents.length).map(() => undefined);
    const isolation = await this.start();
    const slot = this.pool.takeIdle(group, documents.length) ?? this.startSlot(isolation, group);
    slot.documents += documents.length;
    // When it can take no other group of this size, its successor starts now, while this group is
    // parsed: the group's next parse then finds a process ready instead of waiting 0.4–0.7 s for one.
    if (slot.documents + documents.length > this.options.config.documentsPerProcess)
      this.pool.startSpare(slot);
    const request: ParseGroupRequest = {
      group: documents.map((d) => ({
        bytes: d.bytes.toString('base64'),
        filename: d.filename,
        declaredMediaType: d.declaredMediaType,
      })),
      budgetMs: this.options.groupBudgetMs ?? GROUP_BUDGET_MS,
      detectLanguage: options.detectLanguage,
      ...this.parseLimits(),
    };
    let outcome: Outcome;
    try {
      outcome = await slot.process.run(JSON.stringify(request), signal);
    } catch (err) {
      await this.pool.retire(slot);
      throw err;
    }
    const results = outcome.kind === 'exited' ? readGroupAnswer(outcome.stdout, documents.length) : undefined;
    if (!results) {
      await this.pool.retire(slot);
      return all.map(() => undefined);
    }
    // A document that failed in there may have left the process in any state: it takes no more.
    if (results.every((r) => r === null || r.ok)) this.pool.release(slot);
    else await this.pool.retire(slot);
    return [
      ...results.map((r) =>
        r === null ? undefined : r.ok ? r.document : new DocumentFailure(r.code, r.message),
      ),
      ...unparsed,
    ];
  }

  /** Ends the idle processes; parses still running finish, and their processes end after them. */
  close(): Promise<void> {
    return this.pool.close();
  }

  private request(inputPath: string, input: ParseInput): ParseRequest {
    return {
      inputPath,
      filename: input.filename,
      declaredMediaType: input.declaredMediaType,
      ...this.parseLimits(),
    };
  }

  private parseLimits(): ParseLimits {
    const { config } = this.options;
    return {
      profile: config.profile,
      maxOutputBytes: config.limits.outputBytes,
      maxUnpackedBytes: config.limits.unpackedBytes,
    };
  }

  private startSlot(isolation: Isolation, group: string | undefined, extra: string[] = []): ParserSlot {
    // Made at once (a few microseconds), so that a spare is idle before the group's next parse looks.
    const folder = mkdtempSync(path.join(this.options.tmpDir, isolation === 'bwrap' ? 'inbox-' : 'parse-'));
    const command =
      isolation === 'bwrap' ? this.bwrapCommand(folder, extra) : this.processCommand(folder, extra);
    this.processesStarted++;
    return { process: new SupervisedProcess(command, this.limits()), group, folder, documents: 0 };
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
      // Every document's budget, and the start (well under a second) generously.
      lifetimeCpuSeconds: l.cpuSeconds * this.options.config.documentsPerProcess + 30,
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

  private bwrapCommand(inbox: string | undefined, extra: string[]): Command {
    const { layout, config } = this.options;
    return {
      argv: [this.bwrapPath(), ...bwrapArgs(layout, inbox, config.limits.tmpBytes), ...this.nodeArgs(extra)],
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
}
