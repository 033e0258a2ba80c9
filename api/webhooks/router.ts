import { z } from 'zod';
import { createWebhook, deleteWebhook, deliveriesOf, findWebhook, listWebhooks, rotateSecret } from '../../activities/webhooks/webhooks';
import { Event, type Webhook } from '../../db/models';
import type { Services } from '../../lib/services';
import { callerOf, type Routes } from '../http/route';
import { IdParamsSchema } from '../shared/schema';
import { DeliveryResponseSchema, WebhookCreatedSchema, WebhookCreateSchema, WebhookResponseSchema, WebhookRotateSchema } from './schema';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function present(webhook: Webhook) {
  return {
    webhook_id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    created_at: webhook.created_at.toISOString(),
    previous_secret_expires_at: iso(webhook.previous_secret_expires_at),
  };
}

export function webhookRoutes(routes: Routes, deps: Services): void {
  const base = { tag: 'Webhooks', scope: 'webhooks:write' } as const;
  const rules = () => ({ db: deps.db, secret: deps.secret, allowedHosts: deps.config.webhooks.allowedHosts });

  routes.add(
    {
      ...base,
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhooks',
      summary: 'Webhooks of this account',
      response: z.object({ data: z.array(WebhookResponseSchema) }),
    },
    async (ctx) => ({ data: (await listWebhooks(deps.db, callerOf(ctx).tenant.id)).map(present) }),
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhook',
      summary: 'Register an https endpoint; the signing secret is shown once',
      body: WebhookCreateSchema,
      response: WebhookCreatedSchema,
      status: 201,
    },
    async (ctx, { body }) => {
      const { webhook, secret } = await createWebhook(rules(), callerOf(ctx).tenant.id, body);
      return { ...present(webhook), secret };
    },
  );
  routes.add(
    {
      ...base,
      method: 'delete',
      path: '/webhooks/:id',
      operationId: 'deleteWebhook',
      summary: 'Remove a webhook; deliveries not yet made stop',
      params: IdParamsSchema,
      response: z.object({ deleted: z.literal(true) }),
      errors: ['not_found'],
    },
    async (ctx, { params }) => {
      await deleteWebhook(deps.db, callerOf(ctx).tenant.id, params.id);
      return { deleted: true };
    },
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/webhooks/:id/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: 'A new signing secret; the old one keeps signing during the overlap',
      params: IdParamsSchema,
      body: WebhookRotateSchema,
      response: WebhookCreatedSchema,
      errors: ['not_found'],
    },
    async (ctx, { params, body }) => {
      const overlapMs = body.overlap_seconds !== undefined ? body.overlap_seconds * 1000 : deps.config.durations.secretOverlapMs;
      const { webhook, secret } = await rotateSecret(rules(), callerOf(ctx).tenant.id, params.id, overlapMs);
      return { ...present(webhook), secret };
    },
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'The newest deliveries to a webhook, each with its attempts',
      params: IdParamsSchema,
      query: z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
      response: z.object({ data: z.array(DeliveryResponseSchema) }),
      errors: ['not_found'],
    },
    async (ctx, { params, query }) => {
      const webhook = await findWebhook(deps.db, callerOf(ctx).tenant.id, params.id);
      const rows = await deliveriesOf(deps.db, webhook.id, query.limit);
      const events = rows.length
        ? await Event.query(deps.db).whereIn(
            'id',
            rows.map((r) => r.delivery.event_id),
          )
        : [];
      return {
        data: rows.map(({ delivery, attempts }) => ({
          delivery_id: delivery.id,
          event_id: delivery.event_id,
          event: events.find((e) => e.id === delivery.event_id)?.event ?? '',
          status: delivery.status,
          attempts: attempts.map((a) => ({
            attempt: a.attempt,
            started_at: a.started_at.toISOString(),
            latency_ms: a.latency_ms,
            status_code: a.status_code,
            error: a.error,
          })),
          created_at: delivery.created_at.toISOString(),
          delivered_at: iso(delivery.delivered_at),
          failed_at: iso(delivery.failed_at),
        })),
      };
    },
  );
}
