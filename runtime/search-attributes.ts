// `npm run temporal:search-attributes`: registers the service's search attributes (SvcTenantId …) on
// TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE where they are missing, waiting up to two minutes for the
// server to answer (docker-compose's one-shot step; docs/operations.md). Prints what it added.

import { Connection } from '@temporalio/client';
import { loadConfig } from '../lib/config/config';
import { registerSearchAttributes, searchAttributeCommand } from '../worker/search-attributes';
import { fail } from './lifecycle';

async function main() {
  const config = loadConfig();
  const address = config.temporal.address;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set: npm start registers them on its own dev server');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 3000 });
      try {
        const added = await registerSearchAttributes(connection, config.temporal.namespace);
        process.stdout.write(`${JSON.stringify({ namespace: config.temporal.namespace, added })}\n`);
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(
          `could not register the search attributes (${(error as Error).message}); run: ${searchAttributeCommand(config.temporal.namespace)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

main().catch(fail);
