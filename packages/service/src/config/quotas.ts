import type { QuotaLimits } from '../domain/types.js';
import { ConfigError, type Environment } from './environment.js';

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/**
 * A size as operators write it: bytes (`1048576`), or a number with a unit, decimal (`10GB` = 10^10
 * bytes, as disks are sold) or binary (`10GiB` = 10 × 2^30). Undefined when it is not one.
 */
export function parseByteSize(raw: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(raw.trim());
  if (!m) return undefined;
  const unit = UNITS[(m[2] || 'b').toLowerCase()];
  if (unit === undefined) return undefined;
  const bytes = Math.round(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

function count(name: string, raw: string | undefined): number | null {
  if (raw === undefined) return null;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
    throw new ConfigError(`${name} must be a whole number (unset: unlimited), got "${raw}"`);
  return Number(raw);
}

/** The server's default quota of every account (ACCOUNT_MAX_*); null: unlimited. */
export function quotaDefaults(e: Environment): QuotaLimits {
  const bytes = e.ACCOUNT_MAX_STORED_BYTES;
  const storedBytes = bytes === undefined ? null : parseByteSize(bytes);
  if (storedBytes === undefined)
    throw new ConfigError(
      `ACCOUNT_MAX_STORED_BYTES must be bytes or a size such as 10GB or 512MiB, got "${bytes}"`,
    );
  return {
    documents: count('ACCOUNT_MAX_DOCUMENTS', e.ACCOUNT_MAX_DOCUMENTS),
    storedBytes,
    uploadsPerDay: count('ACCOUNT_MAX_UPLOADS_PER_DAY', e.ACCOUNT_MAX_UPLOADS_PER_DAY),
    questionsPerDay: count('ACCOUNT_MAX_QUESTIONS_PER_DAY', e.ACCOUNT_MAX_QUESTIONS_PER_DAY),
  };
}
