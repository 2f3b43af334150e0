import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signatures of the Standard Webhooks scheme: an HMAC-SHA256 of `<id>.<timestamp>.<body>` under the
 * endpoint's secret, sent as `webhook-signature: v1,<base64>`. A secret is `whsec_` and the base64 of
 * 32 random bytes (the scheme asks for 24 to 64); the bytes, not the text, are the HMAC key.
 */

const SECRET_BYTES = 32;

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The authenticated context of an endpoint's encrypted secret: it belongs to that row only. */
export const webhookSecretContext = (endpointId: string) => `webhook_endpoints.secret:${endpointId}`;
