import os from 'node:os';

/** What a result was measured on, recorded beside every figure. */
export function describeMachine() {
  return {
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    loadAverage1m: os.loadavg()[0] ?? 0,
    date: new Date().toISOString(),
  };
}
