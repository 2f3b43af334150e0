import type { RequestOptions } from '../transport.js';
import type { Quotas as QuotaUse, Sent } from '../types.js';
import { type Api, id } from './api.js';

/**
 * An account's own limits to set: a number, `'unlimited'`, or null to follow the server's default
 * (ACCOUNT_MAX_*); a quota left out keeps its limit. `storedBytes` is in bytes.
 */
export type QuotaChanges = Sent<'setAccountQuotas'>;

/** The account's quotas: each one's limit (null: unlimited) and what is used of it. */
export class Quotas {
  constructor(private readonly api: Api) {}

  /** The caller's account. */
  get(options?: RequestOptions): Promise<QuotaUse> {
    return this.api.get('/v1/quotas', options);
  }

  /** An account by id or name: the caller's own (scope `admin`), or any one for the operator. */
  getAccount(account: string, options?: RequestOptions): Promise<QuotaUse> {
    return this.api.get(`/v1/accounts/${id(account, 'account')}/quotas`, options);
  }

  /**
   * Sets an account's own limits: only the operator's key (SERVICE_BOOTSTRAP_API_KEY) may; anyone else
   * gets a PermissionDeniedError. Retried: the same change twice is one.
   */
  set(account: string, changes: QuotaChanges, options?: RequestOptions): Promise<QuotaUse> {
    return this.api.patch(`/v1/accounts/${id(account, 'account')}/quotas`, changes, options);
  }
}
