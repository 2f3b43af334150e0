import { generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID Provider for the tests: `oidc-provider` (certified), on loopback. People "sign in"
 * without a form: the interaction step accepts whoever the test named with `signInAs`. In front of it
 * a transparent proxy is the issuer, so that a test can tamper with the ID token the token endpoint
 * answers (re-signed with the provider's own key, or another), as a provider with a bug or an
 * attacker in the middle would, and can restart the provider with new keys (rotation).
 */

export interface Person {
  email: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Whose sign-in the next interaction completes. */
  signInAs(subject: string, person: Person): void;
  /** Changes the next token answers' ID token: its claims (re-signed with `key`, default the provider's). */
  tamper(
    change: ((claims: Record<string, unknown>) => Record<string, unknown>) | undefined,
    key?: 'own' | 'foreign',
  ): void;
  /** A new signing key (kid changes), as a provider rotating its keys: restarts the provider behind the proxy. */
  rotateKeys(): Promise<void>;
  /** The provider's answers fail (as a provider that is down); `true` again restores them. */
  setUp(up: boolean): void;
  stop(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

function newKey(): SigningKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `k${randomBytes(6).toString('hex')}`;
  return { kid, privateKey, jwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}

const b64 = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** A JWT of `claims`, signed RS256 with `key` under its kid. */
function signJwt(claims: Record<string, unknown>, key: SigningKey): string {
  const head = b64(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: key.kid }));
  const body = b64(JSON.stringify(claims));
  return `${head}.${body}.${b64(sign('sha256', Buffer.from(`${head}.${body}`), key.privateKey))}`;
}

async function listen(server: Server, port = 0, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return (server.address() as AddressInfo).port;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

export async function startTestProvider(options: {
  redirectUri: string;
  postLogoutRedirectUri: string;
  /** Where the issuer listens and what it is called (default loopback), e.g. an address containers reach. */
  host?: string;
  /** Serve the issuer over https with this certificate (the service then needs to trust it). */
  tls?: { key: string; cert: string };
}): Promise<TestProvider> {
  const clientId = 'docslurp-test';
  const clientSecret = randomBytes(16).toString('hex');
  const people = new Map<string, Person>();
  let next: string | undefined;
  let key = newKey();
  let tamper:
    | { change: (c: Record<string, unknown>) => Record<string, unknown>; key: 'own' | 'foreign' }
    | undefined;
  let up = true;

  const host = options.host ?? '127.0.0.1';
  const scheme = options.tls ? 'https' : 'http';
  const proxy: Server = options.tls ? createTlsServer(options.tls) : createServer();
  const issuerPort = await listen(proxy, 0, host);
  const issuer = `${scheme}://${host}:${issuerPort}`;

  let backend: Server | undefined;
  let backendPort = 0;
  const startBackend = async () => {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [options.redirectUri],
          post_logout_redirect_uris: [options.postLogoutRedirectUri],
          response_types: ['code'],
          grant_types: ['authorization_code'],
        },
      ],
      jwks: { keys: [key.jwk as never] },
      cookies: { keys: ['docslurp-test-cookie-key'] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
      // The ID token carries the scopes' claims (the service reads e-mail and groups from it).
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: async (_ctx, sub) => {
        const person = people.get(sub);
        return person ? { accountId: sub, claims: async () => ({ sub, ...person }) } : undefined;
      },
    });
    // Behind the proxy, which is the issuer: the endpoints it advertises are the proxy's (X-Forwarded-*).
    provider.proxy = true;
    const handle = provider.callback();
    backend = createServer(async (req: IncomingMessage, res: ServerResponse) => {
      try {
        if (req.url?.startsWith('/interaction/')) {
          // No form: the interaction signs in whoever the test named, and grants what was asked.
          const details = await provider.interactionDetails(req, res);
          const accountId = next;
          if (!accountId || !people.has(accountId)) throw new Error('signInAs was not called');
          const grant = new provider.Grant({ accountId, clientId });
          const scope = String(details.params.scope ?? 'openid');
          grant.addOIDCScope(scope);
          await provider.interactionFinished(
            req,
            res,
            { login: { accountId }, consent: { grantId: await grant.save() } },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        handle(req, res);
      } catch (err) {
        res.statusCode = 500;
        res.end(String(err));
      }
    });
    backendPort = await listen(backend, backendPort);
  };
  await startBackend();

  proxy.on('request', async (req, res) => {
    try {
      if (!up) {
        res.statusCode = 503;
        res.end('down');
        return;
      }
      const body = await bodyOf(req);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers))
        if (v !== undefined && k !== 'content-length') headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      headers.set('x-forwarded-host', `${host}:${issuerPort}`);
      headers.set('x-forwarded-proto', scheme);
      const answer = await fetch(`http://127.0.0.1:${backendPort}${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        redirect: 'manual',
        // A Uint8Array: the DOM's fetch typings (the console's tests use this harness too) take no Buffer.
        ...(body.length && req.method !== 'GET' && req.method !== 'HEAD'
          ? { body: new Uint8Array(body) }
          : {}),
      });
      let out = Buffer.from(await answer.arrayBuffer());
      if (tamper && req.url?.startsWith('/token') && answer.ok) {
        const tokens = JSON.parse(out.toString()) as { id_token: string };
        const claims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1]!, 'base64url').toString());
        tokens.id_token = signJwt(tamper.change(claims), tamper.key === 'own' ? key : newKey());
        out = Buffer.from(JSON.stringify(tokens));
      }
      res.statusCode = answer.status;
      answer.headers.forEach((value, name) => {
        if (
          name !== 'set-cookie' &&
          name !== 'content-length' &&
          name !== 'content-encoding' &&
          name !== 'transfer-encoding'
        )
          res.setHeader(name, value);
      });
      const cookies = answer.headers.getSetCookie();
      if (cookies.length) res.setHeader('set-cookie', cookies);
      res.setHeader('content-length', out.length);
      res.end(out);
    } catch (err) {
      res.statusCode = 502;
      res.end(String(err));
    }
  });

  const close = (server: Server | undefined) =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
    });

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs(subject, person) {
      people.set(subject, person);
      next = subject;
    },
    tamper(change, which = 'own') {
      tamper = change ? { change, key: which } : undefined;
    },
    async rotateKeys() {
      await close(backend);
      key = newKey();
      await startBackend();
    },
    setUp(value) {
      up = value;
    },
    async stop() {
      await close(proxy);
      await close(backend);
    },
  };
}
