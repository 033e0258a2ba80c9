import type { Routes } from '../http/route';
import { IdParamsSchema, ListQuerySchema } from '../shared/schema';
import { WebhookCreateSchema } from './schema';

export function webhookRoutes(routes: Routes): void {
  const base = { tag: 'Webhooks' } as const;
  routes.add({ ...base, method: 'get', path: '/webhooks', operationId: 'listWebhooks', summary: 'Webhooks of this account', query: ListQuerySchema });
  routes.add({ ...base, method: 'post', path: '/webhooks', operationId: 'createWebhook', summary: 'Register an https endpoint; the signing secret is shown once', body: WebhookCreateSchema, status: 201 });
  routes.add({ ...base, method: 'delete', path: '/webhooks/:id', operationId: 'deleteWebhook', summary: 'Remove a webhook', params: IdParamsSchema, errors: ['not_found'] });
}
