import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RateLimiter } from '../../domain/ports.js';
import { SESSION_COOKIE, type SessionInfo, signIn, signOut } from '../../domain/sessions.js';
import { errors } from '../../errors.js';
import { type AppDeps, authenticate } from '../context.js';
import { SECURITY } from '../openapi.js';
import { ErrorBody } from '../schemas.js';

const SessionView = z
  .object({
    user: z.object({ id: z.string(), email: z.string(), accountId: z.string() }),
    csrfToken: z.string().describe('Send it as the x-csrf-token header on every state-changing request'),
    expiresAt: z.string(),
  })
  .meta({ id: 'Session' });

function view(s: SessionInfo) {
  return {
    user: { id: s.user.id, email: s.user.email, accountId: s.user.accountId },
    csrfToken: s.csrfToken,
    expiresAt: s.expiresAt.toISOString(),
  };
}

/** `Secure` whenever the browser reached us over https (directly or behind a TLS proxy). */
function secure(deps: AppDeps, request: FastifyRequest): boolean {
  return request.protocol === 'https' || (deps.config.server.publicUrl?.startsWith('https:') ?? false);
}

function setCookie(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  expires: Date,
) {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: secure(deps, request),
    path: '/',
    expires,
  });
}

export function sessionRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['session'] };

  api.post(
    '/v1/session',
    {
      schema: {
        ...common,
        operationId: 'signIn',
        security: SECURITY.none,
        summary: 'Sign in to the console: sets an HttpOnly session cookie',
        body: z.object({ email: z.string().min(3).max(320), password: z.string().min(1).max(1024) }),
        response: { 200: SessionView, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
      },
    },
    async (request, reply) => {
      // Attempts are counted before the password is checked (so a blocked guesser learns nothing)
      // and given back when it was right: only failures use up the budget. Per address the budget is
      // five times larger, for offices behind one NAT.
      const limits: [RateLimiter, string][] = [
        [deps.loginLimits.email, `login:${request.body.email.trim().toLowerCase()}`],
        [deps.loginLimits.address, `login:${request.ip}`],
      ];
      for (const [limiter, key] of limits) {
        const r = await limiter.consume(key);
        if (!r.allowed) {
          reply.header('retry-after', String(r.retryAfterSeconds));
          throw errors.rateLimited(r.retryAfterSeconds);
        }
      }
      const { token, session } = await signIn(deps.users, request.body, deps.config.console.sessionTtlHours);
      for (const [limiter, key] of limits) await limiter.reward(key);
      setCookie(deps, request, reply, token, session.expiresAt);
      return view(session);
    },
  );

  api.get(
    '/v1/session',
    {
      schema: {
        ...common,
        operationId: 'getSession',
        security: SECURITY.sessionRead,
        summary: 'The signed-in user and the CSRF token',
        response: { 200: SessionView, 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (request) => {
      if (request.headers.authorization !== undefined)
        throw errors.invalidRequest('API keys have no session.');
      await authenticate(deps, request);
      return view(request.session!);
    },
  );

  api.delete(
    '/v1/session',
    {
      schema: {
        ...common,
        operationId: 'signOut',
        security: SECURITY.sessionWrite,
        summary: 'Sign out: ends the session on the server',
        response: { 204: z.null().describe('Signed out'), 401: ErrorBody, 403: ErrorBody },
      },
    },
    async (request, reply) => {
      await authenticate(deps, request);
      await signOut(deps.users, request.cookies[SESSION_COOKIE]!);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.code(204).send(null);
    },
  );
}
