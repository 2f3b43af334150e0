import type { QuotaLimits, QuotaName } from '../domain/types.js';

/** What an account holds (documents, stored bytes) and what it used today (UTC) of the daily quotas. */
export type AccountUse = Record<QuotaName, number>;

/** A change of an account's limit: a number, null for unlimited, or `default` to follow ACCOUNT_MAX_*. */
export type QuotaChange = number | null | 'default';

/** Quotas of accounts (adapters/postgres/quotas.ts); uploads check theirs in their own transaction. */
export interface QuotaStore {
  /** The limits an operator set for the account; a quota left out follows the server's default. */
  quotaOverrides(accountId: string): Promise<Partial<QuotaLimits>>;
  /** Applies the changes in one statement each; answers the overrides after them. */
  setQuotaOverrides(
    accountId: string,
    changes: Partial<Record<QuotaName, QuotaChange>>,
  ): Promise<Partial<QuotaLimits>>;
  accountUse(accountId: string): Promise<AccountUse>;
  /**
   * Counts one question of today unless the account's limit is reached, in one statement: its own
   * limit when an operator set one, else `fallback` (null: unlimited). Racing requests never pass it.
   */
  countQuestion(
    accountId: string,
    fallback: number | null,
  ): Promise<{ counted: true } | { counted: false; limit: number; used: number }>;
  /** Forgets the daily counts of days more than `keepDays` ago; answers how many rows went. */
  purgeDailyUse(keepDays: number): Promise<number>;
}
