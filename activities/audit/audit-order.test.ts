import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEvent } from '../../db/models';
import { createTestDatabase, type TestDatabase } from '../../test/db';
import { createAccount } from '../../test/factories';
import { recordAudit } from './audit';

describe('the audit trail keeps the order its lines were written in', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  it('lines written in one transaction (a document created and sent at once) read back in their order, not by their random ids', async () => {
    const { tenantId } = await createAccount(database.db);
    const written = Array.from({ length: 8 }, (_, i) => `drv_order${i}`);
    await database.db.transaction(async (trx) => {
      for (const id of written)
        await recordAudit(trx, { tenantId, actor: { type: 'system' }, action: 'drive.deleted', data: { drive_file_id: id } });
    });
    // The order the attached trail of a completed PDF reads them in (activities/documents/evidence.ts).
    const lines = await AuditEvent.query(database.db)
      .where({ tenant_id: tenantId })
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    assert.deepEqual(
      lines.map((line) => (line.data as { drive_file_id: string }).drive_file_id),
      written,
    );
  });
});
