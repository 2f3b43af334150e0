import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, cliPath, runCli } from '../support/processes.js';

/** The built CLI asked for help or given a wrong option: usage, never a stack trace. */
let dataDir: string;
let env: Record<string, string>;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-cli-'));
  // As root, PostgreSQL runs as the postgres user, which must enter it (embedded.test covers the other case).
  await chmod(dataDir, 0o755);
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

/** Runs the built CLI with `input` on its standard input (a pipe). */
function runWithInput(args: string[], input: string, extra: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [cliPath(), ...args], {
    env: { ...env, ...extra },
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('docslurp serve that cannot start', () => {
  it('says in one sentence that SERVER_PORT is taken, before it initialises anything, and leaves no PostgreSQL running', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-busy-'));
    await chmod(dir, 0o755);
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const r = await runCli(['serve'], { ...baseEnv(), DATA_DIR: dir, SERVER_PORT: String(port) }, 60_000);
      expect(r.code).toBe(1);
      // The last line that is no log line: the refusal now comes within a second, so a log line on
      // stdout may reach the test after it on stderr, through a pipe of its own.
      const said = r.output
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('{'));
      expect(said.at(-1)).toBe(
        `docslurp: cannot listen on 127.0.0.1:${port}: the port is already in use; stop what uses it or choose another port with SERVER_PORT`,
      );
      expect(r.output).not.toMatch(STACK_LINE);
      // Issue 43: the port is checked first, so a new data folder is neither initialised nor migrated
      // (that took about 12 s before the error came).
      expect(await readdir(dir)).toEqual([]);
      expect(r.output).not.toContain('migrat');
      // Had it started one, the embedded PostgreSQL would be stopped, not left behind.
      const pidFile = path.join(dir, 'postgres', 'postmaster.pid');
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : 0;
      const alive = pid > 0 && spawnSync('kill', ['-0', String(pid)]).status === 0;
      if (alive) process.kill(pid, 'SIGINT');
      expect(alive).toBe(false);
    } finally {
      busy.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('docslurp users create --password-stdin', () => {
  it('reads the password from a pipe and creates the user', async () => {
    const r = runWithInput(
      ['users', 'create', '--email', 'piped@example.com', '--password-stdin'],
      'a piped passphrase\n',
    );
    expect(r.code, r.output).toBe(0);
    expect(r.output).not.toContain('a piped passphrase');
    const list = runWithInput(['users', 'list'], '');
    expect(list.output).toContain('piped@example.com');
  });

  it('asks at a terminal without showing what is typed', async () => {
    // `script` gives the CLI a terminal; the password is typed once the prompt shows, as a person would.
    const command = `${process.execPath} ${cliPath()} users create --email typed@example.com --password-stdin`;
    const child = spawn('script', ['-qec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let typed = false;
    child.stdout.on('data', (d) => {
      screen += d;
      if (!typed && screen.includes('Password (not shown):')) {
        typed = true;
        child.stdin.write('a typed passphrase\n');
      }
    });
    const [code] = (await once(child, 'exit')) as [number];
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('a typed passphrase');
    expect(runWithInput(['users', 'list'], '').output).toContain('typed@example.com');
  });
});

describe('npx docslurp', () => {
  const repo = path.resolve(path.dirname(cliPath()), '..', '..', '..');

  it('is a committed file, which npm links at install before anything is built', () => {
    const pkg = JSON.parse(readFileSync(path.join(repo, 'packages/service/package.json'), 'utf8'));
    expect(pkg.bin.docslurp).not.toMatch(/^dist\//);
    expect(existsSync(path.join(repo, 'packages/service', pkg.bin.docslurp))).toBe(true);
  });

  it('prints only the OpenAPI document on standard output', () => {
    const r = spawnSync('npx', ['--no-install', 'docslurp', 'openapi'], {
      cwd: repo,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).openapi).toMatch(/^3\./);
  });
});
