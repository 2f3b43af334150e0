import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParserPool, type ParserSlot, type PoolPolicy } from '../../src/adapters/sandbox/pool.js';
import type { SupervisedProcess } from '../../src/adapters/sandbox/supervise.js';

/**
 * A process as the pool sees it: whether it may take a request, what it uses, whether it was ended.
 * As a real one, it stays usable until it has exited, after close() returns.
 */
class FakeProcess {
  usable = true;
  closed = false;
  used = { rssBytes: 10, cpuSeconds: 1 };
  usage() {
    return this.used;
  }
  close() {
    this.closed = true;
  }
}

const POLICY: PoolPolicy = {
  documentsPerProcess: 10,
  idleSeconds: 3600,
  maxIdleProcesses: 2,
  memoryBytes: 1000,
  cpuSeconds: 5,
  lifetimeCpuSeconds: 100,
};

let tmp: string;
let spawned: { group: string; extra: string[] }[];

beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pool-'));
  spawned = [];
});

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function slot(group: string, documents = 1): ParserSlot & { process: FakeProcess } {
  return {
    process: new FakeProcess() as FakeProcess & SupervisedProcess,
    group,
    documents,
    folder: path.join(tmp, `folder-${Math.random()}`),
  } as ParserSlot & { process: FakeProcess };
}

function pool(policy: Partial<PoolPolicy> = {}): ParserPool {
  return new ParserPool({ ...POLICY, ...policy }, (group, extra) => {
    spawned.push({ group, extra });
    return slot(group, 0);
  });
}

describe('the parser pool', () => {
  it("keeps a process that parsed well for its group's next documents, while it may take them", async () => {
    const p = pool();
    const s = slot('ws_a', 8);
    p.release(s);
    expect(p.idleProcesses).toBe(1);
    // Another workspace's documents never go to it, nor more than its documents allow.
    expect(p.takeIdle('ws_b', 1)).toBeUndefined();
    expect(p.takeIdle('ws_a', 3)).toBeUndefined();
    expect(p.takeIdle('ws_a', 2)).toBe(s);
    expect(p.idleProcesses).toBe(0);
    await p.close();
  });

  it('ends a process that may take no more and starts its spare at once, once', async () => {
    const p = pool();
    const full = slot('ws_a', 10);
    p.release(full);
    expect(full.process.closed).toBe(true);
    expect(spawned).toEqual([{ group: 'ws_a', extra: ['--languages'] }]);
    expect(p.idleProcesses).toBe(1);
    // Grown large, or near the kernel's CPU limit: ended and replaced the same way.
    for (const used of [
      { rssBytes: 500, cpuSeconds: 1 },
      { rssBytes: 10, cpuSeconds: 95 },
    ]) {
      const s = slot('ws_b');
      s.process.used = used;
      p.release(s);
      expect(s.process.closed).toBe(true);
    }
    expect(spawned).toHaveLength(3);
    p.startSpare(full);
    expect(spawned).toHaveLength(3);
    await p.close();
  });

  it('starts no spare for a process that broke, and keeps none after its successor was started', async () => {
    const p = pool();
    const broken = slot('ws_a', 10);
    broken.process.usable = false;
    p.release(broken);
    expect(spawned).toEqual([]);
    const early = slot('ws_a', 2);
    p.startSpare(early);
    p.release(early);
    expect(early.process.closed).toBe(true);
    expect(spawned).toHaveLength(1);
    await p.close();
  });

  it('keeps at most maxIdleProcesses idle, ending the oldest, and ends them all on close', async () => {
    const p = pool({ maxIdleProcesses: 2 });
    const slots = [slot('ws_a'), slot('ws_b'), slot('ws_c')];
    for (const s of slots) p.release(s);
    expect(slots.map((s) => s.process.closed)).toEqual([true, false, false]);
    expect(p.idleProcesses).toBe(2);
    await p.close();
    expect(slots.map((s) => s.process.closed)).toEqual([true, true, true]);
    // Closed: a process released now is not kept, nor replaced.
    const late = slot('ws_a', 10);
    p.release(late);
    expect(late.process.closed).toBe(true);
    expect(spawned).toEqual([]);
  });

  it('removes the folder of a process it ends', async () => {
    const p = pool();
    const s = slot('ws_a');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(s.folder);
    await p.retire(s);
    await expect(stat(s.folder)).rejects.toThrow();
  });
});
