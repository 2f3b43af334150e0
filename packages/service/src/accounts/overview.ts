import type { AccountOverview, OverviewStore } from '../domain/stores.js';
import type { Principal } from '../domain/types.js';

/** The caller's account at a glance, as it may see it: documents by state, runs in progress, the latest failures. */
export function getOverview(store: OverviewStore, principal: Principal): Promise<AccountOverview> {
  return store.accountOverview(principal);
}
