import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Knex } from 'knex';
import { buildOpenApi } from '../../api/openapi/document';
import { type AuditEntry, recordAudit } from './audit';
import { AUDIT_ACTIONS, AuditLineSchema } from './payloads';

const HASH = 'b'.repeat(64);
const AT = '2026-11-26T08:00:00.000Z';
// The check comes before the insert: a transaction that is never touched proves nothing was written.
const untouched = new Proxy({}, { get: () => assert.fail('the audit trail was written') }) as unknown as Knex.Transaction;

describe('audit payloads: one schema per action', () => {
  const line = {
    at: AT,
    action: 'document.completed',
    actor: { type: 'system', id: null, ip: null, user_agent: null },
    data: { signed_sha256: HASH, final_sha256: HASH, revision: 3 },
  };

  it('the union takes a line by its action and checks its data against that action’s schema', () => {
    assert.equal(AuditLineSchema.parse(line).action, 'document.completed');
    assert.throws(() => AuditLineSchema.parse({ ...line, data: { ...line.data, final_sha256: 'nope' } }), /SHA-256/);
    assert.throws(() => AuditLineSchema.parse({ ...line, action: 'transfer.offered' }));
    assert.throws(() => AuditLineSchema.parse({ ...line, action: 'document.unknown' }));
  });

  it('recordAudit refuses data that does not match its action, before writing anything', async () => {
    const entry = {
      tenantId: 'ten_1',
      actor: { type: 'system' },
      action: 'transfer.released',
      data: { transfer_id: 'xfr_1', mode: 'lend' },
    };
    await assert.rejects(recordAudit(untouched, entry as never), /transfer.released audit data does not match its schema/);
  });

  it('a field no schema declares (a token, a secret) is refused, not written', async () => {
    const entry: AuditEntry = {
      tenantId: 'ten_1',
      actor: { type: 'system' },
      action: 'sign.code_sent',
      data: { signer_id: 'sgn_1', code: '123456' } as never,
    };
    await assert.rejects(recordAudit(untouched, entry), /sign.code_sent audit data does not match its schema/);
  });

  it('the OpenAPI document publishes the audit line with every action', () => {
    const document = buildOpenApi([], { serverUrl: 'https://api.example.com', version: 'test' }) as unknown as {
      components: { schemas: Record<string, { oneOf?: Array<{ properties: { action: { const: string } } }> }> };
    };
    const variants = document.components.schemas.AuditLine.oneOf ?? [];
    assert.deepEqual(
      variants.map((variant) => variant.properties.action.const),
      AUDIT_ACTIONS,
    );
  });
});
