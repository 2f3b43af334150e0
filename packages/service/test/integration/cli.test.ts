import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runCli } from '../support/processes.js';

/** The built CLI asked for help or given a wrong option: usage, never a stack trace. */
let dataDir: string;
let env: Record<string, string>;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-cli-'));
  env = { ...baseEnv(), DATA_DIR: dataDir };
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

describe('docslurp usage', () => {
  it.each([
    { args: ['users', '--help'] },
    { args: ['keys', 'create', '-h'] },
    { args: ['help'] },
    { args: ['--help'] },
  ])('docslurp $args prints the usage', async ({ args }) => {
    const r = await runCli(args, env, 30_000);
    expect(r.code).toBe(0);
    expect(r.output).toContain('Usage: docslurp <command>');
    expect(r.output).not.toMatch(STACK_LINE);
  });

  it('names an unknown option and shows the usage, with exit code 2', async () => {
    const r = await runCli(['keys', 'list', '--colour'], env, 30_000);
    expect(r.code).toBe(2);
    expect(r.output).toContain("docslurp: Unknown option '--colour'");
    expect(r.output).toContain('Usage: docslurp <command>');
    expect(r.output).not.toMatch(STACK_LINE);
  });
});
