import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { repoRoot } from './data.js';

const run = promisify(execFile);

export interface Manual {
  /** The Debian package, e.g. `debian-handbook`. */
  package: string;
  /** The package's version, as Debian spells it (`1:2.39.5-0+deb12u3`), or `unknown`. */
  version: string;
  /** The folder the package was extracted into (its `usr/` is directly inside). */
  dir: string;
  /** Where it came from: the MANUALS_DIR folder, or the cache (filled now or before). */
  source: 'MANUALS_DIR' | 'cache';
}

/** Beside the other tools' caches: git and Biome both leave node_modules alone, and it outlives /tmp. */
export function manualsCacheDir(): string {
  return path.join(repoRoot, 'node_modules/.cache/docslurp-manuals');
}

const MANIFEST = '.docslurp-package.json';

/**
 * The extracted folder of a Debian documentation package: `$MANUALS_DIR/<package>` when MANUALS_DIR
 * is set (a folder of already extracted packages), else `node_modules/.cache/docslurp-manuals/<package>`,
 * filled with `apt-get download` and `dpkg-deb -x` the first time. Throws an error that says what to
 * do when the package can be had neither way.
 */
export async function manualDir(
  pkg: string,
  env: Record<string, string | undefined> = process.env,
): Promise<Manual> {
  if (!/^[a-z0-9][a-z0-9+.-]+$/.test(pkg)) throw new Error(`not a Debian package name: ${pkg}`);
  if (env.MANUALS_DIR) {
    const dir = path.resolve(env.MANUALS_DIR, pkg);
    if (!existsSync(path.join(dir, 'usr'))) {
      throw new Error(
        `MANUALS_DIR is ${env.MANUALS_DIR} but ${dir}/usr does not exist: extract the package there ` +
          `(apt-get download ${pkg} && dpkg-deb -x ${pkg}_*.deb ${dir}) or unset MANUALS_DIR to use the cache`,
      );
    }
    return { package: pkg, version: versionFromChangelog(dir, pkg), dir, source: 'MANUALS_DIR' };
  }
  const dir = path.join(manualsCacheDir(), pkg);
  const manifest = path.join(dir, MANIFEST);
  if (existsSync(manifest)) {
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    return { package: pkg, version, dir, source: 'cache' };
  }
  const version = await fetchPackage(pkg, dir);
  return { package: pkg, version, dir, source: 'cache' };
}

/** Downloads the package with apt-get and extracts it into `dir`, whole or not at all. */
async function fetchPackage(pkg: string, dir: string): Promise<string> {
  const cache = manualsCacheDir();
  await mkdir(cache, { recursive: true });
  const work = await mkdtemp(path.join(cache, `.fetch-${pkg}-`));
  try {
    await aptDownload(pkg, work);
    const deb = (await readdir(work)).find((f) => f.endsWith('.deb'));
    if (!deb) throw new Error(`apt-get download ${pkg} left no .deb in ${work}`);
    const debPath = path.join(work, deb);
    const { stdout } = await run('dpkg-deb', ['-f', debPath, 'Version']);
    const version = stdout.trim();
    const extracted = path.join(work, 'root');
    await run('dpkg-deb', ['-x', debPath, extracted]);
    await writeFile(
      path.join(extracted, MANIFEST),
      `${JSON.stringify({ package: pkg, version, deb, fetchedAt: new Date().toISOString() }, null, 2)}\n`,
    );
    // The rename is the commit: a folder with its manifest is always a complete extraction. Another
    // process may have committed the same package meanwhile; its copy is as good.
    if (!existsSync(path.join(dir, MANIFEST))) {
      await rm(dir, { recursive: true, force: true });
      await rename(extracted, dir).catch((err) => {
        if (!existsSync(path.join(dir, MANIFEST))) throw err;
      });
    }
    return version;
  } catch (err) {
    throw new Error(
      `cannot get the Debian package ${pkg}: ${(err as Error).message.trim()}\n` +
        `Either run as root on Debian with its package archive reachable (apt-get download ${pkg} and ` +
        `dpkg-deb -x must work), or extract the package yourself and set MANUALS_DIR to the folder holding ` +
        `${pkg}/usr.`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function aptDownload(pkg: string, cwd: string): Promise<void> {
  try {
    await run('apt-get', ['download', '-qq', pkg], { cwd });
  } catch (err) {
    // A fresh machine may have no package lists yet: read them once (root only) and try again.
    const message = String((err as { stderr?: string }).stderr ?? (err as Error).message);
    if (!/unable to locate package|no packages found/i.test(message) || process.getuid?.() !== 0) throw err;
    await run('apt-get', ['update', '-qq']);
    await run('apt-get', ['download', '-qq', pkg], { cwd });
  }
}

/** The version in the first line of the package's changelog (`git (1:2.39.5-0+deb12u3) ...`). */
function versionFromChangelog(dir: string, pkg: string): string {
  for (const name of ['changelog.Debian.gz', 'changelog.gz']) {
    const file = path.join(dir, 'usr/share/doc', pkg, name);
    if (!existsSync(file)) continue;
    const first = gunzipSync(readFileSync(file)).toString('utf8').split('\n', 1)[0] ?? '';
    const m = /^\S+ \(([^)]+)\)/.exec(first);
    if (m) return m[1]!;
  }
  return 'unknown';
}
