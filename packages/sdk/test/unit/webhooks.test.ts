import { createHmac, randomBytes, webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DocSlurpError, verifyWebhook, WebhookVerificationError } from '../../src/index.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const now = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const ts = String(now / 1000);
const body = JSON.stringify({
  id: 'evt_1',
  type: 'document.ready',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { id: 'doc_1', status: 'ready' },
});

/** A signature as the service makes it: HMAC-SHA256 of `<id>.<timestamp>.<body>` under the secret's bytes. */
function sign(id: string, timestamp: string, payload: string | Buffer, key = secret): string {
  const mac = createHmac('sha256', Buffer.from(key.replace(/^whsec_/, ''), 'base64'));
  mac.update(`${id}.${timestamp}.`).update(payload);
  return `v1,${mac.digest('base64')}`;
}

const headers = (over: Record<string, string | undefined> = {}) => ({
  'webhook-id': 'evt_1',
  'webhook-timestamp': ts,
  'webhook-signature': sign('evt_1', ts, body),
  ...over,
});

async function refusal(call: Promise<unknown>): Promise<WebhookVerificationError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookVerificationError);
  expect(err).toBeInstanceOf(DocSlurpError);
  return err as WebhookVerificationError;
}

describe('verifyWebhook', () => {
  it("accepts the Standard Webhooks specification's own example", async () => {
    // The signing example of the specification's reference libraries.
    const event = await verifyWebhook(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      {
        'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
        'webhook-timestamp': '1614265330',
        'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
      },
      '{"test": 2432232314}',
      { now: 1614265330 * 1000 },
    );
    expect(event).toEqual({ test: 2432232314 });
  });

  it('returns the event of a valid delivery, from a string, bytes or Fetch Headers', async () => {
    expect(await verifyWebhook(secret, headers(), body, { now })).toEqual(JSON.parse(body));
    expect(await verifyWebhook(secret, headers(), new TextEncoder().encode(body), { now })).toMatchObject({
      id: 'evt_1',
    });
    const fetchHeaders = new Headers(headers() as Record<string, string>);
    const buffer = new TextEncoder().encode(body).buffer;
    expect(await verifyWebhook(secret, fetchHeaders, buffer, { now: new Date(now) })).toMatchObject({
      type: 'document.ready',
    });
    // Node's IncomingMessage.headers: lower-case keys; other spellings are found too.
    const mixedCase = {
      'Webhook-Id': 'evt_1',
      'WEBHOOK-TIMESTAMP': ts,
      'webhook-signature': sign('evt_1', ts, body),
    };
    expect(await verifyWebhook(secret, mixedCase, body, { now })).toMatchObject({ id: 'evt_1' });
  });

  it('accepts a header with several signatures when one of them matches', async () => {
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    const many = [
      sign('evt_1', ts, body, other),
      `v1a,${randomBytes(64).toString('base64')}`,
      'v1,not base64!',
      sign('evt_1', ts, body),
      'v2,abc',
    ].join(' ');
    expect(await verifyWebhook(secret, headers({ 'webhook-signature': many }), body, { now })).toMatchObject({
      id: 'evt_1',
    });
    // The same list without the matching one.
    const none = many.replace(sign('evt_1', ts, body), '');
    const err = await refusal(verifyWebhook(secret, headers({ 'webhook-signature': none }), body, { now }));
    expect(err.code).toBe('webhook_invalid_signature');
  });

  it('refuses a changed body, id or timestamp, another secret, and a signature cut short', async () => {
    const cases: [Record<string, string | undefined>, string][] = [
      [{}, body.replace('doc_1', 'doc_2')],
      [{ 'webhook-id': 'evt_2' }, body],
      [{ 'webhook-timestamp': String(now / 1000 + 1) }, body],
      [{ 'webhook-signature': sign('evt_1', ts, body, `whsec_${randomBytes(32).toString('base64')}`) }, body],
      [{ 'webhook-signature': sign('evt_1', ts, body).slice(0, -8) }, body],
      [{ 'webhook-signature': sign('evt_1', ts, body).replace('v1,', 'v1a,') }, body],
      [{ 'webhook-signature': 'v1,' }, body],
      // A re-serialised body (parsed and stringified with spaces) is not the body that was signed.
      [{}, JSON.stringify(JSON.parse(body), null, 1)],
    ];
    for (const [over, payload] of cases) {
      const err = await refusal(verifyWebhook(secret, headers(over), payload, { now: now + 1000 }));
      expect(err.code, JSON.stringify(over)).toBe('webhook_invalid_signature');
    }
  });

  it('refuses timestamps outside the tolerance either way, and honours a chosen tolerance', async () => {
    const at = (seconds: number) => {
      const t = String(now / 1000 + seconds);
      return headers({ 'webhook-timestamp': t, 'webhook-signature': sign('evt_1', t, body) });
    };
    expect(await verifyWebhook(secret, at(-300), body, { now })).toMatchObject({ id: 'evt_1' });
    expect(await verifyWebhook(secret, at(300), body, { now })).toMatchObject({ id: 'evt_1' });
    for (const offset of [-301, 301, -86_400]) {
      const err = await refusal(verifyWebhook(secret, at(offset), body, { now }));
      expect(err.code).toBe('webhook_timestamp_out_of_tolerance');
    }
    expect(await verifyWebhook(secret, at(-3600), body, { now, toleranceSeconds: 3600 })).toMatchObject({
      id: 'evt_1',
    });
    const err = await refusal(verifyWebhook(secret, at(-60), body, { now, toleranceSeconds: 30 }));
    expect(err.code).toBe('webhook_timestamp_out_of_tolerance');
  });

  it('says which header is missing or malformed, and refuses a secret that is not one', async () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const err = await refusal(verifyWebhook(secret, headers({ [name]: undefined }), body, { now }));
      expect([err.code, err.message]).toEqual([
        'webhook_missing_header',
        `The request has no ${name} header.`,
      ]);
    }
    for (const bad of ['soon', '1.5e9', '-1']) {
      const err = await refusal(verifyWebhook(secret, headers({ 'webhook-timestamp': bad }), body, { now }));
      expect(err.code).toBe('webhook_invalid_timestamp');
    }
    for (const bad of ['', 'whsec_', 'whsec_%%%']) {
      const err = await refusal(verifyWebhook(bad, headers(), body, { now }));
      expect(err.code).toBe('webhook_invalid_secret');
    }
  });

  it('refuses a signed body that is not JSON, and uses a SubtleCrypto it is given', async () => {
    const text = 'not json';
    const signed = headers({ 'webhook-signature': sign('evt_1', ts, text) });
    const err = await refusal(verifyWebhook(secret, signed, text, { now }));
    expect(err.code).toBe('webhook_invalid_body');
    let used = false;
    const subtle = {
      importKey: (...args: Parameters<typeof webcrypto.subtle.importKey>) => {
        used = true;
        return webcrypto.subtle.importKey(...args);
      },
      sign: (...args: Parameters<typeof webcrypto.subtle.sign>) => webcrypto.subtle.sign(...args),
    };
    expect(await verifyWebhook(secret, headers(), body, { now, subtle })).toMatchObject({ id: 'evt_1' });
    expect(used).toBe(true);
  });
});
