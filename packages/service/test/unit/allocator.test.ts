import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { logAllocator } from '../../src/main/allocator.js';

function capture() {
  const lines: { level: number; msg: string; allocator?: string }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('logAllocator', () => {
  it('names jemalloc when it is mapped into the process', async () => {
    const { log, lines } = capture();
    logAllocator(log, '7f00-7f10 r-xp 00000000 08:01 42 /usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n');
    await flush();
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, allocator: 'jemalloc', msg: 'memory allocator: jemalloc' }),
    ]);
  });

  it('warns on the system malloc and says how to get jemalloc', async () => {
    const { log, lines } = capture();
    logAllocator(log, '7f00-7f10 r-xp 00000000 08:01 42 /usr/lib/x86_64-linux-gnu/libc.so.6\n');
    await flush();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, allocator: 'system' });
    expect(lines[0]!.msg).toContain('apt-get install libjemalloc2');
  });

  it('says nothing where there is no /proc/self/maps to read (not Linux)', async () => {
    const { log, lines } = capture();
    logAllocator(log, null);
    await flush();
    expect(lines).toEqual([]);
  });
});
