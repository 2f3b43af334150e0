import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUser } from '../../src/access/people.js';
import { SLOWED_SIGN_IN_MS } from '../../src/http/routes/session.js';
import { capturingLog, WARN } from '../support/log.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Issue 44, findings 8 and 14: budgets for wrong sign-ins and wrong credentials, per client address.
 * The service trusts the loopback proxy (TRUSTED_PROXIES), so each request says in X-Forwarded-For
 * which address it comes from, as a reverse proxy would.
 */
const { log, lines } = capturingLog();
let svc: TestService;
let key: string;
const METRICS_SECRET = 'm'.repeat(40);

beforeAll(async () => {
  svc = await startTestService({
    worker: false,
    log,
    env: {
      TRUSTED_PROXIES: '127.0.0.1',
      LOGIN_ATTEMPTS_PER_MINUTE: '3',
      AUTH_FAILURES_PER_MINUTE: '5',
      METRICS_SECRET,
    },
  });
  const account = await svc.deps.accounts.ensureAccount('default');
  for (const email of ['ada@example.com', 'bob@example.com'])
    await insertUser(svc.deps, account.id, { email, password: 'the right password', role: 'editor' });
  key = await svc.key();
});
afterAll(() => svc?.close());

const signIn = (email: string, password: string, from: string) =>
  fetch(`${svc.url}/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ email, password }),
  });

const call = (path: string, from: string, authorization?: string, cookie?: string) =>
  fetch(`${svc.url}${path}`, {
    headers: {
      'x-forwarded-for': from,
      ...(authorization ? { authorization } : {}),
      ...(cookie ? { cookie } : {}),
    },
  });

describe('sign-in attempts (finding 8)', () => {
  it('refuses a guesser’s address for the e-mail, and lets the person in from another address', async () => {
    const guesses = [];
    for (let i = 0; i < 5; i++)
      guesses.push((await signIn('ada@example.com', `guess ${i}`, '198.51.100.1')).status);
    expect(guesses).toEqual([401, 401, 401, 429, 429]);
    // Before: ten failures for the e-mail from anywhere made the right password answer 429.
    expect((await signIn('ada@example.com', 'the right password', '198.51.100.2')).status).toBe(200);
    expect(lines.some((l) => l.level === WARN && l.msg === 'sign-in attempts refused for a while')).toBe(
      true,
    );
  });

  it('slows down an e-mail guessed from many addresses, without refusing its right password', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await signIn('bob@example.com', 'wrong', `198.51.100.${10 + i}`)).status);
    const started = Date.now();
    const slowed = await signIn('bob@example.com', 'wrong', '198.51.100.20');
    expect([...statuses, slowed.status]).toEqual([401, 401, 401, 401]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(SLOWED_SIGN_IN_MS - 50);
    const right = await signIn('bob@example.com', 'the right password', '198.51.100.21');
    expect(right.status).toBe(200);
    expect(lines.some((l) => l.msg === 'sign-in attempts for this e-mail slowed down')).toBe(true);
  });

  it('counts one IPv6 /64 as one address, whichever of its addresses each attempt comes from', async () => {
    // The address's budget is five times the e-mail's: 15 failures, each for an e-mail of its own.
    const statuses = [];
    for (let i = 0; i < 17; i++)
      statuses.push(
        (await signIn(`nobody${i}@example.com`, 'wrong', `2001:db8:7:7::${(i + 1).toString(16)}`)).status,
      );
    expect(statuses.slice(0, 15)).toEqual(Array(15).fill(401));
    expect(statuses.slice(15)).toEqual([429, 429]);
    // Another /64 has a budget of its own.
    expect((await signIn('nobody@example.com', 'wrong', '2001:db8:7:8::1')).status).toBe(401);
  });
});

describe('wrong credentials (finding 14)', () => {
  it('refuses an address that sent too many wrong keys before looking them up, and nobody else', async () => {
    const authenticator = svc.deps.authenticator;
    const original = authenticator.authenticate.bind(authenticator);
    let lookups = 0;
    authenticator.authenticate = (header) => {
      lookups++;
      return original(header);
    };
    try {
      const from = '198.51.100.50';
      const statuses = [];
      for (let i = 0; i < 6; i++)
        statuses.push((await call('/v1/workspaces', from, `Bearer dsk_${'x'.repeat(30)}${i}`)).status);
      // The sixth failure is over the budget of five: it is answered, and blocks the address.
      expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
      const refused = await call('/v1/workspaces', from, `Bearer dsk_${'y'.repeat(31)}`);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // From then on nothing is looked up, not even a good key's.
      expect((await call('/v1/workspaces', from, `Bearer ${key}`)).status).toBe(429);
      const before = lookups;
      for (let i = 0; i < 20; i++)
        expect((await call('/v1/workspaces', from, `Bearer dsk_${'z'.repeat(31)}`)).status).toBe(429);
      expect(lookups).toBe(before);
      // A good key from elsewhere is unaffected.
      expect((await call('/v1/workspaces', '198.51.100.51', `Bearer ${key}`)).status).toBe(200);
      expect(lines.some((l) => l.msg.startsWith('too many wrong credentials from this address'))).toBe(true);
    } finally {
      authenticator.authenticate = original;
    }
  });

  it('counts forged session cookies and wrong metrics secrets the same way', async () => {
    const cookies = [];
    for (let i = 0; i < 7; i++)
      cookies.push(
        (await call('/v1/workspaces', '198.51.100.60', undefined, `docslurp_session=forged${i}`)).status,
      );
    expect(cookies).toEqual([401, 401, 401, 401, 401, 401, 429]);
    const metrics = [];
    for (let i = 0; i < 7; i++)
      metrics.push((await call('/metrics', '198.51.100.61', `Bearer wrong-${i}`)).status);
    expect(metrics).toEqual([401, 401, 401, 401, 401, 401, 429]);
    expect((await call('/metrics', '198.51.100.62', `Bearer ${METRICS_SECRET}`)).status).toBe(200);
  });

  it('does not count a request that sends no credential at all (it costs no lookup)', async () => {
    const statuses = [];
    for (let i = 0; i < 8; i++) statuses.push((await call('/v1/workspaces', '198.51.100.70')).status);
    expect(statuses).toEqual(Array(8).fill(401));
  });
});
