// Over 400 lines: the sandbox, its reused processes and its groups are tested with the same two parsers
// (the real one and a misbehaving stand-in) and the same work folder, set up here.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EldDetector } from '../../src/adapters/language/eld.js';
import { sandboxLayout } from '../../src/adapters/sandbox/bwrap.js';
import { ParserIsolationUnavailable, SandboxedParser } from '../../src/adapters/sandbox/parser.js';
import { loadConfig, type ParserConfig } from '../../src/config.js';
import type { Log } from '../../src/domain/log.js';
import type { GroupParse, ParsedDocument } from '../../src/domain/ports.js';
import { DocumentFailure } from '../../src/errors.js';
import { packageRoot } from '../../src/paths.js';
import { detectionSample } from '../../src/text/detection-sample.js';
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

/** Parses as a document of `group`; returns the answer's JSON and whether a used process took it. */
async function inGroup(
  parser: SandboxedParser,
  group: string,
  action: string,
): Promise<Record<string, unknown> & { reused: boolean }> {
  const r = await parser.parseMeasured(
    { path: input, filename: action, declaredMediaType: null, group },
    never,
  );
  if (!r.result.ok) return { failed: r.result.code, reused: r.reused };
  return { ...(JSON.parse(r.result.document.text) as Record<string, unknown>), reused: r.reused };
}

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

describe('parser processes that take several documents', () => {
  const open: SandboxedParser[] = [];
  afterEach(async () => {
    for (const p of open.splice(0)) await p.close();
  });
  const reusing = (env: Record<string, string> = {}) => {
    const { parser } = misbehavingParser({ PARSER_DOCUMENTS_PER_PROCESS: '3', ...env });
    open.push(parser);
    return parser;
  };

  it("parse a workspace's documents one after another, up to the limit, and never another workspace's", async () => {
    const parser = reusing();
    const a = [];
    for (let i = 0; i < 3; i++) a.push(await inGroup(parser, 'ws_a', 'whoami'));
    // The process at its limit is replaced at once: a spare waits for the workspace's next document.
    expect([parser.processesStarted, parser.idleProcesses]).toEqual([2, 1]);
    a.push(await inGroup(parser, 'ws_a', 'whoami'));
    const b = await inGroup(parser, 'ws_b', 'whoami');
    expect(a.map((x) => [x.answered, x.reused])).toEqual([
      [0, false],
      [1, true],
      [2, true],
      [0, false],
    ]);
    expect(a[1]!.processId).toBe(a[0]!.processId);
    expect(a[2]!.processId).toBe(a[0]!.processId);
    expect(a[3]!.processId).not.toBe(a[0]!.processId);
    expect(b).toMatchObject({ answered: 0, reused: false });
    expect([a[0]!.processId, a[3]!.processId]).not.toContain(b.processId);
    expect(parser.processesStarted).toBe(3);
  });

  it('give each document the whole CPU limit, and stop the one that exceeds it', async () => {
    const parser = reusing({ PARSER_CPU_SECONDS: '2', PARSER_DOCUMENTS_PER_PROCESS: '10' });
    const first = await inGroup(parser, 'ws_a', 'burn:1500');
    // 3 s in all, over the limit of 2 s, but each document stayed under it.
    const second = await inGroup(parser, 'ws_a', 'burn:1500');
    expect(second).toMatchObject({ processId: first.processId, reused: true });
    expect(await inGroup(parser, 'ws_a', 'spin')).toEqual({ failed: 'parser_timeout', reused: true });
    expect(await inGroup(parser, 'ws_a', 'whoami')).toMatchObject({ answered: 0, reused: false });
  });

  it('are not used again after a failed document or an answer nobody asked for', async () => {
    const parser = reusing();
    const before = await inGroup(parser, 'ws_a', 'whoami');
    expect(await inGroup(parser, 'ws_a', 'crash')).toEqual({ failed: 'parser_crashed', reused: true });
    const after = await inGroup(parser, 'ws_a', 'whoami');
    expect(after).toMatchObject({ answered: 0, reused: false });
    expect(after.processId).not.toBe(before.processId);
    // The chatty process's own answer counts; it is not given another document to answer.
    const chatty = await inGroup(parser, 'ws_a', 'chatty');
    expect(chatty).toMatchObject({ processId: after.processId, reused: true });
    const next = await inGroup(parser, 'ws_a', 'whoami');
    expect(next).toMatchObject({ answered: 0, reused: false });
    // Nor is one that writes while it waits for its next document.
    await inGroup(parser, 'ws_a', 'chatty-later');
    expect(parser.idleProcesses).toBe(1);
    await vi.waitFor(() => expect(parser.idleProcesses).toBe(0), { timeout: 10_000 });
    expect(await inGroup(parser, 'ws_a', 'whoami')).toMatchObject({ answered: 0, reused: false });
  });

  it('see only the document being parsed, and end when idle or closed, leaving no folders', async () => {
    const parser = reusing({ PARSER_PROCESS_IDLE_SECONDS: '1' });
    expect(await inGroup(parser, 'ws_a', 'inbox')).toMatchObject({ 0: 'document', reused: false });
    expect(await inGroup(parser, 'ws_a', 'inbox')).toMatchObject({ 0: 'document', reused: true });
    expect((await readdir(work)).filter((f) => f.startsWith('inbox-'))).toHaveLength(1);
    await vi.waitFor(
      async () => expect((await readdir(work)).filter((f) => f.startsWith('inbox-'))).toEqual([]),
      // Well under the default idle time of 10 s, so the setting's 1 s is what ended it.
      { timeout: 5_000 },
    );
    expect(await inGroup(parser, 'ws_a', 'whoami')).toMatchObject({ answered: 0, reused: false });
    await parser.close();
    expect((await readdir(work)).filter((f) => f.startsWith('inbox-'))).toEqual([]);
  });

  it('parse the same way as fresh processes (the real parser)', async () => {
    const parser = new SandboxedParser({
      config: parserConfig({ PARSER_DOCUMENTS_PER_PROCESS: '10' }),
      layout: sandboxLayout(packageRoot()),
      tmpDir: work,
      log: recordingLog().log,
    });
    open.push(parser);
    const files = [
      ['a.docx', makeDocx(['# Policy', 'Badges are worn at all times.'])],
      ['b.md', Buffer.from('# Notes\n\nSecond *document*, [a link](https://example.com).')],
      ['c.docx', makeDocx(['# Travel', 'Book trains for trips under four hours.'])],
    ] as const;
    const texts = async (group: string | undefined) => {
      const out: string[] = [];
      for (const [name, bytes] of files) {
        const file = path.join(work, name);
        await writeFile(file, bytes);
        out.push(
          (await parser.parse({ path: file, filename: name, declaredMediaType: null, group }, never)).text,
        );
      }
      return out;
    };
    const fresh = await texts(undefined);
    const started = parser.processesStarted;
    expect(await texts('ws_a')).toEqual(fresh);
    expect(parser.processesStarted - started).toBe(1);
  });
});

describe('parsing small documents in groups', () => {
  const open: SandboxedParser[] = [];
  afterEach(async () => {
    for (const p of open.splice(0)) await p.close();
  });
  const realParser = (options: { groupBudgetMs?: number } = {}) => {
    const parser = new SandboxedParser({
      config: parserConfig({ PARSER_DOCUMENTS_PER_PROCESS: '10' }),
      layout: sandboxLayout(packageRoot()),
      tmpDir: work,
      log: recordingLog().log,
      ...options,
    });
    open.push(parser);
    return parser;
  };
  const small = (filename: string, bytes: Buffer | string) => ({
    filename,
    bytes: Buffer.from(bytes),
    declaredMediaType: null,
  });
  const documents = [
    small('a.docx', makeDocx(['# Policy', 'Badges are worn at all times.'])),
    small('b.md', '# Notes\n\nSecond *document*, [a link](https://example.com).'),
    small('broken.docx', 'PK\u0003\u0004 not really a zip'),
    small('c.docx', makeDocx(['# Travel', 'Book trains for trips under four hours.'])),
  ];

  it('gives each document of a group what parsing it alone gives, in one request (the real parser)', async () => {
    const parser = realParser();
    const alone = [];
    for (const d of documents) {
      const file = path.join(work, d.filename);
      await writeFile(file, d.bytes);
      alone.push(
        await parser
          .parse({ path: file, filename: d.filename, declaredMediaType: null }, never)
          .then((doc) => doc.text)
          .catch((err: DocumentFailure) => err.code),
      );
    }
    expect(alone[2]).toBe('unsupported_media_type');
    const started = parser.processesStarted;
    const grouped = await parser.parseGroup(documents, 'ws_a', never);
    expect(grouped.map((r) => (r instanceof DocumentFailure ? r.code : r?.text))).toEqual(alone);
    expect(parser.processesStarted - started).toBe(1);
    // A process that failed a document takes no more of them.
    expect(parser.idleProcesses).toBe(0);
  });

  it("tells each document's language in the group's process when asked, as the worker would tell it", async () => {
    const parser = realParser();
    const texts = [
      '# Urlaub\n\nJeder Mitarbeiter erhält fünfundzwanzig Urlaubstage im Jahr, die er mit seinem Vorgesetzten abstimmt.',
      '# Leave\n\nEvery employee gets twenty-five days of paid leave a year, agreed with their manager.',
      '```\n$ ls -la /etc\n```\n\nLes employés reçoivent vingt-cinq jours de congés payés par an, à convenir avec leur responsable.',
      '| 1 | 2 |\n|---|---|\n| 3 | 4 |',
    ];
    const group = texts.map((t, i) => small(`doc-${i}.md`, t));
    const told = await parser.parseGroup(group, 'ws_a', never, { detectLanguage: true });
    const detector = new EldDetector();
    for (const [i, r] of told.entries()) {
      expect(r).not.toBeInstanceOf(DocumentFailure);
      const parsed = r as ParsedDocument;
      const here = await detector.detect(detectionSample(parsed.text));
      expect(parsed.language, texts[i]).toEqual(
        here ? { language: here.language, reliable: here.reliable } : null,
      );
    }
    expect(told.map((r) => (r as ParsedDocument).language?.language)).toEqual(['de', 'en', 'fr', undefined]);
    // Not asked, not told: the worker tells it (a workspace that sets its language needs none).
    const plain = await parser.parseGroup(group, 'ws_a', never);
    expect(plain.map((r) => (r as ParsedDocument).language)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('leaves the documents after the budget unparsed, for requests of their own', async () => {
    const parser = realParser({ groupBudgetMs: 0 });
    const grouped = await parser.parseGroup([documents[1]!, documents[0]!, documents[3]!], 'ws_a', never);
    expect(grouped.map((r) => (r instanceof DocumentFailure ? r.code : r?.text))).toEqual([
      '# Notes\n\nSecond *document*, a link.',
      undefined,
      undefined,
    ]);
    expect(parser.idleProcesses).toBe(1);
  });

  it('leaves every document of a group that killed its process to be parsed alone', async () => {
    const { parser } = misbehavingParser({ PARSER_DOCUMENTS_PER_PROCESS: '10' });
    open.push(parser);
    const ok = await parser.parseGroup([small('whoami', 'one'), small('whoami', 'two')], 'ws_a', never);
    expect(ok.map((r) => JSON.parse((r as { text: string }).text).bytes)).toEqual(['one', 'two']);
    const broken = await parser.parseGroup([small('whoami', 'one'), small('crash', 'two')], 'ws_a', never);
    expect(broken).toEqual([undefined, undefined]);
    expect(await inGroup(parser, 'ws_a', 'whoami')).toMatchObject({ answered: 0, reused: false });
  });

  it('counts every document of a group against the documents a process may parse', async () => {
    const { parser } = misbehavingParser({ PARSER_DOCUMENTS_PER_PROCESS: '3' });
    open.push(parser);
    const ids = (results: GroupParse[]) =>
      results.map((r) =>
        r === undefined ? r : (JSON.parse((r as { text: string }).text).processId as string),
      );
    const two = () => [small('whoami', 'one'), small('whoami', 'two')];
    const [a1, a2] = ids(await parser.parseGroup(two(), 'ws_a', never));
    // One more would fit in that process, two do not: a new one takes them.
    const [b1, b2] = ids(await parser.parseGroup(two(), 'ws_a', never));
    expect(a2).toBe(a1);
    expect(b2).toBe(b1);
    expect(b1).not.toBe(a1);
    // More than a process may take: the rest are left to be parsed alone.
    const four = ids(await parser.parseGroup([...two(), ...two()], 'ws_b', never));
    expect(four.slice(0, 3).every((id) => id !== undefined && id === four[0])).toBe(true);
    expect(four[3]).toBeUndefined();
  });

  it('starts the next process of a group while a group that leaves no room for another is parsed', async () => {
    const { parser } = misbehavingParser({ PARSER_DOCUMENTS_PER_PROCESS: '5' });
    open.push(parser);
    const three = () => [small('whoami', 'one'), small('whoami', 'two'), small('whoami', 'three')];
    const first = await parser.parseGroup(three(), 'ws_a', never);
    // Three more would not fit in that process: its successor was started with the group, and waits.
    expect([parser.processesStarted, parser.idleProcesses]).toEqual([2, 1]);
    const second = (await parser.parseGroup(three(), 'ws_a', never)).map(
      (r) => JSON.parse((r as { text: string }).text) as { processId: string; answered: number },
    );
    expect(second[0]!.processId).not.toBe(JSON.parse((first[0] as { text: string }).text).processId);
    expect(second.map((r) => r.answered)).toEqual([0, 1, 2]);
    // The second group found it ready: no process was started for it, only its own successor.
    expect(parser.processesStarted).toBe(3);
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

  it('with PARSER_ISOLATION=process never starts bubblewrap, says so, and parses in limited processes', async () => {
    // A bwrap that works (it runs its command) and leaves a mark: process mode must not even try it.
    const fake = path.join(work, 'marking-bin', 'bwrap');
    const mark = path.join(work, 'bwrap-was-run');
    await import('node:fs/promises').then((fs) => fs.mkdir(path.dirname(fake), { recursive: true }));
    await writeFile(fake, `#!/bin/sh\ntouch '${mark}'\nexit 1\n`, { mode: 0o755 });
    const { parser, warnings } = misbehavingParser({
      PARSER_ISOLATION: 'process',
      PARSER_BWRAP_PATH: fake,
      PARSER_TIMEOUT_SECONDS: '2',
    });
    expect(await parser.start()).toBe('process');
    expect(warnings.join('\n')).toMatch(/PARSERS ARE NOT ISOLATED \(PARSER_ISOLATION=process\)/);
    expect(await outcome(parser, 'fine.txt')).toMatchObject({ ok: true });
    expect(await outcome(parser, 'sleep')).toMatchObject({ ok: false, code: 'parser_timeout' });
    expect(existsSync(mark)).toBe(false);
    await parser.close();
  });

  it('empties the working folder of a process that takes another document', async () => {
    const parser = new SandboxedParser({
      config: parserConfig({ PARSER_ISOLATION: 'auto', PARSER_BWRAP_PATH: '/nonexistent' }),
      layout: sandboxLayout(packageRoot()),
      tmpDir: work,
      log: recordingLog().log,
    });
    const file = path.join(work, 'notes.md');
    await writeFile(file, '# Notes\n\nPlain text.');
    const parse = () =>
      parser.parseMeasured(
        { path: file, filename: 'notes.md', declaredMediaType: null, group: 'ws_a' },
        never,
      );
    expect((await parse()).reused).toBe(false);
    // What an earlier document's tools left in the process's temporary folder (its TMPDIR here).
    const [folder] = (await readdir(work)).filter((f) => f.startsWith('parse-'));
    await writeFile(path.join(work, folder!, 'left-behind'), 'an earlier document');
    expect(await parse()).toMatchObject({ reused: true, result: { ok: true } });
    expect(await readdir(path.join(work, folder!))).toEqual([]);
    await parser.close();
  });
});
