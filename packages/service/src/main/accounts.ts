/** `docslurp accounts quota …`: the operator's view and setting of an account's quotas (issue 43). */
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { type QuotaChange, type QuotaReport, quotaReport } from '../accounts/quotas.js';
import { parseByteSize } from '../config/quotas.js';
import { type Config, ConfigError } from '../config.js';
import { QUOTAS, type QuotaName } from '../domain/types.js';
import { auditCli, withDatabase } from './admin.js';

export const ACCOUNTS_USAGE = `  accounts quota show ACCOUNT [--json]
  accounts quota set ACCOUNT [--documents N] [--stored-bytes SIZE] [--uploads-per-day N]
                     [--questions-per-day N] [--json]
                         an account's own limits (SIZE: bytes or 10GB, 512MiB…); each takes a
                         number, "unlimited", or "default" (back to ACCOUNT_MAX_*)`;

const FLAGS: Record<QuotaName, string> = {
  documents: 'documents',
  storedBytes: 'stored-bytes',
  uploadsPerDay: 'uploads-per-day',
  questionsPerDay: 'questions-per-day',
};

function changeOf(quota: QuotaName, raw: string): QuotaChange {
  const value = raw.trim().toLowerCase();
  if (value === 'default') return 'default';
  if (value === 'unlimited') return null;
  const n = quota === 'storedBytes' ? parseByteSize(value) : /^\d+$/.test(value) ? Number(value) : undefined;
  if (n === undefined || !Number.isSafeInteger(n))
    throw new ConfigError(
      `--${FLAGS[quota]} takes ${quota === 'storedBytes' ? 'bytes or a size such as 10GB' : 'a whole number'}, "unlimited" or "default", not "${raw}"`,
    );
  return n;
}

function printReport(name: string, report: QuotaReport): void {
  process.stdout.write(`Quotas of account "${name}":\n`);
  for (const q of QUOTAS) {
    const { limit, used } = report[q];
    process.stdout.write(
      `  ${FLAGS[q].padEnd(18)} ${String(used).padStart(12)} used of ${limit ?? 'unlimited'}\n`,
    );
  }
}

export async function accounts(config: Config, log: Logger, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      documents: { type: 'string' },
      'stored-bytes': { type: 'string' },
      'uploads-per-day': { type: 'string' },
      'questions-per-day': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [noun, action, target] = positionals;
  if (noun !== 'quota' || (action !== 'show' && action !== 'set') || !target)
    throw new ConfigError(
      'use: docslurp accounts quota show ACCOUNT | accounts quota set ACCOUNT --documents N …',
    );
  const changes: Partial<Record<QuotaName, QuotaChange>> = {};
  for (const q of QUOTAS) {
    const raw = values[FLAGS[q] as keyof typeof values];
    if (typeof raw === 'string') changes[q] = changeOf(q, raw);
  }
  if (action === 'set' && Object.keys(changes).length === 0)
    throw new ConfigError(
      'accounts quota set needs at least one of --documents, --stored-bytes, --uploads-per-day, --questions-per-day',
    );
  await withDatabase(config, log, async (deps) => {
    const account = await deps.accounts.findAccount(target);
    if (!account) throw new ConfigError(`no account "${target}"`);
    if (action === 'set') {
      await deps.quotas.setQuotaOverrides(account.id, changes);
      await auditCli(deps, account.id, {
        action: 'account.quotas_changed',
        targetType: 'account',
        targetId: account.id,
        details: { changes },
      });
    }
    const report = await quotaReport(deps, account.id);
    if (values.json)
      process.stdout.write(
        `${JSON.stringify({ account: account.name, accountId: account.id, ...report })}\n`,
      );
    else printReport(account.name, report);
  });
}
