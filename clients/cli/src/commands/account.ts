// Signing in and the calling key: svc login, svc me.
import { SvcClient } from '@svc-agents/sdk';
import { configPath, resolveSettings, writeConfig } from '../config';
import { createOutput } from '../output';
import type { CommandKit } from './kit';

export function accountCommands({ root, io, act }: CommandKit): void {
  root
    .command('login')
    .description('check an API key and keep it (with the base URL) in the config file, readable by you only')
    .requiredOption('--key <key>', 'the API key (svc_…)')
    .option('--url <url>', 'the service address')
    .action(async (options: { key: string; url?: string }) => {
      const settings = resolveSettings({ apiKey: options.key, baseUrl: options.url ?? root.opts().baseUrl });
      const me = await new SvcClient(settings).me();
      writeConfig({ apiKey: options.key, baseUrl: settings.baseUrl });
      const out = createOutput(Boolean(root.opts().json), io);
      out.result(
        { config: configPath(), key: me.key, principal: me.principal },
        () => `Logged in as ${me.principal.name} <${me.principal.email}> (key ${me.key.prefix}…); saved to ${configPath()}`,
      );
    });

  root
    .command('me')
    .description('the calling key, its principal, plan, scopes, flags and mandate')
    .action(
      act(async ({ client, out }) => {
        const me = await client.me();
        out.result(me, () =>
          [
            `principal  ${me.principal.name} <${me.principal.email}>`,
            `key        ${me.key.label} (${me.key.prefix}…)`,
            `plan       ${me.plan}`,
            `scopes     ${me.scopes.join(', ')}`,
            `levels     ${me.allowed_confirmation_levels.join(', ') || 'none (no mandate)'}`,
          ].join('\n'),
        );
      }),
    );
}
