import type { AccountOverview, OverviewStore } from '../domain/stores.js';
import type { Principal } from '../domain/types.js';
import { type QuotaDeps, type QuotaReport, quotaReport } from './quotas.js';

/**
 * The caller's account at a glance, as it may see it: documents by state, runs in progress, the
 * latest failures, and each quota's use. The quotas count the whole account, so a member who sees
 * part of it gets none: their counts would tell what it may not see.
 */
export async function getOverview(
  deps: QuotaDeps & { accounts: OverviewStore },
  principal: Principal,
): Promise<AccountOverview & { quotas: QuotaReport | null }> {
  const [overview, quotas] = await Promise.all([
    deps.accounts.accountOverview(principal),
    principal.member ? null : quotaReport(deps, principal.accountId),
  ]);
  return { ...overview, quotas };
}
