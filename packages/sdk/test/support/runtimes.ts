import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Other JavaScript runtimes, as the binaries their makers publish on the npm registry. They are installed
 * on first use into a cache folder outside the repository (each is about 100 MB, and only these tests
 * need them), and reused by later runs on the same machine.
 */
export type Runtime = 'bun' | 'deno' | 'node18';

const { platform, arch } = process;
const specs: Record<Runtime, { spec: string; binary: string }> = {
  bun: {
    spec: `@oven/bun-${platform}-${arch === 'arm64' ? 'aarch64' : 'x64'}@1.4.5`,
    binary: 'bin/bun',
  },
  deno: { spec: `@deno/${platform}-${arch}${platform === 'linux' ? '-glibc' : ''}@2.9.6`, binary: 'deno' },
  node18: { spec: `node-${platform}-${arch}@18.20.8`, binary: 'bin/node' },
};

const cacheRoot = path.join(os.tmpdir(), 'docslurp-sdk-runtimes');

export async function runtimeBinary(runtime: Runtime): Promise<string> {
  const { spec, binary } = specs[runtime];
  const prefix = path.join(cacheRoot, spec.replace(/[@/]/g, '_'));
  const name = spec.slice(0, spec.lastIndexOf('@'));
  const file = path.join(prefix, 'node_modules', name, binary);
  if (!existsSync(file)) {
    await promisify(execFile)(
      'npm',
      ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', prefix, spec],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  }
  // Some of these packages ship the binary without its executable bit.
  await chmod(file, 0o755);
  return file;
}
