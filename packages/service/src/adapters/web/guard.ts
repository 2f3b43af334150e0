import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { type AllowList, isForbiddenAddress } from './address-policy.js';

export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** A host that must not be reached on a user's behalf; the message names the host, never its address. */
export class ForbiddenHost extends Error {}

/**
 * The request-forgery guard shared by URL ingestion and webhook deliveries: a host name is resolved
 * once and refused when any address it resolves to is forbidden (address-policy.ts) and not allowed
 * by the allow-list (URL_FETCH_ALLOW_HOSTS). The caller then connects to exactly the address that
 * was checked (`pinnedLookup`), so a DNS answer that changes between check and connection
 * (rebinding) changes nothing.
 */
export class AddressGuard {
  constructor(
    private readonly allowList: AllowList,
    /** DNS resolution; injectable so tests can play a rebinding resolver. */
    private readonly resolver?: Resolve,
  ) {}

  private resolve(hostname: string): Promise<{ address: string; family: number }[]> {
    if (this.resolver) return this.resolver(hostname);
    return dns.promises.lookup(hostname, { all: true, verbatim: true });
  }

  /** The address to connect to for `hostname`; ForbiddenHost when it must not be reached. */
  async vet(hostname: string): Promise<{ address: string; family: number }> {
    const host = hostname.replace(/^\[|\]$/g, '');
    const hostAllowed = this.allowList.allowsHost(host);
    const addresses = net.isIP(host)
      ? [{ address: host, family: net.isIPv4(host) ? 4 : 6 }]
      : await this.resolve(host);
    if (addresses.length === 0) throw new ForbiddenHost(`${host} does not resolve`);
    for (const a of addresses) {
      if (!hostAllowed && !this.allowList.allowsAddress(a.address) && isForbiddenAddress(a.address)) {
        // Which address it was stays here: a caller must not learn the layout of the internal network.
        throw new ForbiddenHost(`${host} resolves to a private, local or reserved address`);
      }
    }
    return addresses[0]!;
  }
}

/** A lookup for http(s).request that connects to `address` whatever DNS would say now. */
export function pinnedLookup(address: { address: string; family: number }): LookupFunction {
  return (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all)
      (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [address]);
    else cb(null, address.address, address.family);
  };
}

/**
 * A socket or TLS error in words, from its code only: the error's own message names the address it
 * tried ("connect ECONNREFUSED 10.0.0.5:80"), which would tell a caller what lies behind a name.
 */
export function networkFailure(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'the connection was reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host cannot be reached';
  }
  if (typeof code === 'string' && /CERT|TLS|SSL|SIGNATURE|SELF_SIGNED/.test(code))
    return `its TLS certificate was not accepted (${code})`;
  if (typeof code === 'string' && code.startsWith('HPE_')) return 'it did not answer with valid HTTP';
  return `a network error (${typeof code === 'string' ? code : 'unknown'})`;
}

/**
 * A lookup for clients that resolve names themselves (the S3 client of a bucket source): each
 * connection goes to an address the guard vetted, so a user's endpoint cannot lead to internal hosts.
 */
export function guardedLookup(guard: AddressGuard): LookupFunction {
  return (host, opts, cb) => {
    guard.vet(host).then(
      (address) => pinnedLookup(address)(host, opts, cb),
      (err: unknown) => (cb as (e: Error) => void)(err as Error),
    );
  };
}
