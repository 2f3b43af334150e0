import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dataDir } from '../../../../bench/lib/data.js';

/**
 * Programs from outside npm that some tests need (OCR, PDF rendering, LibreOffice, pg_dump, Chromium,
 * jemalloc). `npm test` on a machine with only the README's prerequisites skips the tests whose
 * program is missing and prints why, instead of failing them. CI installs every one of them and sets
 * DOCSLURP_TEST_TOOLS=required: there a missing program fails the test file, so a test CI means to
 * run can never be skipped without anyone noticing.
 */
const REQUIRED = process.env.DOCSLURP_TEST_TOOLS === 'required';

/** The Debian package that brings each program (what the skip message tells a person to install). */
const PACKAGES: Record<string, string> = {
  tesseract: 'tesseract-ocr',
  pdftoppm: 'poppler-utils',
  soffice: 'libreoffice-writer-nogui',
  pg_dump: 'postgresql-client',
  pg_restore: 'postgresql-client',
  chromium: 'chromium',
  'docker-compose': 'docker-compose',
};

/** Whether `command` can be run from PATH (or as given, when it is a path). */
export function hasCommand(command: string): boolean {
  const r = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { stdio: 'ignore' });
  return r.status === 0;
}

/** Why these commands cannot be run here (naming the packages that bring them), or undefined. */
export function missingCommands(commands: string[]): string | undefined {
  const missing = commands.filter((c) => !hasCommand(c));
  if (!missing.length) return undefined;
  const packages = [...new Set(missing.map((c) => PACKAGES[c] ?? c))];
  return `${missing.join(', ')} not found (apt-get install ${packages.join(' ')})`;
}

/** Why a file that tests need is absent, or undefined when it is there. */
export function missingFile(file: string, debianPackage: string): string | undefined {
  return existsSync(file) ? undefined : `${file} not found (apt-get install ${debianPackage})`;
}

/**
 * For `describe.skipIf(skipWithout(reason, what))`: true when `reason` says something is missing,
 * after printing which tests are skipped and why. With DOCSLURP_TEST_TOOLS=required it throws
 * instead, which fails the test file.
 */
export function skipWithout(reason: string | undefined, what: string): boolean {
  if (!reason) return false;
  const line = `${what}: ${reason}`;
  if (REQUIRED) throw new Error(`${line}; DOCSLURP_TEST_TOOLS=required, so this is a failure, not a skip`);
  console.warn(`[skipped] ${line}`);
  return true;
}

/**
 * Why the public evaluation data (shared/data beside the repository, or BENCH_DATA_DIR: tokenizers,
 * SciFact, SQuAD) is not here, or undefined when it is. A clone without it skips the tests that read it.
 */
export function missingBenchData(): string | undefined {
  try {
    dataDir();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
