import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { audit } from '../../access/audit.js';
import { sessionPrincipal } from '../../access/principals.js';
import type { RateLimiter } from '../../domain/ports.js';
import { SESSION_COOKIE, type SessionInfo, signIn, signOut } from '../../domain/sessions.js';
import { ROLES, type User } from '../../domain/types.js';
import { errors } from '../../errors.js';
import { withoutTrailingSlashes } from '../../strings.js';
import { addressBucket } from '../connections.js';
import { type AppDeps, authenticate } from '../context.js';
import { SECURITY } from '../openapi.js';
import { ErrorBody } from '../schemas.js';

const SessionView = z
  .object({
    user: z.object({
      id: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      accountId: z.string(),
      role: z.enum(ROLES).describe('What the user may do (docs/security.md, "Who may do what")'),
      groups: z.array(z.object({ id: z.string(), name: z.string() })),
    }),
    csrfToken: z.string().describe('Send it as the x-csrf-token header on every state-changing request'),
    expiresAt: z.string(),
  })
  .meta({ id: 'Session' });

async function view(deps: AppDeps, s: SessionInfo) {
  const groups = await deps.groups.resolveGroups(s.user.accountId, s.user.groupIds);
  return {
    user: {
      id: s.user.id,
      email: s.user.email,
      name: s.user.name,
      accountId: s.user.accountId,
      role: s.user.role,
      groups: groups.map((g) => ({ id: g.id, name: g.name })),
    },
    csrfToken: s.csrfToken,
    expiresAt: s.expiresAt.toISOString(),
  };
}

/** A sign-in, in the user's account's audit log. */
export function auditSignIn(deps: AppDeps, user: User, address: string, method: 'password' | 'oidc') {
  return audit(
    deps.audit,
    { ...sessionPrincipal(user), address },
    {
      action: 'session.signed_in',
      targetType: 'user',
      targetId: user.id,
      details: { method },
    },
  );
}

/**
 * A failed sign-in, in the audit log of the account the e-mail belongs to (an unknown e-mail has no
 * account to log it in: the service's log has it).
 */
export async function auditFailedSignIn(deps: AppDeps, email: string, address: string, method: string) {
  const found = await deps.users.findUserByEmail(email.trim()).catch(() => undefined);
  deps.log.warn(
    { email: email.trim().toLowerCase(), address, method, known: Boolean(found) },
    'sign-in failed',
  );
  if (!found) return;
  await deps.audit
    .append({
      accountId: found.user.accountId,
      actor: email.trim(),
      actorUserId: null,
      actorKeyId: null,
      clientAddress: address,
      action: 'session.sign_in_failed',
      targetType: 'user',
      targetId: found.user.id,
      outcome: 'failure',
      details: { method },
    })
    .catch((err: unknown) => deps.log.warn({ err }, 'could not audit a failed sign-in'));
}

/** Where the browser reached the console: SELFHOST_URL, else the request's own origin. */
function origin(deps: AppDeps, request: FastifyRequest): string {
  const configured = deps.config.server.publicUrl;
  return configured ? withoutTrailingSlashes(configured) : `${request.protocol}://${request.host}`;
}

/** `Secure` whenever the browser reached us over https (directly or behind a TLS proxy). */
export function secure(deps: AppDeps, request: FastifyRequest): boolean {
  return request.protocol === 'https' || (deps.config.server.publicUrl?.startsWith('https:') ?? false);
}

export function setCookie(
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

/** How long each attempt for an e-mail waits once that e-mail has had its failures from everywhere. */
export const SLOWED_SIGN_IN_MS = 2000;

/**
 * Counts a sign-in attempt before the password is checked (so a blocked guesser learns nothing);
 * the caller gives the counts back when it was right, so only failures use up a budget (finding 8).
 * Refused (429) are the e-mail from this address, and this address for any e-mail (five times the
 * budget, for offices behind one NAT). An e-mail's failures from all addresses only slow it down:
 * the right password from another address still signs in, so nobody can lock a person out.
 */
async function countAttempt(deps: AppDeps, email: string, address: string) {
  const { pair, address: perAddress, email: perEmail } = deps.loginLimits;
  const refusing: [RateLimiter, string][] = [
    [pair, `login:${email}|${address}`],
    [perAddress, `login:${address}`],
  ];
  for (const [limiter, key] of refusing) {
    const r = await limiter.consume(key);
    if (!r.allowed) {
      warnOnce(deps, `refused:${key}`, { email, address }, 'sign-in attempts refused for a while');
      throw errors.rateLimited(r.retryAfterSeconds);
    }
  }
  const key = `login:${email}`;
  if (!(await perEmail.consume(key)).allowed) {
    warnOnce(deps, `slowed:${email}`, { email, address }, 'sign-in attempts for this e-mail slowed down');
    await delay(SLOWED_SIGN_IN_MS);
  }
  return [...refusing, [perEmail, key]] as [RateLimiter, string][];
}

/** One log line per key and minute: a flood of attempts is not a flood of lines. */
const warned = new Map<string, number>();
function warnOnce(deps: AppDeps, key: string, fields: Record<string, string>, message: string) {
  const now = Date.now();
  if ((warned.get(key) ?? 0) > now - 60_000) return;
  if (warned.size > 10_000) warned.clear();
  warned.set(key, now);
  deps.log.warn(fields, message);
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
      if (!deps.config.console.passwordSignIn)
        throw errors.passwordSignInDisabled(deps.identityProvider?.displayName);
      const email = request.body.email.trim().toLowerCase();
      const limits = await countAttempt(deps, email, addressBucket(request.ip));
      const { token, session } = await signIn(
        deps.users,
        request.body,
        deps.config.console.sessionTtlHours,
      ).catch(async (err: unknown) => {
        await auditFailedSignIn(deps, request.body.email, request.ip, 'password');
        throw err;
      });
      for (const [limiter, key] of limits) await limiter.reward(key);
      await auditSignIn(deps, session.user, request.ip, 'password');
      setCookie(deps, request, reply, token, session.expiresAt);
      return view(deps, session);
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
      return view(deps, request.session!);
    },
  );

  api.delete(
    '/v1/session',
    {
      schema: {
        ...common,
        operationId: 'signOut',
        security: SECURITY.sessionWrite,
        summary:
          "Sign out: ends the session on the server (and says where to end the identity provider's, when it signed the user in)",
        response: {
          200: z
            .object({
              endSessionUrl: z
                .string()
                .describe("Send the browser here to end the identity provider's session too"),
            })
            .describe('Signed out; the identity provider has a session of its own to end'),
          204: z.null().describe('Signed out'),
          401: ErrorBody,
          403: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(deps, request);
      const idToken = request.session?.idToken;
      await signOut(deps.users, request.cookies[SESSION_COOKIE]!);
      await audit(deps.audit, principal, {
        action: 'session.signed_out',
        targetType: 'user',
        targetId: principal.userId,
      });
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      const endSessionUrl =
        idToken && deps.identityProvider
          ? await deps.identityProvider.endSessionUrl(idToken, `${origin(deps, request)}/`)
          : undefined;
      if (endSessionUrl) return reply.code(200).send({ endSessionUrl });
      return reply.code(204).send(null);
    },
  );
}
