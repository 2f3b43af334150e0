import { describe, expect, it } from 'vitest';
import { checkReadiness, type DependencyCheck, sharedReadiness } from '../../src/ops/readiness.js';

/** A dependency whose check is counted, takes a few milliseconds, and fails while `down` is set. */
function counted(name: string) {
  const state = { runs: 0, down: false };
  const check: DependencyCheck = {
    name,
    critical: true,
    run: async () => {
      state.runs++;
      await new Promise((r) => setTimeout(r, 5));
      if (state.down) throw new Error(`${name} is down`);
    },
  };
  return { state, check };
}

describe('sharedReadiness', () => {
  it('runs one check for everyone who asks while it runs, and for a second after it', async () => {
    const store = counted('objectStore');
    let clock = 0;
    const ready = sharedReadiness(
      () => checkReadiness([store.check], async () => 7),
      1000,
      () => clock,
    );
    const answers = await Promise.all(Array.from({ length: 500 }, () => ready()));
    expect(store.state.runs).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]!.status).toBe('ready');
    clock = 999;
    await ready();
    expect(store.state.runs).toBe(1);
    clock = 1000;
    await ready();
    expect(store.state.runs).toBe(2);
  });

  it('shares a failing answer the same way, and follows the dependency once it is stale', async () => {
    const store = counted('objectStore');
    store.state.down = true;
    let clock = 0;
    const ready = sharedReadiness(
      () => checkReadiness([store.check], async () => 7),
      1000,
      () => clock,
    );
    const failing = await Promise.all(Array.from({ length: 50 }, () => ready()));
    expect(store.state.runs).toBe(1);
    expect(failing[0]!.status).toBe('unavailable');
    expect(failing[0]!.checks.objectStore!.error).toBe('objectStore is down');
    store.state.down = false;
    expect((await ready()).status).toBe('unavailable');
    clock = 1500;
    expect((await ready()).status).toBe('ready');
    expect(store.state.runs).toBe(2);
  });
});
