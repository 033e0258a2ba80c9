import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createReceiptIssuer } from '../lib/receipts';
import { createTestDatabase, type TestDatabase } from '../test/db';
import { connectDb, type Db } from './connect';
import { migrateLatest } from './migrate';
import { ReceiptKey } from './models';
import { EscapedTransactionError } from './transaction-guard';

/** A query on the pool from inside a transaction's callback: the bug class the guard stops. */
async function escapeFromTransaction(db: Db) {
  return db.transaction(async (trx) => {
    await trx.raw('select 1');
    return ReceiptKey.query(db).first();
  });
}

function guardedBehaviour(name: string, open: () => Promise<{ db: Db; close(): Promise<void> }>) {
  describe(`no query escapes its transaction (${name})`, () => {
    let db: Db;
    let close: () => Promise<void>;
    before(async () => {
      ({ db, close } = await open());
    });
    after(() => close());

    it('fails a model query built on the pool inside a transaction at once, naming its caller', async () => {
      const started = Date.now();
      await assert.rejects(escapeFromTransaction(db), (error: Error) => {
        assert.ok(error instanceof EscapedTransactionError, String(error));
        assert.match(error.stack ?? '', /transaction-guard\.test\.ts:\d+/, 'the stack names the code that escaped');
        return true;
      });
      assert.ok(Date.now() - started < 2000, 'fails at once instead of waiting for a connection');
    });

    it('fails a raw pool query inside a transaction, and a second top-level transaction opened inside one', async () => {
      await assert.rejects(
        db.transaction(async () => db.raw('select 1')),
        EscapedTransactionError,
      );
      await assert.rejects(
        db.transaction(async () => db.transaction((inner) => inner.raw('select 1'))),
        EscapedTransactionError,
      );
    });

    it('lets the transaction’s own queries, its savepoints and builders bound to it run, and the pool after it', async () => {
      const answer = await db.transaction(async (trx) => {
        await trx.raw('select 1');
        await trx.transaction((savepoint) => savepoint.raw('select 2'));
        await db('receipt_keys').transacting(trx).count('* as n');
        return ReceiptKey.query(trx).count('* as n').first();
      });
      assert.ok(answer);
      await db.raw('select 1');
      // Work a transaction left running (not awaited) may use the pool once the transaction ended.
      let late: Promise<unknown> | undefined;
      await db.transaction(async (trx) => {
        late = new Promise((resolve) => setTimeout(resolve, 50)).then(() => db.raw('select 3'));
        await trx.raw('select 1');
      });
      await late;
    });

    it('signs a receipt inside the caller’s transaction (the completion and the offer acceptance do)', async () => {
      const receipts = createReceiptIssuer({ db, secret: crypto.randomBytes(32), issuer: 'http://localhost' });
      const jws = await db.transaction((trx) => receipts.sign(trx, { document_id: 'doc_x' }, 'doc_x'));
      assert.match(jws, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      // The key made inside that transaction committed with it; the next signature uses it.
      const [{ n }] = await db('receipt_keys').count('* as n');
      assert.equal(Number(n), 1);
    });
  });
}

guardedBehaviour('PostgreSQL', async () => {
  const database: TestDatabase = await createTestDatabase();
  return { db: database.db, close: () => database.drop() };
});

guardedBehaviour('embedded PGlite', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-guard-'));
  const db = connectDb({ dataDir });
  await migrateLatest(db);
  return {
    db,
    async close() {
      await db.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

describe('PGlite’s one connection', () => {
  it('names the code that holds it when a query waits past the acquire timeout', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-guard-'));
    const migrating = connectDb({ dataDir });
    await migrateLatest(migrating);
    await migrating.destroy();
    const db = connectDb({ dataDir, acquireTimeoutMs: 500 });
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      // A transaction that waits on something outside it (as one waiting on a workflow would).
      const holding = db.transaction(async function holdTheConnection(trx) {
        await trx.raw('select 1');
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await assert.rejects(db.raw('select 1'), (error: Error) => {
        assert.equal(error.name, 'KnexTimeoutError');
        assert.match(error.message, /only connection after 500 ms; held for \d+ ms by:/);
        return true;
      });
      release();
      await holding;
      await db.raw('select 1');
    } finally {
      await db.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
