import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

/**
 * A query that asked the pool for a connection while a transaction of the same call path was open.
 * On embedded PGlite (one connection) it would wait forever for the connection its own transaction
 * holds; on PostgreSQL it would run outside the transaction (not rolled back with it, blind to its
 * uncommitted rows). Either way it is a bug: pass the transaction (trx) down instead.
 */
export class EscapedTransactionError extends Error {
  override name = 'EscapedTransactionError';
}

interface OpenTransaction {
  open: boolean;
}

const inTransaction = new AsyncLocalStorage<OpenTransaction>();

type Container = (trx: Knex.Transaction) => unknown;
interface GuardedClient {
  transaction(container: Container, config?: unknown, outerTx?: unknown): PromiseLike<unknown>;
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

function escaped(): EscapedTransactionError {
  return new EscapedTransactionError(
    'A query used the connection pool inside an open transaction of the same call path; pass the transaction (trx) ' +
      'to the function that made it (on embedded PGlite it would wait forever for the connection its transaction holds).',
  );
}

/**
 * Throws, with the caller's stack, when `knex` is the pool (not a transaction) and a transaction of
 * this call path is open. Models call it when a query is built (see db/models/base.ts), so the
 * stack names the culprit; the pool's own check below is the backstop for anything else.
 */
export function assertNotEscaping(knex: { isTransaction?: boolean } | undefined): void {
  if (knex && !knex.isTransaction && inTransaction.getStore()?.open) throw escaped();
}

/**
 * Makes "no query escapes its transaction" a rule the database connection enforces: the callback of
 * every top-level `db.transaction(cb)` runs marked as inside it, and a query through the pool (not
 * through `trx`) from inside that callback fails at once, naming itself in its stack, instead of
 * deadlocking on PGlite or silently running beside the transaction on PostgreSQL. Transactions made
 * through `trx` (savepoints) use its connection and are not affected.
 */
export function guardTransactions(db: Knex): void {
  const client = db.client as GuardedClient;
  const transaction = client.transaction.bind(client);
  client.transaction = (container, config, outerTx) => {
    const marker: OpenTransaction = { open: true };
    const trx = transaction((inner) => inTransaction.run(marker, () => container(inner)), config, outerTx);
    // Work the callback left running (a promise it did not await) may use the pool once it ended.
    const close = () => {
      marker.open = false;
    };
    trx.then(close, close);
    return trx;
  };
  // Anything else (`db('table')`, `db.raw(…)`) is caught when it asks the pool for a connection; a
  // builder bound with `.transacting(trx)` uses the transaction's and is fine.
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = () => (inTransaction.getStore()?.open ? Promise.reject(escaped()) : acquire());
}

/**
 * PGlite has one connection: a wait for it longer than `timeoutMs` is reported with the stack of the
 * code that holds it (a transaction waiting on something that needs the database, most likely),
 * instead of knex's bare "Timeout acquiring a connection".
 */
export function nameConnectionHolder(db: Knex, timeoutMs: number): void {
  const client = db.client as GuardedClient;
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);
  let holder: { since: number; stack: string } | undefined;
  client.acquireConnection = async () => {
    const asking = new Error('asked here');
    try {
      const connection = await acquire();
      holder = { since: Date.now(), stack: new Error('held since').stack ?? '' };
      return connection;
    } catch (error) {
      if ((error as Error)?.name !== 'KnexTimeoutError') throw error;
      const held = holder
        ? `held for ${Date.now() - holder.since} ms by:\n${holder.stack.split('\n').slice(1, 12).join('\n')}`
        : 'holder unknown';
      const named = new Error(
        `Timeout acquiring the embedded database's only connection after ${timeoutMs} ms; ${held}\nthe waiting query:\n${(asking.stack ?? '').split('\n').slice(1, 8).join('\n')}`,
        { cause: error },
      );
      named.name = 'KnexTimeoutError';
      throw named;
    }
  };
  client.releaseConnection = (connection) => {
    holder = undefined;
    return release(connection);
  };
}
