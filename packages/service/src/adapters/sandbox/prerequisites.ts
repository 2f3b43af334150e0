import os from 'node:os';
import { loadConfig } from '../../config.js';
import { silentLog } from '../../domain/log.js';
import { FULL_PROFILE_TOOLS } from '../../parsing/formats/tools.js';
import { packageRoot } from '../../paths.js';
import { sandboxLayout } from './bwrap.js';
import { SandboxedParser } from './parser.js';

export interface PrerequisiteCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/**
 * What scripts/check-worker-prerequisites.mjs reports: whether the parser sandbox runs here (by
 * running it, with the worker's own settings) and, for the full profile, whether its tools start
 * inside the sandbox.
 */
export async function checkWorkerPrerequisites(
  env: Record<string, string | undefined>,
  which: { sandbox: boolean; full: boolean },
): Promise<PrerequisiteCheck[]> {
  const config = loadConfig(env);
  const parser = new SandboxedParser({
    config: { ...config.parser, isolation: 'required' },
    layout: sandboxLayout(packageRoot()),
    tmpDir: os.tmpdir(),
    log: silentLog,
  });
  const checks: PrerequisiteCheck[] = [];
  let sandboxOk = false;
  try {
    await parser.start();
    sandboxOk = true;
    if (which.sandbox) {
      checks.push({
        name: 'sandbox',
        ok: true,
        detail: 'bubblewrap runs the parser: no network, read-only system, private /tmp, no capabilities',
      });
    }
  } catch (err) {
    checks.push({ name: 'sandbox', ok: false, detail: (err as Error).message });
  }
  if (which.full && sandboxOk) {
    const versions = await parser.probeTools();
    for (const tool of FULL_PROFILE_TOOLS) {
      const version = versions[tool.program] ?? 'missing';
      const ok = version !== 'missing' && !version.startsWith('failed');
      checks.push({
        name: tool.program,
        ok,
        detail: ok
          ? `${version} (${tool.purpose})`
          : `${tool.program} ${version} inside the sandbox; it is needed for ${tool.purpose} in the full profile: apt-get install ${tool.apt}`,
      });
    }
  }
  return checks;
}
