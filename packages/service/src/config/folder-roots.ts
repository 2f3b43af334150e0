import path from 'node:path';
import { DEFAULT_ACCOUNT } from '../domain/keys.js';
import type { FolderRootGrant } from '../sources/grants.js';
import { ConfigError } from './environment.js';

/** Two paths of which one contains the other (or the same). */
export const pathsOverlap = (a: string, b: string) =>
  a === b ||
  a.startsWith(b.endsWith(path.sep) ? b : b + path.sep) ||
  b.startsWith(a.endsWith(path.sep) ? a : a + path.sep);

/**
 * `/srv/handbook, team-b=/srv/team-b, *=/srv/public`: a bare path is granted to the default
 * account, `name=` (an account's name or id) to that account, `*=` to every account. A root may not
 * overlap DATA_DIR: a folder source would read the service's own files (its encryption key).
 */
export function parseFolderRoots(raw: string | undefined, dataDir: string): FolderRootGrant[] {
  const grants: FolderRootGrant[] = [];
  for (const entry of (raw ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const eq = entry.indexOf('=');
    const [account, p] =
      entry.startsWith('/') || eq < 0
        ? [DEFAULT_ACCOUNT, entry]
        : [entry.slice(0, eq).trim(), entry.slice(eq + 1).trim()];
    if (!account) throw new ConfigError(`SOURCE_FOLDER_ROOTS: "${entry}" names no account before "="`);
    if (!path.isAbsolute(p)) throw new ConfigError(`SOURCE_FOLDER_ROOTS: "${p}" is not an absolute path`);
    const resolved = path.resolve(p);
    if (pathsOverlap(resolved, dataDir))
      throw new ConfigError(
        `SOURCE_FOLDER_ROOTS: "${resolved}" overlaps DATA_DIR (${dataDir}); a folder source must never read the service's own data`,
      );
    grants.push({ account, path: resolved });
  }
  return grants;
}
