import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type ParserConfig } from '../../src/config.js';
import type { Log } from '../../src/domain/log.js';
import { packageRoot } from '../../src/paths.js';
import { sandboxLayout } from '../../src/sandbox/bwrap.js';
import { ParserIsolationUnavailable, SandboxedParser } from '../../src/sandbox/parser.js';
import { makeDocx } from '../support/fixtures.js';

const misbehaving = path.join(packageRoot(), 'test/support/misbehaving-parser.mjs');
const never = new AbortController().signal;
let work: string;
let input: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'docslurp-sandbox-test-'));
  input = path.join(work, 'input');
  await writeFile(input, 'the input bytes');
});
afterAll(() => rm(work, { recursive: true, force: true }));

function parserConfig(env: Record<string, string> = {}): ParserConfig {
  return loadConfig({ DATABASE_URL: 'postgres://db/service', PATH: process.env.PATH ?? '', ...env }).parser;
}

function recordingLog() {
  const warnings: string[] = [];
  const log: Log = { debug() {}, info() {}, error() {}, warn: (_obj, msg) => warnings.push(msg ?? '') };
  return { log, warnings };
}

function misbehavingParser(env: Record<string, string> = {}) {
  const { log, warnings } = recordingLog();
  const parser = new SandboxedParser({
    config: parserConfig(env),
    layout: { ...sandboxLayout(packageRoot()), entry: misbehaving },
    tmpDir: work,
    log,
  });
  return { parser, warnings };
}

const outcome = async (parser: SandboxedParser, action: string) =>
  (await parser.parseMeasured({ path: input, filename: action, declaredMediaType: null }, never)).result;

describe('the bubblewrap sandbox', () => {
  it('runs here, and the real parser parses a real document inside it', async () => {
    const parser = new SandboxedParser({
      config: parserConfig(),
      layout: sandboxLayout(packageRoot()),
      tmpDir: work,
      log: recordingLog().log,
    });
    expect(await parser.start()).toBe('bwrap');
    const docx = path.join(work, 'policy.docx');
    await writeFile(docx, makeDocx(['# Policy', 'Badges are worn at all times.']));
    const doc = await parser.parse({ path: docx, filename: 'policy.docx', declaredMediaType: null }, never);
    expect(doc.text).toBe('# Policy\n\nBadges are worn at all times.');
  });

  it('lets a parser read its input and write only its private /tmp: no network, no environment', async () => {
    const { parser } = misbehavingParser();
    const result = await outcome(parser, `escape:${work}`);
    if (!result.ok) throw new Error(result.message);
    const report = JSON.parse(result.document.text);
    expect(report.input).toBe('the input bytes');
    expect(report.tmp).toBe('written');
    for (const [target, verdict] of Object.entries(report.writes)) {
      expect([target, verdict]).not.toEqual([target, 'written']);
    }
    expect(existsSync(path.join(work, 'escape'))).toBe(false);
    expect(existsSync(path.join(packageRoot(), 'test/support/escape'))).toBe(false);
    expect(report.passwd).toBe('ENOENT');
    // The host's PostgreSQL listens on 127.0.0.1:5432, but the sandbox has a loopback of its own.
    expect(report.postgres).toBe('ECONNREFUSED');
    expect(report.internet).toMatch(/ENETUNREACH|EHOSTUNREACH|timeout/);
    expect(report.env).toEqual(['HOME', 'LANG', 'OMP_THREAD_LIMIT', 'PATH', 'PWD', 'TMPDIR']);
  });

  it('turns each way a parser can die into its own failure code, and the next parse still works', async () => {
    const limits = { PARSER_TIMEOUT_SECONDS: '30', PARSER_MEMORY_MB: '256', PARSER_MAX_OUTPUT_MB: '1' };
    // A tight CPU limit for the spinner; the memory hogs get CPU to spare, so that memory runs out
    // first (a heap filling up also burns CPU in garbage collection).
    const cpuBound = misbehavingParser({ ...limits, PARSER_CPU_SECONDS: '2' }).parser;
    const parser = misbehavingParser({ ...limits, PARSER_CPU_SECONDS: '120' }).parser;
    const codes: Record<string, string> = {};
    for (const action of ['crash', 'spin', 'heap', 'native', 'flood', 'garbage']) {
      const r = await outcome(action === 'spin' ? cpuBound : parser, action);
      codes[action] = r.ok ? 'ok' : r.code;
    }
    expect(codes).toEqual({
      crash: 'parser_crashed',
      spin: 'parser_timeout',
      heap: 'parser_out_of_memory',
      native: 'parser_out_of_memory',
      flood: 'parser_output_too_large',
      garbage: 'parser_crashed',
    });
    const fine = await outcome(parser, 'fine.txt');
    expect(fine).toMatchObject({ ok: true, document: { text: 'parsed fine.txt' } });
  });

  it('stops a parser that waits forever at the wall-clock limit and reports its peak memory', async () => {
    const { parser } = misbehavingParser({ PARSER_TIMEOUT_SECONDS: '2' });
    const t0 = performance.now();
    const r = await parser.parseMeasured({ path: input, filename: 'sleep', declaredMediaType: null }, never);
    expect(r.result).toMatchObject({ ok: false, code: 'parser_timeout' });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(2000);
    expect(r.peakRssBytes).toBeGreaterThan(10 * 1024 * 1024);
  });

  it('kills the sandbox when the caller aborts', async () => {
    const { parser } = misbehavingParser();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    await expect(
      parser.parse({ path: input, filename: 'sleep', declaredMediaType: null }, controller.signal),
    ).rejects.toThrow(/aborted/);
  });
});

describe('when bubblewrap is missing or cannot run', () => {
  it('refuses to start when isolation is required, saying why', async () => {
    const { parser } = misbehavingParser({ PARSER_BWRAP_PATH: '/nonexistent' });
    await expect(parser.start()).rejects.toThrow(ParserIsolationUnavailable);
    await expect(parser.start()).rejects.toThrow(
      /^parser isolation unavailable: bubblewrap \(bwrap\) is not installed/,
    );
  });

  it('explains a host that forbids user namespaces', async () => {
    // A bwrap that fails the way it does on such hosts (its real message).
    const fake = path.join(work, 'bin', 'bwrap');
    await rm(path.dirname(fake), { recursive: true, force: true });
    await writeFile(path.join(work, 'placeholder'), '');
    await import('node:fs/promises').then((fs) => fs.mkdir(path.dirname(fake), { recursive: true }));
    await writeFile(
      fake,
      '#!/bin/sh\necho "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
      { mode: 0o755 },
    );
    const { parser } = misbehavingParser({ PARSER_BWRAP_PATH: fake });
    await expect(parser.start()).rejects.toThrow(
      /parser isolation unavailable: .*non-privileged user namespaces.*apparmor_restrict_unprivileged_userns/,
    );
  });

  it('in auto mode warns loudly and still parses in a separate, resource-limited process', async () => {
    const { parser, warnings } = misbehavingParser({
      PARSER_ISOLATION: 'auto',
      PARSER_BWRAP_PATH: '/nonexistent',
      PARSER_TIMEOUT_SECONDS: '2',
    });
    expect(await parser.start()).toBe('process');
    expect(warnings.join('\n')).toMatch(/PARSERS ARE NOT ISOLATED/);
    expect(await outcome(parser, 'fine.txt')).toMatchObject({ ok: true });
    expect(await outcome(parser, 'sleep')).toMatchObject({ ok: false, code: 'parser_timeout' });
    expect(await outcome(parser, 'crash')).toMatchObject({ ok: false, code: 'parser_crashed' });
    // Each parse had its own working folder, removed afterwards.
    expect((await readdir(work)).filter((f) => f.startsWith('parse-'))).toEqual([]);
  });
});
