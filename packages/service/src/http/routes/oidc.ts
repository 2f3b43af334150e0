import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { beginSignIn, finishSignIn, localPath } from '../../access/sso.js';
import { SignInRefused } from '../../errors.js';
import type { AppDeps } from '../context.js';
import { SECURITY } from '../openapi.js';
import { ErrorBody } from '../schemas.js';
import { secure, setCookie } from './session.js';

/** A refused sign-in, in the audit log of the account the provider's users join. */
async function auditRefusal(deps: AppDeps, account: string, address: string, err: SignInRefused) {
  try {
    const { id } = await deps.accounts.ensureAccount(account);
    await deps.audit.append({
      accountId: id,
      actor: 'identity provider',
      actorUserId: null,
      actorKeyId: null,
      clientAddress: address,
      action: 'session.sign_in_failed',
      targetType: null,
      targetId: null,
      outcome: 'failure',
      details: { method: 'oidc', reason: err.reason, message: err.message },
    });
  } catch (e) {
    deps.log.warn({ err: e }, 'could not audit a refused sign-in');
  }
}

/** Binds a sign-in under way to the browser that began it (login CSRF): its state, until the callback. */
const STATE_COOKIE = 'docslurp_oidc_state';
const STATE_COOKIE_PATH = '/v1/session/oidc';

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** A response that is an HTML page for a person, not JSON for a script. */
const page = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

/** A page of its own for a sign-in that did not go through: what happened, and the way back. */
function refusalPage(reply: FastifyReply, err: SignInRefused) {
  return reply
    .code(err.status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Sign-in failed · DocSlurp</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1d2430}a{color:#1f5fbf}</style></head><body><h1>Sign-in failed</h1><p>${escapeHtml(err.message)}</p><p><a href="/">Back to sign-in</a></p></body></html>`,
    );
}

/**
 * Sign-in with the organisation's identity provider (OpenID Connect, decision 0017): where the
 * console's "Sign in with …" goes, and where the provider sends the person back. Both answer the
 * browser (redirects, or a page that says what went wrong), not a script.
 */
export function oidcRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['session'], security: SECURITY.none };
  // The routes are declared whether a provider is set up or not, so the API document is the same
  // everywhere; the provider itself is looked up when a request comes.
  const configured = () => {
    const provider = deps.identityProvider;
    const settings = deps.config.console.oidc;
    return provider && settings ? { provider, settings } : undefined;
  };
  const notConfigured = new SignInRefused(
    'not_configured',
    'Sign-in with an identity provider is not set up here.',
    404,
  );

  api.get(
    '/v1/session/options',
    {
      schema: {
        ...common,
        operationId: 'getSignInOptions',
        summary: 'How people sign in here: with a password, through the identity provider, or both',
        response: {
          200: z.object({
            passwordSignIn: z.boolean(),
            provider: z
              .object({
                name: z.string(),
                signInUrl: z.string().describe('Send the browser here to sign in'),
              })
              .nullable(),
          }),
          429: ErrorBody,
        },
      },
    },
    async () => ({
      passwordSignIn: deps.config.console.passwordSignIn,
      provider: deps.identityProvider
        ? { name: deps.identityProvider.displayName, signInUrl: '/v1/session/oidc' }
        : null,
    }),
  );

  api.get(
    '/v1/session/oidc',
    {
      schema: {
        ...common,
        operationId: 'beginOidcSignIn',
        summary: 'Start signing in with the identity provider (authorization code flow with PKCE)',
        querystring: z.object({
          returnTo: z.string().max(2000).optional().describe('A path of this site to return to afterwards'),
        }),
        response: {
          302: z.null().describe('To the identity provider'),
          404: page('A page: no identity provider is set up'),
          502: page('A page: the provider cannot be reached'),
        },
      },
    },
    async (request, reply) => {
      const setUp = configured();
      if (!setUp) return refusalPage(reply, notConfigured);
      try {
        const { url, state } = await beginSignIn(
          { provider: setUp.provider, users: deps.users },
          request.query.returnTo,
        );
        reply.setCookie(STATE_COOKIE, state, {
          httpOnly: true,
          sameSite: 'lax',
          secure: secure(deps, request),
          path: STATE_COOKIE_PATH,
          maxAge: 600,
        });
        return reply.header('cache-control', 'no-store').redirect(url.toString(), 302);
      } catch (err) {
        if (!(err instanceof SignInRefused)) throw err;
        deps.log.warn({ reason: err.reason, detail: err.message }, 'sign-in through the provider not begun');
        return refusalPage(reply, err);
      }
    },
  );

  api.get(
    '/v1/session/oidc/callback',
    {
      schema: {
        ...common,
        operationId: 'finishOidcSignIn',
        summary: 'Where the identity provider sends the browser back: signs in and returns to where it began',
        // What the provider sends back (RFC 6749 §4.1.2, RFC 9207's iss); anything else is kept for
        // the library to judge, not refused here.
        querystring: z
          .object({
            code: z.string().optional(),
            state: z.string().optional(),
            iss: z.string().optional(),
            error: z.string().optional(),
            error_description: z.string().optional(),
          })
          .loose(),
        response: {
          302: z.null().describe('Signed in: to the page the sign-in began from'),
          400: page('A page: the sign-in was not begun here, expired or was used already'),
          401: page('A page: the provider refused, or its answer did not verify'),
          403: page('A page: the person may not sign in here (e-mail domain, account)'),
          404: page('A page: no identity provider is set up'),
          502: page('A page: the provider cannot be reached'),
        },
      },
    },
    async (request: FastifyRequest, reply) => {
      const setUp = configured();
      if (!setUp) return refusalPage(reply, notConfigured);
      const { provider, settings } = setUp;
      const browserState = request.cookies[STATE_COOKIE];
      reply.clearCookie(STATE_COOKIE, { path: STATE_COOKIE_PATH });
      const callbackUrl = new URL(request.url, 'http://callback.invalid');
      try {
        const { token, session, returnTo } = await finishSignIn(
          { ...deps, provider },
          settings,
          { callbackUrl, browserState, address: request.ip },
          deps.config.console.sessionTtlHours,
        );
        setCookie(deps, request, reply, token, session.expiresAt);
        return reply.header('cache-control', 'no-store').redirect(localPath(returnTo), 302);
      } catch (err) {
        if (!(err instanceof SignInRefused)) throw err;
        deps.log.warn(
          { reason: err.reason, detail: err.message, address: request.ip },
          'sign-in through the provider refused',
        );
        await auditRefusal(deps, settings.account, request.ip, err);
        return refusalPage(reply, err);
      }
    },
  );
}
