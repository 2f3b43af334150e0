/**
 * Preloaded into the service by the load benchmark (`node --import`) when DOCSLURP_BENCH_MEMORY_LOG
 * names a file: appends the process's memory split every few seconds as JSON lines, so a growing RSS
 * can be told apart as JavaScript heap (ours) or memory outside it (native libraries such as LanceDB).
 */
import { appendFileSync } from 'node:fs';

const file = process.env.DOCSLURP_BENCH_MEMORY_LOG;
if (file) {
  const mib = (n) => Math.round((n / 2 ** 20) * 10) / 10;
  setInterval(() => {
    const m = process.memoryUsage();
    const line = {
      at: Date.now(),
      rss: mib(m.rss),
      heapUsed: mib(m.heapUsed),
      heapTotal: mib(m.heapTotal),
      external: mib(m.external),
      arrayBuffers: mib(m.arrayBuffers),
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }, 5000).unref();
}
