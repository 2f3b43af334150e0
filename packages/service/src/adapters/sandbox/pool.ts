import { rm } from 'node:fs/promises';
import type { SupervisedProcess } from './supervise.js';

/** A parser process and its host folder: its inbox (the sandbox's input, read-only) or its working folder. */
export interface ParserSlot {
  process: SupervisedProcess;
  group: string | undefined;
  /** Documents it was given (a group's all count). */
  documents: number;
  folder: string;
  idleTimer?: NodeJS.Timeout;
  /** Whether the process that follows it for its group has been started. */
  successorStarted?: boolean;
}

/** The limits the pool keeps its processes within (the parser's configuration). */
export interface PoolPolicy {
  documentsPerProcess: number;
  /** How long an idle process waits for its group's next document. */
  idleSeconds: number;
  /** Idle processes kept for the next document (the worker's document slots); at least one. */
  maxIdleProcesses: number;
  /** A process's memory limit; one that holds REUSE_MEMORY_SHARE of it after a document takes no other. */
  memoryBytes: number;
  /** One document's CPU budget. */
  cpuSeconds: number;
  /** The kernel's CPU limit over a process's whole life. */
  lifetimeCpuSeconds: number;
}

/** A process that holds this share of the memory limit after a document is not given another. */
const REUSE_MEMORY_SHARE = 0.5;

/**
 * Which parser process takes the next document, and which are kept: the pool's whole policy. A
 * process serves one group (a workspace) only; one that parsed well is kept idle for its group's next
 * document while it may take more, and replaced at once (a spare) when it may not. The parser starts
 * the processes (`spawn`: commands, isolation) and runs the requests.
 */
export class ParserPool {
  private readonly idle: ParserSlot[] = [];
  private closed = false;

  constructor(
    private readonly policy: PoolPolicy,
    /** Starts a process for a group, with extra arguments; undefined before the isolation is chosen. */
    private readonly spawn: (group: string, extra: string[]) => ParserSlot | undefined,
  ) {}

  /** Processes waiting for their workspace's next document that could still take it. */
  get idleProcesses(): number {
    return this.idle.filter((slot) => slot.process.usable).length;
  }

  /** An idle process of the group that may still take `documents` more. */
  takeIdle(group: string | undefined, documents: number): ParserSlot | undefined {
    if (group === undefined) return undefined;
    const i = this.idle.findIndex(
      (s) =>
        s.group === group && s.process.usable && s.documents + documents <= this.policy.documentsPerProcess,
    );
    if (i < 0) return undefined;
    const [slot] = this.idle.splice(i, 1);
    clearTimeout(slot!.idleTimer);
    return slot;
  }

  /** Keeps a process that parsed a document well for the group's next one, if it may take more. */
  release(slot: ParserSlot): void {
    const { policy } = this;
    const usage = slot.process.usage();
    const keep =
      !this.closed &&
      slot.group !== undefined &&
      slot.process.usable &&
      // One whose successor was started early (parseGroup) leaves the rest of its documents to it.
      !slot.successorStarted &&
      slot.documents < policy.documentsPerProcess &&
      usage !== undefined &&
      usage.rssBytes < policy.memoryBytes * REUSE_MEMORY_SHARE &&
      // The kernel's lifetime CPU limit must leave a whole document's budget.
      usage.cpuSeconds + policy.cpuSeconds < policy.lifetimeCpuSeconds;
    if (keep) {
      this.keepIdle(slot);
      return;
    }
    void this.retire(slot);
    // A process that parsed well but may take no more (its documents, memory or CPU used up) is
    // replaced at once, while its group's next documents are on their way: a batch of small files
    // no longer waits for a process to start (about a tenth of a second) every few hundred documents.
    if (slot.process.usable) this.startSpare(slot);
  }

  /** Starts the process that follows `slot` for its group, once. */
  startSpare(slot: ParserSlot): void {
    if (this.closed || slot.group === undefined || slot.successorStarted) return;
    try {
      // It follows one that parsed small documents: it loads the language detector (0.25 s) at once.
      const spare = this.spawn(slot.group, ['--languages']);
      if (!spare) return;
      slot.successorStarted = true;
      this.keepIdle(spare);
    } catch {
      slot.successorStarted = true;
      // A process that cannot start now is started, and its failure met, by the next parse.
    }
  }

  private keepIdle(slot: ParserSlot): void {
    slot.idleTimer = setTimeout(() => {
      const i = this.idle.indexOf(slot);
      if (i >= 0) this.idle.splice(i, 1);
      void this.retire(slot);
    }, this.policy.idleSeconds * 1000);
    slot.idleTimer.unref();
    this.idle.push(slot);
    // The oldest idle process makes room: idle processes only hold memory.
    while (this.idle.length > Math.max(1, this.policy.maxIdleProcesses)) {
      const oldest = this.idle.shift()!;
      clearTimeout(oldest.idleTimer);
      void this.retire(oldest);
    }
  }

  /** Ends a process and removes its folder. */
  async retire(slot: ParserSlot): Promise<void> {
    clearTimeout(slot.idleTimer);
    slot.process.close();
    await rm(slot.folder, { recursive: true, force: true }).catch(() => {});
  }

  /** Ends the idle processes; parses still running finish, and their processes end after them. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((slot) => this.retire(slot)));
  }
}
