import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './data.js';

/** Writes `<name>.json` and `<name>.md` to bench/results/ and returns their paths. */
export function writeResults(name: string, json: unknown, markdown: string): string[] {
  const dir = path.join(repoRoot, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const files = [path.join(dir, `${name}.json`), path.join(dir, `${name}.md`)];
  writeFileSync(files[0]!, `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(files[1]!, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
  return files;
}

export function fixed(n: number, digits = 3): string {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
}

/** Options shared by the benchmark programs: `--label`, repeatable `--env KEY=VALUE`, numbers. */
export function parseBenchArgs(argv: string[]) {
  const env: Record<string, string> = {};
  const opts: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unexpected argument ${a}`);
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new Error(`${a} needs a value`);
    if (m[1] === 'env') {
      const eq = value.indexOf('=');
      if (eq < 1) throw new Error(`--env takes KEY=VALUE, got ${value}`);
      env[value.slice(0, eq)] = value.slice(eq + 1);
    } else opts[m[1]!] = value;
  }
  return { env, opts };
}
