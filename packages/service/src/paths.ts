import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The service package's folder, found from this module whether it runs from src/ or from the dist/ bundle. */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'migrations'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the service package (its migrations folder)');
    dir = parent;
  }
  return dir;
}

export const migrationsDir = () => path.join(packageRoot(), 'migrations');

/** Where the root build puts the web console: packages/console/dist, beside this package. */
export const consoleDistDir = () => path.join(packageRoot(), '..', 'console', 'dist');
