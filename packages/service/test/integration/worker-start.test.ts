import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { missingCommands, skipWithout } from '../support/tools.js';

const cli = path.join(packageRoot(), 'dist/cli.js');
const script = path.join(packageRoot(), '../../scripts/check-worker-prerequisites.mjs');
const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', LOG_LEVEL: 'silent' };

function run(file: string, args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [file, ...args], {
    env: { ...baseEnv, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('worker start and the prerequisites check', () => {
  it('the worker refuses to start when it cannot isolate parsers, and says why', () => {
    const r = run(cli, ['worker'], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/docslurp_never_used',
      PARSER_BWRAP_PATH: '/nonexistent/bwrap',
    });
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/parser isolation unavailable: bubblewrap \(bwrap\) is not installed/);
  });

  it('check-worker-prerequisites --sandbox runs the sandbox and reports it available here', () => {
    const r = run(script, ['--sandbox'], {});
    expect(r.out).toMatch(/^ok\s+sandbox: bubblewrap runs the parser/m);
    expect(r.status).toBe(0);
  });

  it('check-worker-prerequisites --sandbox says plainly what is missing', () => {
    const r = run(script, ['--sandbox'], { PARSER_BWRAP_PATH: '/nonexistent/bwrap' });
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/^MISSING sandbox: parser isolation unavailable: .*apt-get install bubblewrap/m);
  });

  const noFullTools = skipWithout(
    missingCommands(['tesseract', 'pdftoppm', 'soffice']),
    'check-worker-prerequisites --full',
  );
  it.skipIf(noFullTools)(
    'check-worker-prerequisites --full finds OCR, PDF rendering and LibreOffice inside the sandbox',
    () => {
      const r = run(script, ['--full'], {});
      expect(r.out).toMatch(/^ok\s+tesseract: tesseract \d/m);
      expect(r.out).toMatch(/^ok\s+pdftoppm: pdftoppm version/m);
      expect(r.out).toMatch(/^ok\s+soffice: LibreOffice \d/m);
      expect(r.status).toBe(0);
    },
  );
});
