// svc webhooks: signed event deliveries to your endpoints.
import { type CommandKit, collect } from './kit';

export function webhookCommands({ root, act, list, paging }: CommandKit): void {
  const webhooks = root.command('webhooks').description('signed event deliveries to your endpoints');
  paging(webhooks.command('list').description('your webhooks')).action(
    act(async ({ client, out }, options: { limit?: number; cursor?: string }) =>
      list(out, await client.listWebhooks(options), ['webhook_id', 'url', 'events', 'created_at']),
    ),
  );
  webhooks
    .command('create')
    .description('register an https endpoint; its signing secret is printed once')
    .requiredOption('--url <url>', 'https URL')
    .option('--event <name>', 'an event to receive (repeat; default every event)', collect)
    .action(
      act(async ({ client, out }, options: { url: string; event?: string[] }) => {
        const webhook = await client.createWebhook({ url: options.url, events: options.event });
        out.result(webhook, () => `${webhook.webhook_id} created; its secret (shown once): ${webhook.secret}`);
      }),
    );
  webhooks
    .command('delete <id>')
    .description('remove a webhook')
    .action(act(async ({ client, out }, id: string) => out.result(await client.deleteWebhook(id), () => `${id} deleted`)));
  webhooks
    .command('rotate <id>')
    .description('a new signing secret (the old one signs alongside for a while)')
    .action(act(async ({ client, out }, id: string) => out.result(await client.rotateWebhookSecret(id))));
  paging(webhooks.command('deliveries <id>').description('the deliveries to a webhook and their attempts')).action(
    act(async ({ client, out }, id: string, options: { limit?: number; cursor?: string }) =>
      list(out, await client.listWebhookDeliveries(id, options), ['delivery_id', 'event', 'status', 'attempts']),
    ),
  );
}
