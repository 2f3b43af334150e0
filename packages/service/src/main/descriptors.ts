import { readFileSync } from 'node:fs';

/**
 * This process's limit on open files (the soft RLIMIT_NOFILE, which Node raises to the hard limit at
 * start), read from `/proc/self/limits` since Node offers no getrlimit; undefined where that file
 * does not exist (not Linux) or says `unlimited`.
 */
export function openFilesLimit(limits: string | null = readLimits()): number | undefined {
  const line = limits?.split('\n').find((l) => l.startsWith('Max open files'));
  // "Max open files            20000                20000                files"
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  const n = Number(soft);
  return soft && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function readLimits(): string | null {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
}
