import * as oidc from 'openid-client';
import { isLoopbackHost, type OidcConfig } from '../../config/oidc.js';
import type { IdentityProvider, PendingSignIn, ProvidedIdentity } from '../../domain/ports.js';
import { SignInRefused } from '../../errors.js';

/** How long the provider's metadata is believed before it is read again (keys rotate under it too). */
const METADATA_TTL_MS = 60 * 60_000;
/** A provider that does not answer its metadata within this is down: the sign-in page says so. */
const DISCOVERY_TIMEOUT_SECONDS = 10;

/**
 * The organisation's identity provider through openid-client, a certified OpenID Connect relying
 * party: authorization code flow with PKCE, `state` and `nonce`; the ID token's issuer, audience,
 * expiry, nonce and signature (against the provider's published keys) checked by it, its key set
 * fetched again when a token names a key it does not know (the provider rotated its keys). Discovery happens on first use and again after a
 * failure, so a provider that is down when the server starts costs sign-in through it only.
 */
export class OpenIdProvider implements IdentityProvider {
  readonly displayName: string;
  private configuration: { config: Promise<oidc.Configuration>; until: number } | undefined;

  constructor(private readonly settings: OidcConfig) {
    this.displayName = settings.displayName;
  }

  private config(): Promise<oidc.Configuration> {
    const now = Date.now();
    if (this.configuration && this.configuration.until > now) return this.configuration.config;
    const { issuer, clientId, clientSecret } = this.settings;
    const config = oidc.discovery(
      issuer,
      clientId,
      clientSecret,
      clientSecret ? oidc.ClientSecretBasic(clientSecret) : oidc.None(),
      {
        timeout: DISCOVERY_TIMEOUT_SECONDS,
        // The ID token's signature is checked against the provider's published keys too, not only
        // trusted for arriving over TLS: a key it does not publish is refused. Plain http only for a
        // provider on this machine (config/oidc.ts refuses it elsewhere).
        execute: [
          oidc.enableNonRepudiationChecks,
          ...(issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname)
            ? [oidc.allowInsecureRequests]
            : []),
        ],
      },
    );
    this.configuration = { config, until: now + METADATA_TTL_MS };
    config.catch(() => {
      if (this.configuration?.config === config) this.configuration = undefined;
    });
    return config;
  }

  private async available(): Promise<oidc.Configuration> {
    try {
      return await this.config();
    } catch (err) {
      throw new SignInRefused(
        'provider_unavailable',
        `${this.displayName} cannot be reached to sign in (${describe(err)}). Try again later, or sign in with a password if you have one.`,
        502,
      );
    }
  }

  async check(): Promise<void> {
    await this.config();
  }

  async begin(): Promise<{ url: URL; pending: PendingSignIn }> {
    const config = await this.available();
    const pending: PendingSignIn = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUrl,
      scope: this.settings.scopes,
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, pending };
  }

  async verify(callbackUrl: URL, pending: PendingSignIn): Promise<ProvidedIdentity> {
    const discovered = await this.available();
    // The library reads the response off the URL it was sent to: the registered redirect URL, with the
    // query the browser brought (a proxy in front may have changed the host the server sees).
    const current = new URL(this.settings.redirectUrl);
    current.search = callbackUrl.search;
    const checks = {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    };
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    const exchange = this.configurationFor(discovered.serverMetadata());
    try {
      tokens = await oidc.authorizationCodeGrant(exchange.config, current, checks);
    } catch (err) {
      // A token signed with a key not in the key set read before: the provider rotated its keys. Its
      // keys are read again, once, and the same answer checked again (the code is not sent twice).
      if (!(isKeySelection(err) && exchange.answer())) throw this.refusal(err);
      const again = this.configurationFor(structuredClone(discovered.serverMetadata()), exchange.answer());
      try {
        tokens = await oidc.authorizationCodeGrant(again.config, current, checks);
      } catch (second) {
        throw this.refusal(second);
      }
    }
    const claims = tokens.claims();
    if (!claims) throw new SignInRefused('not_verified', `${this.displayName} sent no ID token.`, 401);
    const groupsClaim = claims[this.settings.groupsClaim];
    return {
      issuer: claims.iss,
      subject: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : undefined,
      emailVerified: typeof claims.email_verified === 'boolean' ? claims.email_verified : undefined,
      name: typeof claims.name === 'string' ? claims.name : undefined,
      groups: Array.isArray(groupsClaim) ? groupsClaim.filter((g): g is string => typeof g === 'string') : [],
      idToken: tokens.id_token!,
    };
  }

  /**
   * A configuration of one exchange: the discovered metadata, this client, the same checks, and a
   * fetch that keeps the token endpoint's answer (`answer()`), or gives back `replay` instead of
   * asking again. A copy of the metadata starts with no key set of its own: it reads the keys again.
   */
  private configurationFor(
    metadata: oidc.ServerMetadata,
    replay?: { status: number; headers: [string, string][]; body: string },
  ): { config: oidc.Configuration; answer: () => typeof replay } {
    const { clientId, clientSecret, issuer } = this.settings;
    const config = new oidc.Configuration(
      metadata,
      clientId,
      clientSecret,
      clientSecret ? oidc.ClientSecretBasic(clientSecret) : oidc.None(),
    );
    oidc.enableNonRepudiationChecks(config);
    if (issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname)) oidc.allowInsecureRequests(config);
    let kept: typeof replay;
    const tokenEndpoint = metadata.token_endpoint;
    config[oidc.customFetch] = async (url, options) => {
      if (url !== tokenEndpoint) return fetch(url, options as RequestInit);
      if (replay) return new Response(replay.body, { status: replay.status, headers: replay.headers });
      const answer = await fetch(url, options as RequestInit);
      const body = await answer.text();
      kept = { status: answer.status, headers: [...answer.headers], body };
      return new Response(body, { status: answer.status, headers: answer.headers });
    };
    return { config, answer: () => kept };
  }

  private refusal(err: unknown): SignInRefused {
    if (err instanceof oidc.AuthorizationResponseError)
      return new SignInRefused(
        'provider_error',
        `${this.displayName} did not sign you in: ${err.error}${err.error_description ? ` (${err.error_description})` : ''}.`,
        401,
      );
    if (err instanceof oidc.ResponseBodyError)
      return new SignInRefused(
        'provider_error',
        `${this.displayName} refused the sign-in: ${err.error}${err.error_description ? ` (${err.error_description})` : ''}. Sign in again.`,
        401,
      );
    return new SignInRefused(
      'not_verified',
      `The answer from ${this.displayName} could not be verified (${describe(err)}), so nobody was signed in.`,
      401,
    );
  }

  async endSessionUrl(idToken: string, postLogoutRedirect: string): Promise<string | undefined> {
    const config = await this.config().catch(() => undefined);
    if (!config?.serverMetadata().end_session_endpoint) return undefined;
    return oidc
      .buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: postLogoutRedirect })
      .toString();
  }
}

/** The library found no key of the provider's set for the token's signature. */
const isKeySelection = (err: unknown) => (err as { code?: string }).code === 'OAUTH_KEY_SELECTION_FAILED';

/** An error of the library in one line, for the page and the log (never a stack). */
function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { message?: string } };
  const message = (e.message ?? String(err)).replace(/\s+/g, ' ').slice(0, 300);
  return e.cause?.message ? `${message}: ${e.cause.message.slice(0, 200)}` : message;
}
