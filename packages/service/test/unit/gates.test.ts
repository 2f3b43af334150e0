import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The gates of `npm run lint` besides the layer rules (layers.test.ts): each is run, with the
 * repository's own configuration and the arguments `npm run lint` gives it, on a scratch copy where
 * violations are planted on purpose, and must fail on each and on nothing else. A gate that stops
 * reading a folder, a rule turned off, an exception any file can claim, fails here (issue 42).
 */
const repo = path.resolve(import.meta.dirname, '../../../..');
const run = promisify(execFile);

type Outcome = { code: number; stdout: string; stderr: string };
async function outcome(cmd: string, args: string[], cwd: string): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(cmd, args, { cwd, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof err.code === 'number' ? err.code : 1,
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? '',
    };
  }
}

const dirs: string[] = [];
async function scratch(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-gates-'));
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('the regex lint', () => {
  /** file → the rules it must break (none: it must pass). */
  const planted: Record<string, [string, string[]]> = {
    // The console renders documents' text: its sources are read too, .tsx included.
    'packages/console/src/lib/table.ts': [
      'export const SEPARATOR = /^[ \\t]*\\|?[ \\t]*$/;\n',
      ['regexp/no-super-linear-backtracking'],
    ],
    'packages/console/src/screens/Cell.tsx': [
      "export const Cell = ({ text }: { text: string }) => <td>{text.replace(/\\s*,\\s*$/, '')}</td>;\n",
      ['regexp/no-super-linear-move'],
    ],
    // Ambiguous alternation, which the two backtracking rules do not report.
    'packages/service/src/text/dupe.ts': [
      'export const DUPE = /^(a|a)+$/;\n',
      ['regexp/no-dupe-disjunctions'],
    ],
    'packages/sdk/src/slow.ts': [
      'export const SLOW = /^(?:a+)+$/;\n',
      ['regexp/no-super-linear-backtracking'],
    ],
    'packages/service/src/text/fine.ts': ['export const FINE = /^[a-z]+(?:-[a-z]+)*$/;\n', []],
    'packages/console/src/lib/fine.tsx': ['export const Fine = () => <p>{/^\\d+$/.test("1")}</p>;\n', []],
  };

  it('reports each planted pattern with its rule, in the service, the SDK and the console', async () => {
    const pkg = JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const [tool, ...args] = pkg.scripts['lint:regexp']!.split(/\s+/);
    expect(tool).toBe('eslint');
    const dir = await scratch(Object.fromEntries(Object.entries(planted).map(([f, [text]]) => [f, text])));
    await symlink(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'));
    await copyFile(path.join(repo, 'eslint.regexp.config.mjs'), path.join(dir, 'eslint.regexp.config.mjs'));
    const eslint = path.join(repo, 'node_modules/eslint/bin/eslint.js');
    const result = await outcome(process.execPath, [eslint, ...args, '--format', 'json'], dir);
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as { filePath: string; messages: { ruleId: string | null }[] }[];
    const found: Record<string, string[]> = {};
    for (const file of report)
      found[path.relative(dir, file.filePath)] = [
        ...new Set(file.messages.map((m) => m.ruleId ?? 'parse error')),
      ].sort();
    const expected = Object.fromEntries(Object.entries(planted).map(([f, [, rules]]) => [f, rules]));
    expect(found).toEqual(expected);
  }, 60_000);
});

describe('the file size rule', () => {
  const lines = (n: number, first = '// a file') =>
    `${[first, ...Array(n - 1).fill('export {};')].join('\n')}\n`;
  const list = (files: { path: string; ceiling: number; reason: string }[]) =>
    `${JSON.stringify({ files }, null, 2)}\n`;
  const reason = 'one story that reads best in one place, for this test';

  async function check(files: Record<string, string>): Promise<Outcome> {
    const dir = await scratch(files);
    await mkdir(path.join(dir, 'scripts'), { recursive: true });
    await copyFile(path.join(repo, 'scripts/check-sizes.mjs'), path.join(dir, 'scripts/check-sizes.mjs'));
    await run('git', ['init', '-q'], { cwd: dir });
    return outcome(process.execPath, ['scripts/check-sizes.mjs'], dir);
  }

  it('passes files up to 400 lines, and listed files up to their ceiling', async () => {
    const result = await check({
      'packages/service/src/short.ts': lines(400),
      'packages/service/src/long.ts': lines(450),
      'scripts/size-exceptions.json': list([{ path: 'packages/service/src/long.ts', ceiling: 450, reason }]),
    });
    expect(result.code, result.stderr).toBe(0);
  });

  it('fails on every file over 400 lines that is not listed or passes its ceiling, whatever it says', async () => {
    const result = await check({
      'packages/service/src/unlisted.ts': lines(401),
      'packages/service/src/explained.ts': lines(500, '// Over 400 lines: a comment any file can carry.'),
      'bench/long.ts': lines(401),
      'packages/service/src/parsing/formats/long.ts': lines(401),
      'packages/console/src/Screen.tsx': lines(401),
      'packages/service/src/grown.ts': lines(451),
      'packages/service/src/shrunk.ts': lines(300),
      'packages/service/src/fine.ts': lines(430),
      'scripts/size-exceptions.json': list([
        { path: 'packages/service/src/grown.ts', ceiling: 450, reason },
        { path: 'packages/service/src/shrunk.ts', ceiling: 450, reason },
        { path: 'packages/service/src/gone.ts', ceiling: 450, reason },
        { path: 'packages/service/src/fine.ts', ceiling: 450, reason },
      ]),
    });
    expect(result.code).toBe(1);
    const named = result.stderr
      .split('\n')
      .map((l) => /^\s+(\S+):/.exec(l)?.[1])
      .filter(Boolean)
      .sort();
    expect(named).toEqual(
      [
        'bench/long.ts',
        'packages/console/src/Screen.tsx',
        'packages/service/src/explained.ts',
        'packages/service/src/gone.ts',
        'packages/service/src/grown.ts',
        'packages/service/src/parsing/formats/long.ts',
        'packages/service/src/shrunk.ts',
        'packages/service/src/unlisted.ts',
      ].sort(),
    );
  });

  it('refuses an entry without a reason or with a ceiling that is no exception', async () => {
    const result = await check({
      'packages/service/src/a.ts': lines(420),
      'packages/service/src/b.ts': lines(420),
      'scripts/size-exceptions.json': list([
        { path: 'packages/service/src/a.ts', ceiling: 450, reason: '' },
        { path: 'packages/service/src/b.ts', ceiling: 400, reason },
      ]),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('packages/service/src/a.ts: its entry');
    expect(result.stderr).toContain('packages/service/src/b.ts: its ceiling');
  });
});
