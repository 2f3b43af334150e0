// Shared by the selfhost-*.mjs scripts: the env file, its required values, and how to reach the
// compose stack. Plain Node (no dependencies), so the scripts run before `npm install`.
import { spawn, spawnSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const defaultEnvFile = path.join(repoRoot, '.env.selfhost');
export const composeFile = path.join(repoRoot, 'compose.selfhost.yml');

/**
 * The environment for compose commands: this process's, without the variables the compose file
 * substitutes. Compose prefers a shell variable to the same name in --env-file, so a DATABASE_URL
 * exported for development would silently point the stack at another database.
 */
export function composeEnv(env = process.env) {
  const substituted = new Set(
    [...readFileSync(composeFile, 'utf8').matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]),
  );
  return Object.fromEntries(Object.entries(env).filter(([k]) => !substituted.has(k)));
}

/** Values without which the stack cannot start or read its data. */
export const REQUIRED_KEYS = [
  'DB_PASSWORD',
  'DATABASE_URL',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'METRICS_SECRET',
  'ENCRYPTION_KEY',
  'SELFHOST_URL',
];

/** Services that must be running in a healthy stack; one of the worker variants is enough. */
export const REQUIRED_SERVICES = ['postgres', 'minio', 'redis', 'server', ['worker', 'worker-full']];

export class SelfhostError extends Error {}

/** Parses KEY=VALUE lines as compose reads an env file (comments and blank lines ignored). */
export function parseEnvFile(text) {
  const values = new Map();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    let value = line.slice(eq + 1).trim();
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1);
    values.set(line.slice(0, eq).trim(), value);
  }
  return values;
}

export function envFileName(file) {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') ? rel : file;
}

export function readEnvFile(file) {
  if (!existsSync(file)) {
    throw new SelfhostError(
      `${envFileName(file)} is missing: run node scripts/selfhost-init.mjs from the repository root`,
    );
  }
  return parseEnvFile(readFileSync(file, 'utf8'));
}

export function isLocalHost(hostname) {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** Everything wrong with the values of an env file, as messages that say what to do. */
export function problemsOf(values, file) {
  const problems = [];
  const name = envFileName(file);
  const missing = REQUIRED_KEYS.filter((k) => !(values.get(k) ?? '').trim());
  if (missing.length) {
    problems.push(
      `missing self-host values in ${name}: ${missing.join(', ')}. Fill them in, or regenerate the file ` +
        '(move it away and run node scripts/selfhost-init.mjs; new credentials need a new database)',
    );
  }
  const selfhostUrl = values.get('SELFHOST_URL');
  if (selfhostUrl) {
    let u;
    try {
      u = new URL(selfhostUrl);
    } catch {
      problems.push(`SELFHOST_URL is not a URL: ${selfhostUrl}`);
    }
    if (u && u.protocol === 'http:' && !isLocalHost(u.hostname)) {
      problems.push(
        `SELFHOST_URL must use HTTPS for a non-local host (got ${selfhostUrl}): put a TLS proxy in front ` +
          'and set SELFHOST_URL to its https:// URL',
      );
    }
  }
  const databaseUrl = values.get('DATABASE_URL');
  if (databaseUrl) {
    let u;
    try {
      u = new URL(databaseUrl);
      if (!/^postgres(ql)?:$/.test(u.protocol) || !u.hostname) throw new Error('not a postgres URL');
    } catch {
      problems.push(
        'DATABASE_URL is not a valid postgres:// URL: reserved characters in the password ' +
          '(@ : / # % ? and others) must be URL-encoded inside the URL',
      );
      u = undefined;
    }
    const dbPassword = values.get('DB_PASSWORD');
    const unencoded =
      dbPassword && encodeURIComponent(dbPassword) !== dbPassword && databaseUrl.includes(`:${dbPassword}@`);
    if (unencoded || u?.hash) {
      problems.push(
        'DATABASE_URL holds the password unencoded: reserved characters (@ : / # % ? and others) must be ' +
          `URL-encoded inside the URL${dbPassword ? ` (DB_PASSWORD encoded: ${encodeURIComponent(dbPassword)})` : ''}`,
      );
    } else if (u && dbPassword && decodeURIComponent(u.password) !== dbPassword) {
      problems.push(
        'the password in DATABASE_URL differs from DB_PASSWORD: both must hold the same password ' +
          '(URL-encoded in DATABASE_URL); see "Changing DB_PASSWORD" in docs/selfhost.md',
      );
    }
  }
  const accessKey = values.get('AWS_ACCESS_KEY_ID') ?? '';
  const secretKey = values.get('AWS_SECRET_ACCESS_KEY') ?? '';
  if (accessKey && accessKey.length < 3)
    problems.push('AWS_ACCESS_KEY_ID must have at least 3 characters (MinIO)');
  if (secretKey && secretKey.length < 8)
    problems.push('AWS_SECRET_ACCESS_KEY must have at least 8 characters (MinIO)');
  return problems;
}

function commandWorks(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  return r.status === 0;
}

/**
 * The compose command for the stack: SELFHOST_COMPOSE when set (a full command prefix, files
 * included, split on spaces), else `docker compose` or `docker-compose` with the env file and
 * compose.selfhost.yml.
 */
export function composeCommand(envFile) {
  const override = process.env.SELFHOST_COMPOSE?.trim();
  if (override) return override.split(/\s+/);
  const base = commandWorks('docker', ['compose', 'version'])
    ? ['docker', 'compose']
    : commandWorks('docker-compose', ['version'])
      ? ['docker-compose']
      : undefined;
  if (!base) throw new SelfhostError('neither "docker compose" nor "docker-compose" was found');
  return [...base, '--env-file', envFile, '-f', composeFile];
}

/** The CLI that inspects containers: docker, or podman where there is no docker CLI. */
export function engineCommand() {
  return commandWorks('docker', ['version', '--format', '{{.Client.Version}}']) ? 'docker' : 'podman';
}

export function display(argv) {
  return argv.map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ');
}

/**
 * What the compose tools print when no container engine answers on their socket: docker-compose 1.x
 * a Python traceback, the docker CLI a one-liner. Neither says what to do.
 */
const ENGINE_UNREACHABLE =
  /Error while fetching server API version|Cannot connect to the Docker daemon|Is the docker daemon running|Cannot connect to Podman/i;

export function engineUnreachable(env = process.env) {
  const where = env.DOCKER_HOST ? `DOCKER_HOST=${env.DOCKER_HOST}` : 'the default Docker socket';
  return new SelfhostError(
    `the container engine is not reachable (${where}). Start it (Docker: "sudo systemctl start docker"; ` +
      'podman: "podman system service --time=0 unix:///run/podman/podman.sock &" with DOCKER_HOST pointing ' +
      'at that socket), then check that "docker info" (or "podman info") answers.',
  );
}

/**
 * Runs a command. `stdin`/`stdout` may name files to stream from/to; output is otherwise returned.
 * Rejects with the command's stderr when it exits non-zero, or with what to do when the container
 * engine is not reachable.
 */
export function run(argv, { stdin, stdout, env, quiet = false } = {}) {
  const [cmd, ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      env: env ?? composeEnv(),
      stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    if (stdin) {
      // The command may exit before reading everything; its exit code tells what happened.
      child.stdin.on('error', () => {});
      createReadStream(stdin).on('error', reject).pipe(child.stdin);
    }
    const sink = stdout ? createWriteStream(stdout, { mode: 0o600 }) : undefined;
    const written = sink
      ? new Promise((res, rej) => sink.on('finish', res).on('error', rej))
      : Promise.resolve();
    if (sink) child.stdout.pipe(sink);
    else child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => {
      err += c;
      if (!quiet) process.stderr.write(c);
    });
    child.on('error', (e) => reject(new SelfhostError(`${cmd}: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) written.then(() => resolve(out), reject);
      else if (ENGINE_UNREACHABLE.test(err)) reject(engineUnreachable(env ?? process.env));
      else {
        const tail = err.trim().split('\n').slice(-5).join('\n');
        reject(new SelfhostError(`${display(argv)} exited with code ${code}${tail ? `:\n${tail}` : ''}`));
      }
    });
  });
}

const cli = path.join(repoRoot, 'packages/service/dist/cli.js');

/**
 * How backup and restore reach the stack. `compose`: commands run in its containers (pg_dump in
 * postgres; bucket copies in a one-off `ops` container, which has the stack's S3 settings, with the
 * folder mounted and written as the calling user). `direct`: pg_dump, pg_restore and the CLI
 * run on this machine with the env file's settings.
 */
export function transport(mode, envFile, values) {
  if (mode === 'direct') {
    if (!existsSync(cli)) throw new SelfhostError(`${cli} is missing: run npm run build first`);
    const env = { ...process.env, ...Object.fromEntries(values) };
    const url = values.get('DATABASE_URL');
    return {
      checkDumpVersion: () => checkDumpVersion(url),
      // Through our stdout, which writes the file readable by its owner only (pg_dump's --file
      // follows the umask): the dump holds every key hash and stored credential.
      dumpDatabase: (file) => run(['pg_dump', '--format=custom', url], { stdout: file }),
      listDump: (file) => run(['pg_restore', '--list', file], { quiet: true }),
      restoreDatabase: (file) => run(['pg_restore', ...RESTORE_FLAGS, `--dbname=${url}`, file]),
      databaseReady: () => run(['pg_isready', `--dbname=${url}`], { quiet: true }),
      bucket: (action, dir) =>
        run([process.execPath, cli, 'bucket', action, ...(dir ? [dir] : [])], { env, quiet: true }),
    };
  }
  const compose = composeCommand(envFile);
  const user = typeof process.getuid === 'function' ? ['-u', `${process.getuid()}:${process.getgid()}`] : [];
  const psql = ['exec', '-T', 'postgres'];
  return {
    compose,
    // pg_dump runs inside the database's own container: always its server's version.
    checkDumpVersion: async () => {},
    dumpDatabase: (file) =>
      run([...compose, ...psql, 'pg_dump', '-U', 'service', '-d', 'service', '--format=custom'], {
        stdout: file,
      }),
    listDump: (file) => run([...compose, ...psql, 'pg_restore', '--list'], { stdin: file, quiet: true }),
    restoreDatabase: (file) =>
      run([...compose, ...psql, 'pg_restore', '-U', 'service', '-d', 'service', ...RESTORE_FLAGS], {
        stdin: file,
      }),
    databaseReady: () =>
      run([...compose, ...psql, 'pg_isready', '-U', 'service', '-d', 'service'], { quiet: true }),
    bucket: (action, dir) =>
      run(
        [
          ...compose,
          ...['run', '--rm', '--no-deps', '-T', ...user],
          ...(dir ? ['-v', `${path.dirname(dir)}:/backup`] : []),
          ...['ops', 'bucket', action],
          ...(dir ? [`/backup/${path.basename(dir)}`] : []),
        ],
        { quiet: true },
      ),
  };
}

/** The major version of one of PostgreSQL's client programs (`pg_dump (PostgreSQL) 15.20 …` is 15). */
function clientMajor(program) {
  const r = spawnSync(program, ['--version'], { encoding: 'utf8' });
  const major = /\(PostgreSQL\) (\d+)/.exec(r.stdout ?? '')?.[1];
  if (r.error || r.status !== 0 || !major) {
    throw new SelfhostError(
      `${program} was not found: install PostgreSQL's client programs (Debian: apt-get install postgresql-client)`,
    );
  }
  return Number(major);
}

/**
 * pg_dump refuses a server newer than itself ("server version mismatch"), and only after it has
 * connected. The embedded PostgreSQL of \`npm start\` is version 18 while Debian 12 ships pg_dump 15: say
 * at once which version is needed, before anything is written.
 */
async function checkDumpVersion(url) {
  const dump = clientMajor('pg_dump');
  const shown = await run(['psql', '-AtX', '-c', 'SHOW server_version_num', `--dbname=${url}`], {
    quiet: true,
  }).catch((err) => {
    throw new SelfhostError(`could not ask the database for its version with psql: ${err.message}`);
  });
  const server = Math.floor(Number(shown.trim()) / 10000);
  if (dump < server) {
    throw new SelfhostError(
      `pg_dump ${dump} cannot back up this database, which runs PostgreSQL ${server}: install pg_dump ${server} or newer (PostgreSQL ${server}'s client programs) and run the backup again`,
    );
  }
}

/**
 * Restore replaces what the dump holds (clean, if-exists), in one transaction so that a failure
 * leaves the database as it was; ownership goes to the restoring role.
 */
const RESTORE_FLAGS = ['--clean', '--if-exists', '--no-owner', '--single-transaction', '--exit-on-error'];

/** Parses `docslurp bucket list` output (one JSON object per line) into key → size. */
export function parseListing(text) {
  return new Map(
    text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .map((o) => [o.key, o.size]),
  );
}

/** Files under `root` as key → size, keys being `/`-separated relative paths. */
export function localFiles(root) {
  const files = new Map();
  const walk = (dir, prefix) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name), `${prefix}${e.name}/`);
      else if (e.isFile()) files.set(`${prefix}${e.name}`, statSync(path.join(dir, e.name)).size);
    }
  };
  if (existsSync(root)) walk(root, '');
  return files;
}

/**
 * A copy is checked, not trusted (a copy tool can report success without writing): every object of
 * the listing taken before the copy must be there with its size, unless the object was deleted from
 * the source meanwhile (`after` no longer has it: index clean-up while the stack runs).
 */
export function verifyCopy(before, after, copied) {
  const missing = [];
  const wrongSize = [];
  for (const [key, size] of before) {
    const got = copied.get(key);
    if (got === undefined) {
      if (after.has(key) && !key.endsWith('/')) missing.push(key);
    } else if (got !== size && got !== after.get(key)) {
      wrongSize.push(`${key} (${got} bytes, source has ${size})`);
    }
  }
  return { missing, wrongSize };
}

/** Throws when `verifyCopy` found differences. */
export function assertCopy(what, result) {
  const { missing, wrongSize } = result;
  if (!missing.length && !wrongSize.length) return;
  const eg = (list) => (list.length ? ` (e.g. ${list.slice(0, 3).join(', ')})` : '');
  throw new SelfhostError(
    `${what} is incomplete: ${missing.length} objects missing${eg(missing)}, ` +
      `${wrongSize.length} with the wrong size${eg(wrongSize)}`,
  );
}

/** Runs `main` and turns a SelfhostError into its message and exit code 1. */
export async function script(main) {
  try {
    await main();
  } catch (err) {
    if (err instanceof SelfhostError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
