import type { WebhookTargetGuard } from '../domain/ports.js';
import type { SecretBox } from '../domain/secrets.js';
import type { WebhookStore } from '../domain/stores.js';
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
    },
    MAX_WEBHOOKS_PER_ACCOUNT,
  );
  if (!webhook) throw errors.tooManyWebhooks(MAX_WEBHOOKS_PER_ACCOUNT);
  return { webhook, secret };
}

export function listWebhooks(store: WebhookStore, principal: Principal): Promise<WebhookEndpoint[]> {
  return store.listEndpoints(principal.accountId);
}

export async function getWebhook(store: WebhookStore, principal: Principal, id: string) {
  const webhook = await store.getEndpoint(principal.accountId, id);
  if (!webhook) throw errors.webhookNotFound(id);
  return webhook;
}

/** Deletes the endpoint; its deliveries still waiting are never sent. */
export async function deleteWebhook(store: WebhookStore, principal: Principal, id: string) {
  const webhook = await store.deleteEndpoint(principal.accountId, id);
  if (!webhook) throw errors.webhookNotFound(id);
  return webhook;
}

export async function listDeliveries(
  store: WebhookStore,
  principal: Principal,
  id: string,
  page: { limit: number; before?: string | undefined; status?: WebhookDeliveryStatus | undefined },
): Promise<{ deliveries: WebhookDelivery[]; next: string | null }> {
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
  const delivery = await store.redeliver(principal.accountId, id, deliveryId);
  if (delivery) return delivery;
  if (!(await store.getEndpoint(principal.accountId, id))) throw errors.webhookNotFound(id);
  throw errors.deliveryNotFound(deliveryId);
}
