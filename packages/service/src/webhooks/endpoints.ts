import { audit } from '../access/audit.js';
import { requireManager } from '../access/checks.js';
import type { WebhookTargetGuard } from '../domain/ports.js';
import type { SecretBox } from '../domain/secrets.js';
import type { AuditStore, WebhookStore } from '../domain/stores.js';
import type {
  Principal,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEventType,
} from '../domain/types.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { newWebhookSecret, webhookSecretContext } from './signing.js';

/** Endpoints one account may register: each event goes to every one of them. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;

export interface WebhookDeps {
  webhooks: WebhookStore;
  audit: Pick<AuditStore, 'append'>;
  webhookTargets: WebhookTargetGuard;
  /** Encrypts endpoint secrets; undefined in the stack when ENCRYPTION_KEY is unset. */
  secrets: SecretBox | undefined;
}

/**
 * Registers an endpoint and answers its signing secret, the only time the secret leaves the service.
 * The URL goes through the request-forgery guard now, and again before every delivery.
 */
export async function createWebhook(
  deps: WebhookDeps,
  principal: Principal,
  input: { url: string; events: WebhookEventType[]; description?: string | undefined },
): Promise<{ webhook: WebhookEndpoint; secret: string }> {
  requireManager(principal, 'manage webhooks');
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw errors.invalidRequest('"url" is not a valid URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw errors.invalidRequest(`A webhook URL is http or https, not ${url.protocol}`);
  if (url.username || url.password)
    throw errors.invalidRequest(
      'A webhook URL may not carry a user name or password; deliveries are signed.',
    );
  if (!deps.secrets) throw errors.encryptionNotConfigured('Webhook signing secrets');
  const refusal = await deps.webhookTargets.refusal(url);
  if (refusal) throw errors.webhookUrlForbidden(refusal);
  const id = newId('whk');
  const secret = newWebhookSecret();
  const webhook = await deps.webhooks.insertEndpoint(
    {
      id,
      accountId: principal.accountId,
      url: url.href,
      events: [...new Set(input.events)],
      description: input.description ?? null,
      encryptedSecret: deps.secrets.encrypt(secret, webhookSecretContext(id)),
      ownerUserId: principal.userId ?? null,
    },
    MAX_WEBHOOKS_PER_ACCOUNT,
  );
  if (!webhook) throw errors.tooManyWebhooks(MAX_WEBHOOKS_PER_ACCOUNT);
  await audit(deps.audit, principal, {
    action: 'webhook.created',
    targetType: 'webhook',
    targetId: webhook.id,
    details: { url: webhook.url, events: webhook.events },
  });
  return { webhook, secret };
}

export function listWebhooks(store: WebhookStore, principal: Principal): Promise<WebhookEndpoint[]> {
  requireManager(principal, 'manage webhooks');
  return store.listEndpoints(principal.accountId);
}

export async function getWebhook(store: WebhookStore, principal: Principal, id: string) {
  requireManager(principal, 'manage webhooks');
  const webhook = await store.getEndpoint(principal.accountId, id);
  if (!webhook) throw errors.webhookNotFound(id);
  return webhook;
}

/** Deletes the endpoint; its deliveries still waiting are never sent. */
export async function deleteWebhook(
  deps: { webhooks: WebhookStore; audit: Pick<AuditStore, 'append'> },
  principal: Principal,
  id: string,
) {
  requireManager(principal, 'manage webhooks');
  const webhook = await deps.webhooks.deleteEndpoint(principal.accountId, id);
  if (!webhook) throw errors.webhookNotFound(id);
  await audit(deps.audit, principal, {
    action: 'webhook.deleted',
    targetType: 'webhook',
    targetId: webhook.id,
    details: { url: webhook.url },
  });
  return webhook;
}

export async function listDeliveries(
  store: WebhookStore,
  principal: Principal,
  id: string,
  page: { limit: number; before?: string | undefined; status?: WebhookDeliveryStatus | undefined },
): Promise<{ deliveries: WebhookDelivery[]; next: string | null }> {
  requireManager(principal, 'manage webhooks');
  const deliveries = await store.listDeliveries(principal.accountId, id, {
    limit: page.limit,
    before: page.before,
    status: page.status,
  });
  if (!deliveries) throw errors.webhookNotFound(id);
  const last = deliveries[deliveries.length - 1];
  return { deliveries, next: deliveries.length === page.limit && last ? last.id : null };
}

/** Sends a delivery again now, whatever became of it; the receiver sees the same `webhook-id`. */
export async function redeliver(
  store: WebhookStore,
  principal: Principal,
  id: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  requireManager(principal, 'manage webhooks');
  const delivery = await store.redeliver(principal.accountId, id, deliveryId);
  if (delivery) return delivery;
  if (!(await store.getEndpoint(principal.accountId, id))) throw errors.webhookNotFound(id);
  throw errors.deliveryNotFound(deliveryId);
}
