import type { Services } from '../../activities/services';
import { createWebhook, deleteWebhook, deliveriesOf, findWebhook, listWebhooks, rotateSecret } from '../../activities/webhooks/webhooks';
import { callerOf, type Routes } from '../http/route';
import { IdParamsSchema, ListQuerySchema } from '../shared/schema';
import { presentCreatedWebhook, presentDelivery, presentWebhook } from './presenter';
import {
  DeliveryListResponseSchema,
  WebhookCreatedSchema,
  WebhookCreateSchema,
  WebhookDeletedSchema,
  WebhookListResponseSchema,
  WebhookRotateSchema,
} from './schema';

export function webhookRoutes(routes: Routes, deps: Services): void {
  const base = { tag: 'Webhooks', needs: { scope: 'webhooks:write' } } as const;
  const rules = () => ({ db: deps.db, secret: deps.secret, allowedHosts: deps.config.webhooks.allowedHosts });

  routes.add(
    {
      ...base,
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhooks',
      summary: 'Webhooks of this account, newest first',
      query: ListQuerySchema,
      response: WebhookListResponseSchema,
    },
    async (ctx, { query }) => {
      const { items, next_cursor } = await listWebhooks(deps.db, callerOf(ctx).tenant.id, query);
      return { data: items.map(presentWebhook), next_cursor };
    },
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
      return presentCreatedWebhook(webhook, secret);
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
      response: WebhookDeletedSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => {
      await deleteWebhook(deps.db, callerOf(ctx).tenant.id, params.id);
      return { deleted: true as const };
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
      return presentCreatedWebhook(webhook, secret);
    },
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'The deliveries to a webhook, newest first, each with its attempts',
      params: IdParamsSchema,
      query: ListQuerySchema,
      response: DeliveryListResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params, query }) => {
      const webhook = await findWebhook(deps.db, callerOf(ctx).tenant.id, params.id);
      const { items, next_cursor } = await deliveriesOf(deps.db, webhook.id, query);
      return { data: items.map(presentDelivery), next_cursor };
    },
  );
}
