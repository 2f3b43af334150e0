import type { RequestOptions } from '../transport.js';
import type {
  Answer,
  CreatedWebhook,
  Sent,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEventType,
} from '../types.js';
import { type Api, id } from './api.js';

export interface CreateWebhookParams {
  /** Where deliveries are POSTed (http or https; https is strongly advised). */
  url: string;
  events: WebhookEventType[];
  /** What it is for, up to 200 characters. */
  description?: string;
}

export interface ListWebhookDeliveriesParams {
  /** Deliveries per page, 1 to 100 (default 20). */
  limit?: number;
  /** `next` of the previous page. */
  before?: string;
  status?: WebhookDeliveryStatus;
}

const webhookPath = (webhookId: string) => `/v1/webhooks/${id(webhookId, 'webhookId')}`;

/** The account's webhook endpoints and their deliveries. */
export class Webhooks {
  constructor(private readonly api: Api) {}

  createWebhook(params: CreateWebhookParams, options: RequestOptions | undefined): Promise<CreatedWebhook> {
    if (!Array.isArray(params?.events) || params.events.length === 0) {
      throw new TypeError('createWebhook needs at least one event: { url, events: ["run.completed"] }.');
    }
    return this.api.post('/v1/webhooks', params satisfies Sent<'createWebhook'>, false, options);
  }

  listWebhooks(options: RequestOptions | undefined): Promise<Answer<'listWebhooks', 200>> {
    return this.api.get('/v1/webhooks', options);
  }

  getWebhook(webhookId: string, options: RequestOptions | undefined): Promise<WebhookEndpoint> {
    return this.api.get(webhookPath(webhookId), options);
  }

  deleteWebhook(webhookId: string, options: RequestOptions | undefined): Promise<WebhookEndpoint> {
    return this.api.delete(webhookPath(webhookId), options);
  }

  listWebhookDeliveries(
    webhookId: string,
    params: ListWebhookDeliveriesParams,
    options: RequestOptions | undefined,
  ): Promise<WebhookDeliveryPage> {
    const query = new URLSearchParams();
    if (params.limit !== undefined) query.set('limit', String(params.limit));
    if (params.before !== undefined) query.set('before', params.before);
    if (params.status !== undefined) query.set('status', params.status);
    const q = query.toString();
    return this.api.get(`${webhookPath(webhookId)}/deliveries${q ? `?${q}` : ''}`, options);
  }

  redeliverWebhook(
    webhookId: string,
    deliveryId: string,
    options: RequestOptions | undefined,
  ): Promise<WebhookDelivery> {
    const path = `${webhookPath(webhookId)}/deliveries/${id(deliveryId, 'deliveryId')}/redeliver`;
    return this.api.post(path, undefined, false, options);
  }
}
