import type { Knex } from 'knex';

/** Work to do once a transaction committed, on the pool (its connection is free again). */
export type CommitHook = (db: Knex) => Promise<void>;

const hooksOf = new WeakMap<Knex.Transaction, CommitHook[]>();

interface HookedClient {
  transaction(container: (trx: Knex.Transaction) => unknown, config?: unknown, outerTx?: unknown): PromiseLike<unknown>;
}

/**
 * Runs `hook` after the top-level transaction that `trx` belongs to (a savepoint's included) committed,
 * before that transaction's `db.transaction(…)` promise resolves; never when it rolled back. False when
 * `trx` was not opened through a connection made by connectDb (nothing will run it then).
 */
export function onCommit(trx: Knex.Transaction, hook: CommitHook): boolean {
  let root = trx;
  while (root.parentTransaction) root = root.parentTransaction;
  const hooks = hooksOf.get(root);
  if (!hooks) return false;
  hooks.push(hook);
  return true;
}

/**
 * Makes `db.transaction(cb)` run the hooks its transaction registered (onCommit) once it committed, and
 * resolve after them: a request's after-commit work (the workflow starts it recorded) ends before it answers. A hook
 * that throws is reported to `failed`; the transaction committed all the same, and its value is returned.
 */
export function runCommitHooks(db: Knex, failed: (error: unknown) => void): void {
  const client = db.client as HookedClient;
  const transaction = client.transaction.bind(client);
  client.transaction = (container, config, outerTx) => {
    const hooks: CommitHook[] = [];
    const trx = transaction(
      (inner) => {
        hooksOf.set(inner, hooks);
        return container(inner);
      },
      config,
      outerTx,
    );
    return Promise.resolve(trx).then(async (value) => {
      for (const hook of hooks) await hook(db).catch(failed);
      return value;
    });
  };
}
