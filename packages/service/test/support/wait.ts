/**
 * Waiting in tests on a condition instead of a fixed sleep: as short as the system allows, as long
 * as a slow machine needs, and a failure that says what never happened.
 */

export interface WaitOptions {
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
  /** Time between two checks (default 100 ms). */
  intervalMs?: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Checks until `check` gives a value (anything but undefined or false) and returns it. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 20_000, intervalMs = 100 }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await pause(intervalMs);
  }
}

/**
 * For what must not happen: checks `holds` throughout `ms` and fails at the first check that finds
 * it broken. (Nothing marks the moment a thing did not happen, so this is the one wait with a length.)
 */
export async function holdsFor(
  what: string,
  holds: () => Promise<boolean> | boolean,
  ms: number,
  intervalMs = 100,
): Promise<void> {
  const end = Date.now() + ms;
  do {
    if (!(await holds())) throw new Error(`${what} stopped holding`);
    await pause(intervalMs);
  } while (Date.now() < end);
  if (!(await holds())) throw new Error(`${what} stopped holding`);
}
