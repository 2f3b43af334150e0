/**
 * Quotas per account (issue 43): the rule, stated once, applied by every face that adds documents
 * (uploads, URL ingestion, source syncs) or asks for answers (chat, the OpenAI-compatible endpoint,
 * MCP's ask). A quota is the operator's default (ACCOUNT_MAX_*) unless the account has its own.
 */

import { audit } from '../access/audit.js';
import { hashApiKey } from '../domain/keys.js';
import type { AccountStore, AuditStore } from '../domain/stores.js';
import {
  type Principal,
  QUOTAS,
  type QuotaLimits,
  type QuotaName,
  type QuotaRefusal,
} from '../domain/types.js';
import { AppError, errors } from '../errors.js';
import type { AccountUse, QuotaChange, QuotaStore } from './store.js';

export type { AccountUse, QuotaChange, QuotaStore } from './store.js';

export interface QuotaDeps {
  quotas: QuotaStore;
  /** The server's default of every quota (ACCOUNT_MAX_*). */
  quotaDefaults: QuotaLimits;
}

/** Today's behaviour, and every quota's when no ACCOUNT_MAX_* is set. */
export const UNLIMITED: QuotaLimits = {
  documents: null,
  storedBytes: null,
  uploadsPerDay: null,
  questionsPerDay: null,
};

/** Quotas that count what an account holds; the others count what it did today (UTC). */
const DAILY: ReadonlySet<QuotaName> = new Set(['uploadsPerDay', 'questionsPerDay']);

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const WHAT: Record<QuotaName, (n: number) => string> = {
  documents: (n) => plural(n, 'document', 'documents'),
  storedBytes: (n) => plural(n, 'byte', 'bytes'),
  uploadsPerDay: (n) => plural(n, 'file', 'files'),
  questionsPerDay: (n) => plural(n, 'question', 'questions'),
};

/** The refusal in words: what the account may do, what it did, and what to do about it. */
const SAID: Record<QuotaName, (limit: number, used: number) => string> = {
  documents: (limit, used) =>
    `The account may hold ${WHAT.documents(limit)} and holds ${used}, so nothing was stored; delete documents to make room, or ask the operator for a higher limit.`,
  storedBytes: (limit, used) =>
    `The account may hold ${WHAT.storedBytes(limit)} of originals and holds ${used}, so nothing was stored; delete documents to make room, or ask the operator for a higher limit.`,
  uploadsPerDay: (limit, used) =>
    `The account may upload ${WHAT.uploadsPerDay(limit)} a day and has uploaded ${used} today, so nothing was stored; the count starts again at midnight UTC.`,
  questionsPerDay: (limit, used) =>
    `The account may ask ${WHAT.questionsPerDay(limit)} a day and has asked ${used} today; the count starts again at midnight UTC.`,
};

/** Each quota's limit: the account's own where an operator set one, else the server's default. */
export function effectiveLimits(defaults: QuotaLimits, overrides: Partial<QuotaLimits>): QuotaLimits {
  const limits = { ...defaults };
  for (const q of QUOTAS) if (q in overrides) limits[q] = overrides[q] ?? null;
  return limits;
}

/** The next UTC midnight after `now`, when the daily counts start again. */
export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** Seconds from `now` to the next UTC midnight (at least 1): the daily quotas' Retry-After. */
export function secondsUntilTomorrow(now: Date): number {
  return Math.max(1, Math.ceil((nextUtcMidnight(now).getTime() - now.getTime()) / 1000));
}

/** A daily quota exceeded is retried tomorrow, so its status is 429 with Retry-After; a stock one is 403. */
class QuotaExceeded extends AppError {
  override readonly status: number;
  constructor(refusal: QuotaRefusal, message: string, retryAfterSeconds: number | undefined) {
    super(
      'quota_exceeded',
      message,
      retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) },
      { quota: refusal.quota, limit: refusal.limit, used: refusal.used },
    );
    this.status = retryAfterSeconds === undefined ? 403 : 429;
  }
}

/** The refusal as the API answers it: which quota, its limit, what is used, and what to do. */
export function quotaError(refusal: QuotaRefusal, now = new Date()): AppError {
  const { quota, limit, used } = refusal;
  return new QuotaExceeded(
    refusal,
    `Quota "${quota}" exceeded: ${SAID[quota](limit, used)}`,
    DAILY.has(quota) ? secondsUntilTomorrow(now) : undefined,
  );
}

/** What a request adds: documents, the bytes known now, and whether some bytes come later (URLs). */
export interface Addition {
  documents: number;
  bytes: number;
  /** Pages fetched later: their size is not known yet, so they need room left at all. */
  bytesLater: boolean;
}

/**
 * The first quota an upload would exceed, from what the account holds and uploaded today (read
 * under its lock), or undefined when it fits. Files count one upload each, whatever the request.
 */
export function uploadRefusal(limits: QuotaLimits, use: AccountUse, add: Addition): QuotaRefusal | undefined {
  const over = (quota: QuotaName, adding: number, full = false): QuotaRefusal | undefined => {
    const limit = limits[quota];
    if (limit === null) return undefined;
    const used = use[quota];
    return used + adding > limit || (full && used >= limit) ? { quota, limit, used } : undefined;
  };
  return (
    over('documents', add.documents) ??
    over('storedBytes', add.bytes, add.bytesLater) ??
    over('uploadsPerDay', add.documents)
  );
}

/**
 * How many of a sync's new items fit (the first ones in its listing), and why the rest do not: a
 * sync adds what fits and records the others as skipped with the quota's reason, so nothing stored
 * is lost and the next sync adds them once there is room. Sizes a listing does not know count 0.
 */
export function syncRoom(
  limits: QuotaLimits,
  use: AccountUse,
  sizes: (number | null)[],
): { fits: number; refusal: QuotaRefusal | undefined } {
  let documents = use.documents;
  let bytes = use.storedBytes;
  for (let i = 0; i < sizes.length; i++) {
    const size = sizes[i] ?? 0;
    if (limits.documents !== null && documents + 1 > limits.documents)
      return { fits: i, refusal: { quota: 'documents', limit: limits.documents, used: use.documents } };
    if (limits.storedBytes !== null && bytes + size > limits.storedBytes)
      return { fits: i, refusal: { quota: 'storedBytes', limit: limits.storedBytes, used: use.storedBytes } };
    documents++;
    bytes += size;
  }
  return { fits: sizes.length, refusal: undefined };
}

/** The reason a sync records for the items over a quota (on its run, with the skipped items). */
export function syncSkipReason(refusal: QuotaRefusal): string {
  const what = WHAT[refusal.quota];
  return `over the account's ${refusal.quota} quota (${what(refusal.limit)}; ${what(refusal.used)} held before this sync)`;
}

/**
 * Counts a question against the account's daily quota, or refuses it (429). A question is one
 * request for an answer (chat, a chat completion, MCP's ask), counted when admitted, whatever its
 * answer; searches are not questions, nor are an evaluation's.
 */
export async function admitQuestion(deps: QuotaDeps, principal: Principal): Promise<void> {
  const r = await deps.quotas.countQuestion(principal.accountId, deps.quotaDefaults.questionsPerDay);
  if (!r.counted) throw quotaError({ quota: 'questionsPerDay', limit: r.limit, used: r.used });
}

/** Each quota's limit (null: unlimited) and what is used of it: `/v1/overview` and the quotas routes. */
export type QuotaReport = Record<QuotaName, { limit: number | null; used: number }> & {
  /** When the daily counts start again (the next midnight UTC). */
  resetsAt: Date;
};

export async function quotaReport(
  deps: QuotaDeps,
  accountId: string,
  now = new Date(),
): Promise<QuotaReport> {
  const [overrides, use] = await Promise.all([
    deps.quotas.quotaOverrides(accountId),
    deps.quotas.accountUse(accountId),
  ]);
  const limits = effectiveLimits(deps.quotaDefaults, overrides);
  const report = {} as Record<QuotaName, { limit: number | null; used: number }>;
  for (const q of QUOTAS) report[q] = { limit: limits[q], used: use[q] };
  return { ...report, resetsAt: nextUtcMidnight(now) };
}

export interface OperatorDeps extends QuotaDeps {
  accounts: Pick<AccountStore, 'findAccount' | 'findApiKeyByHash'>;
  audit: Pick<AuditStore, 'append'>;
  /** The operator's key: SERVICE_BOOTSTRAP_API_KEY, which the server keeps with every scope. */
  operatorKey: string | undefined;
}

/**
 * Whether the caller is the service's operator, who may see and set every account's quotas: the
 * bootstrap key (SERVICE_BOOTSTRAP_API_KEY). An account's owners run a team, not the server.
 */
async function isOperator(deps: OperatorDeps, principal: Principal): Promise<boolean> {
  if (!deps.operatorKey || !principal.keyId) return false;
  const key = await deps.accounts.findApiKeyByHash(hashApiKey(deps.operatorKey));
  return key?.id === principal.keyId && !key.revokedAt;
}

/**
 * The account by id or name: the caller's own for anyone, any for the operator. Another account
 * answers the same refusal whether it exists or not, so that names cannot be probed.
 */
async function accountFor(deps: OperatorDeps, principal: Principal, account: string): Promise<string> {
  const found = await deps.accounts.findAccount(account);
  if (found?.id === principal.accountId) return found.id;
  if (!(await isOperator(deps, principal)))
    throw errors.permissionDenied("Only the service's operator sees or sets other accounts' quotas.");
  if (!found) throw errors.invalidRequest(`No account "${account}".`);
  return found.id;
}

export async function readAccountQuotas(
  deps: OperatorDeps,
  principal: Principal,
  account: string,
): Promise<QuotaReport> {
  return quotaReport(deps, await accountFor(deps, principal, account));
}

/**
 * Sets an account's own limits (the operator only: the owners of a team may not raise theirs).
 * Nothing stored is touched: a limit below what is used refuses new documents, and only those.
 */
export async function setAccountQuotas(
  deps: OperatorDeps,
  principal: Principal,
  account: string,
  changes: Partial<Record<QuotaName, QuotaChange>>,
): Promise<QuotaReport> {
  if (!(await isOperator(deps, principal)))
    throw errors.permissionDenied(
      "Only the service's operator (SERVICE_BOOTSTRAP_API_KEY or the CLI) sets quotas.",
    );
  const accountId = await accountFor(deps, principal, account);
  await deps.quotas.setQuotaOverrides(accountId, changes);
  await audit(
    deps.audit,
    { ...principal, accountId },
    {
      action: 'account.quotas_changed',
      targetType: 'account',
      targetId: accountId,
      details: { changes },
    },
  );
  return quotaReport(deps, accountId);
}
