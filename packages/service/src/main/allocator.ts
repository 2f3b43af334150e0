import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';

/**
 * Says which memory allocator this process runs on. On glibc's malloc a process that keeps ingesting
 * grows for as long as it runs (LanceDB's maintenance frees memory glibc keeps); on jemalloc it levels
 * off (bench/results/load-soak-30min*.md). The image preloads jemalloc, and so does `npm start` when
 * the library is installed (scripts/with-jemalloc.sh); anything else gets told how.
 */
export function logAllocator(log: Logger, maps: string | null = readMaps()): void {
  if (maps === null) return; // not Linux: nothing to preload
  if (/libjemalloc/.test(maps)) {
    log.info({ allocator: 'jemalloc' }, 'memory allocator: jemalloc');
    return;
  }
  log.warn(
    { allocator: 'system' },
    'memory allocator: the system malloc, on which memory keeps growing under long ingestion; install ' +
      'jemalloc (Debian/Ubuntu: apt-get install libjemalloc2) and npm start uses it, or preload it with ' +
      'LD_PRELOAD=<path of libjemalloc.so.2>',
  );
}

function readMaps(): string | null {
  try {
    return readFileSync('/proc/self/maps', 'utf8');
  } catch {
    return null;
  }
}
