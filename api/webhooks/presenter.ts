import type { DeliveryLog } from '../../activities/webhooks/webhooks';
import type { Webhook } from '../../db/models';
import type { DeliveryResponse, WebhookCreatedResponse, WebhookResponse } from './schema';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A webhook without its secrets: they are shown once, by presentCreatedWebhook. */
export function presentWebhook(webhook: Webhook): WebhookResponse {
  return {
    webhook_id: webhook.id,
    url: webhook.url,
    events: webhook.events ? [...webhook.events] : null,
    description: webhook.description,
    created_at: webhook.created_at.toISOString(),
    previous_secret_expires_at: iso(webhook.previous_secret_expires_at),
  };
}

/** A webhook just registered or rotated, with its new signing secret (the only time it is shown). */
export function presentCreatedWebhook(webhook: Webhook, secret: string): WebhookCreatedResponse {
  return { ...presentWebhook(webhook), secret };
}

export function presentDelivery({ delivery, event, attempts }: DeliveryLog): DeliveryResponse {
  return {
    delivery_id: delivery.id,
    event_id: delivery.event_id,
    event,
    status: delivery.status,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: attempt.started_at.toISOString(),
      latency_ms: attempt.latency_ms,
      status_code: attempt.status_code,
      error: attempt.error,
    })),
    created_at: delivery.created_at.toISOString(),
    delivered_at: iso(delivery.delivered_at),
    failed_at: iso(delivery.failed_at),
  };
}
