import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { serverConnectionCap } from '../../src/app.js';
import { probeConnectionCap } from '../../src/http/worker-app.js';
import { openFilesLimit } from '../../src/main/descriptors.js';

describe('openFilesLimit', () => {
  it("reads the soft limit from a process's /proc limits, as the kernel writes them", async () => {
    const child = spawn('/bin/sh', ['-c', 'ulimit -S -n 300 && exec sleep 10'], { stdio: 'ignore' });
    try {
      // The shell replaces itself with sleep once the limit is set.
      let limits = '';
      for (let i = 0; i < 50 && !/Max open files\s+300\s/.test(limits); i++) {
        await new Promise((r) => setTimeout(r, 20));
        limits = await readFile(`/proc/${child.pid}/limits`, 'utf8');
      }
      expect(openFilesLimit(limits)).toBe(300);
    } finally {
      child.kill();
    }
  });

  it('knows no limit where there is no file or no number', () => {
    expect(openFilesLimit(null)).toBeUndefined();
    expect(
      openFilesLimit('Max open files            unlimited            unlimited            files\n'),
    ).toBe(undefined);
    expect(
      openFilesLimit('Max processes             63445                63445                processes\n'),
    ).toBe(undefined);
  });
});

describe('probeConnectionCap', () => {
  it('gives the probe port a sixteenth of the descriptors, between 8 and 256', () => {
    expect(probeConnectionCap(1024)).toBe(64);
    expect(probeConnectionCap(512)).toBe(32);
    expect(probeConnectionCap(20_000)).toBe(256);
    expect(probeConnectionCap(64)).toBe(8);
    expect(probeConnectionCap(undefined)).toBe(64);
  });
});

describe('serverConnectionCap', () => {
  it('keeps a quarter of the descriptors, at least 256, for what the requests open', () => {
    expect(serverConnectionCap(20_000)).toBe(15_000);
    expect(serverConnectionCap(1024)).toBe(768);
    expect(serverConnectionCap(512)).toBe(256);
    expect(serverConnectionCap(300)).toBe(64);
    expect(serverConnectionCap(undefined)).toBeUndefined();
  });
});
