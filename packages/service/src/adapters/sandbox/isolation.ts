import { existsSync } from 'node:fs';
import type { ParserConfig } from '../../config.js';
import type { Log } from '../../domain/log.js';
import { explainBwrapFailure, findBwrap } from './bwrap.js';
import { type Command, type Outcome, type ProcessLimits, supervise } from './supervise.js';

export type Isolation = 'bwrap' | 'process';

export class ParserIsolationUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`parser isolation unavailable: ${reason}`);
    this.name = 'ParserIsolationUnavailable';
  }
}

const PROBE_TIMEOUT_MS = 20_000;

/** What choosing the isolation needs: the parser's probe, as each way of running it would start it. */
export interface IsolationProbe {
  config: ParserConfig;
  log: Log;
  /** The parser program. */
  entry: string;
  bwrap: Command;
  process: Command;
  limits: ProcessLimits;
}

/**
 * Runs the real sandbox once: bubblewrap when it works here, otherwise (only when isolation is not
 * required) plain processes, said loudly; throws ParserIsolationUnavailable when it is required.
 * `process` skips bubblewrap altogether.
 */
export async function chooseIsolation(probe: IsolationProbe): Promise<Isolation> {
  const { config, log } = probe;
  if (config.isolation === 'process') {
    // Chosen by the operator for a host where the sandbox cannot run (a Pod Security "restricted"
    // namespace): still said at every start, since what a parser may reach is the worker's own.
    log.warn(
      { isolation: 'process', reason: 'PARSER_ISOLATION=process' },
      'PARSERS ARE NOT ISOLATED (PARSER_ISOLATION=process): each document is parsed in a separate, resource-limited process without bubblewrap, which can read what the worker can (its files, its environment through /proc, its network).',
    );
    return runProcessProbe(probe);
  }
  const reason = await probeBwrap(probe);
  if (reason === undefined) {
    log.info({ isolation: 'bwrap', profile: config.profile }, 'parsers run in the bubblewrap sandbox');
    return 'bwrap';
  }
  if (config.isolation === 'required') throw new ParserIsolationUnavailable(reason);
  log.warn(
    { isolation: 'process', reason },
    `PARSERS ARE NOT ISOLATED: ${reason}. Each document is still parsed in a separate, resource-limited process, but that process can read this machine's files. Install bubblewrap (apt-get install bubblewrap) to isolate parsers, or set PARSER_ISOLATION=required to refuse to run without it.`,
  );
  return runProcessProbe(probe);
}

async function runProcessProbe(probe: IsolationProbe): Promise<Isolation> {
  const failure = await runProbe(probe.process, probe.limits);
  if (failure !== undefined) throw new Error(`the parser process cannot start: ${failure}`);
  return 'process';
}

/** Undefined when the sandbox works, otherwise the reason in plain words. */
async function probeBwrap(probe: IsolationProbe): Promise<string | undefined> {
  if (!findBwrap(probe.config.bwrapSearchPath)) {
    return 'bubblewrap (bwrap) is not installed; install it with apt-get install bubblewrap';
  }
  if (!existsSync(probe.entry)) {
    return `the parser program ${probe.entry} is missing; run npm run build`;
  }
  const failure = await runProbe(probe.bwrap, probe.limits);
  return failure === undefined ? undefined : explainBwrapFailure(failure);
}

async function runProbe(command: Command, limits: ProcessLimits): Promise<string | undefined> {
  let outcome: Outcome;
  try {
    outcome = await supervise(
      command,
      '',
      { ...limits, timeoutMs: PROBE_TIMEOUT_MS },
      new AbortController().signal,
    );
  } catch (err) {
    return (err as Error).message;
  }
  if (outcome.kind === 'exited' && outcome.stdout.toString('utf8').trim() === 'ok') return undefined;
  return outcome.stderr.trim() || (outcome.kind === 'failed' ? outcome.message : 'the parser did not answer');
}
