import { ROLES, type Role } from '../domain/types.js';
import { withoutTrailingSlashes } from '../strings.js';

/** Sign-in with the organisation's identity provider (OpenID Connect), when OIDC_ISSUER is set. */
export interface OidcConfig {
  issuer: URL;
  clientId: string;
  clientSecret: string | undefined;
  scopes: string;
  /** The ID token claim that lists the user's groups (names), replacing their DocSlurp groups. */
  groupsClaim: string;
  /** Roles that membership of a provider group gives (OIDC_ROLE_GROUPS, e.g. admin=docslurp-admins). */
  roleGroups: { role: Role; group: string }[];
  /** Only e-mail addresses of these domains may sign in (lower case); empty: any. */
  allowedDomains: string[];
  /** The account (name or id) its users join. */
  account: string;
  /** The redirect URL registered at the provider: OIDC_REDIRECT_URL, else SELFHOST_URL + the callback. */
  redirectUrl: string;
  /** Shown on the sign-in page: "Sign in with <displayName>". */
  displayName: string;
}

/** Issuers on these hosts may use plain http: a provider on the same machine, and tests. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

export const OIDC_CALLBACK_PATH = '/v1/session/oidc/callback';

interface OidcEnvironment {
  OIDC_ISSUER?: string | undefined;
  OIDC_CLIENT_ID?: string | undefined;
  OIDC_CLIENT_SECRET?: string | undefined;
  OIDC_SCOPES: string;
  OIDC_GROUPS_CLAIM: string;
  OIDC_ROLE_GROUPS?: string | undefined;
  OIDC_ALLOWED_DOMAINS?: string | undefined;
  OIDC_ACCOUNT?: string | undefined;
  OIDC_REDIRECT_URL?: string | undefined;
  OIDC_DISPLAY_NAME?: string | undefined;
}

/** OIDC_* read into their section; undefined without OIDC_ISSUER; a message for what is wrong. */
export function oidcConfig(
  e: OidcEnvironment,
  publicUrl: string | undefined,
  defaultAccount: string,
  fail: (message: string) => Error,
): OidcConfig | undefined {
  if (!e.OIDC_ISSUER) {
    const stray = Object.entries(e).find(
      ([k, v]) => k.startsWith('OIDC_') && k !== 'OIDC_SCOPES' && k !== 'OIDC_GROUPS_CLAIM' && v,
    );
    if (stray) throw fail(`${stray[0]} is set but OIDC_ISSUER is not: set the provider's issuer URL too`);
    return undefined;
  }
  let issuer: URL;
  try {
    issuer = new URL(e.OIDC_ISSUER);
  } catch {
    throw fail(`OIDC_ISSUER must be the provider's issuer URL, got "${e.OIDC_ISSUER}"`);
  }
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname)))
    throw fail(`OIDC_ISSUER must use https (plain http only on a loopback address), got "${e.OIDC_ISSUER}"`);
  if (!e.OIDC_CLIENT_ID) throw fail('OIDC_ISSUER is set: set OIDC_CLIENT_ID, the client id registered there');
  const redirect =
    e.OIDC_REDIRECT_URL ??
    (publicUrl ? `${withoutTrailingSlashes(publicUrl)}${OIDC_CALLBACK_PATH}` : undefined);
  if (!redirect)
    throw fail(
      `sign-in with OIDC needs the URL the provider sends people back to: set SELFHOST_URL (the callback is SELFHOST_URL${OIDC_CALLBACK_PATH}) or OIDC_REDIRECT_URL`,
    );
  const roleGroups = (e.OIDC_ROLE_GROUPS ?? '')
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const [role, group] = pair.split('=').map((x) => x.trim());
      if (!role || !group || !(ROLES as readonly string[]).includes(role))
        throw fail(`OIDC_ROLE_GROUPS takes role=group pairs (roles: ${ROLES.join(', ')}), got "${pair}"`);
      return { role: role as Role, group };
    });
  return {
    issuer,
    clientId: e.OIDC_CLIENT_ID,
    clientSecret: e.OIDC_CLIENT_SECRET || undefined,
    scopes: e.OIDC_SCOPES,
    groupsClaim: e.OIDC_GROUPS_CLAIM,
    roleGroups,
    allowedDomains: (e.OIDC_ALLOWED_DOMAINS ?? '')
      .split(',')
      .map((d) => d.trim().toLowerCase().replace(/^@/, ''))
      .filter(Boolean),
    account: e.OIDC_ACCOUNT || defaultAccount,
    redirectUrl: redirect,
    displayName: e.OIDC_DISPLAY_NAME || issuer.hostname,
  };
}
