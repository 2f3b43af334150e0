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

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A page of its own for a sign-in that did not go through: what happened, and the way back. */
function refusalPage(reply: FastifyReply, err: SignInRefused) {
  return reply
    .code(err.status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Sign-in failed · DocSlurp</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1d2430}a{color:#1f5fbf}</style></head><body><h1>Sign-in failed</h1><p>${escape(err.message)}</p><p><a href="/">Back to sign-in</a></p></body></html>`,
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
  const provider = deps.identityProvider;
  const settings = deps.config.console.oidc;

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
              .object({ name: z.string(), signInUrl: z.string().describe('Send the browser here to sign in') })
              .nullable(),
          }),
          429: ErrorBody,
        },
      },
    },
    async () => ({
      passwordSignIn: deps.config.console.passwordSignIn,
      provider: provider ? { name: provider.displayName, signInUrl: '/v1/session/oidc' } : null,
    }),
  );

  if (!provider || !settings) return;

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
          502: z.string().describe('A page: the provider cannot be reached'),
        },
      },
    },
    async (request, reply) => {
      try {
        const { url, state } = await beginSignIn({ provider, users: deps.users }, request.query.returnTo);
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
        querystring: z.record(z.string(), z.string()),
        response: {
          302: z.null().describe('Signed in: to the page the sign-in began from'),
          400: z.string().describe('A page: the sign-in was not begun here, expired or was used already'),
          401: z.string().describe('A page: the provider refused, or its answer did not verify'),
          403: z.string().describe('A page: the person may not sign in here (e-mail domain, account)'),
          502: z.string().describe('A page: the provider cannot be reached'),
        },
      },
    },
    async (request: FastifyRequest, reply) => {
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
        deps.log.warn({ reason: err.reason, detail: err.message, address: request.ip }, 'sign-in through the provider refused');
        await auditRefusal(deps, settings.account, request.ip, err);
        return refusalPage(reply, err);
      }
    },
  );
}
