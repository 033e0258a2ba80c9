import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Knex } from 'knex';
import { buildOpenApi, eventSchemaName } from '../../api/openapi/document';
import { emitEvent } from './outbox';
import { EVENT_DATA, EVENT_NAMES, EventSchema } from './payloads';

const HASH = 'a'.repeat(64);
const AT = '2026-11-26T08:00:00.000Z';

describe('event payloads: one schema per event', () => {
  it('the union takes an event by its name and checks its data against that event’s schema', () => {
    const signed = {
      id: 'evt_1',
      event: 'document.signed',
      created_at: AT,
      data: {
        document_id: 'doc_1',
        signer_id: 'sgn_1',
        principal: { email: 'p@example.com', name: 'P' },
        agent: { api_key_id: 'key_1', label: 'agent' },
        mandate_id: 'mdt_1',
        mandate_credential: null,
        confirmation_level: 'l2',
        pre_sign_hash: HASH,
        document_hash: HASH,
      },
    };
    assert.equal(EventSchema.parse(signed).event, 'document.signed');
    assert.throws(() => EventSchema.parse({ ...signed, data: { ...signed.data, pre_sign_hash: 'nope' } }), /SHA-256/);
    // The same data under another name is checked against that name's schema.
    assert.throws(() => EventSchema.parse({ ...signed, event: 'transfer.released' }));
    assert.throws(() => EventSchema.parse({ ...signed, event: 'document.unknown' }));
  });

  it('emitEvent refuses data that does not match its event, before writing anything', async () => {
    // The check comes first: a transaction that is never touched proves nothing was written.
    const untouched = new Proxy({}, { get: () => assert.fail('the outbox was written') }) as unknown as Knex.Transaction;
    await assert.rejects(
      emitEvent(untouched, 'ten_1', 'transfer.released', {
        transfer_id: 'xfr_1',
        name: 'x',
        mode: 'lend',
        document_id: null,
        released_at: AT,
      } as never),
      /transfer.released event data does not match its schema/,
    );
  });

  it('the OpenAPI document publishes every event in its webhooks section, with the schema emitEvent checks', () => {
    const document = buildOpenApi([], { serverUrl: 'https://api.example.com', version: 'test' }) as unknown as {
      webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } } }>;
      components: { schemas: Record<string, { properties: { event: { const: string }; data: { required?: string[] } } }> };
    };
    assert.deepEqual(Object.keys(document.webhooks), EVENT_NAMES);
    for (const event of EVENT_NAMES) {
      const ref = document.webhooks[event].post.requestBody.content['application/json'].schema.$ref;
      assert.equal(ref, `#/components/schemas/${eventSchemaName(event)}`);
      const schema = document.components.schemas[eventSchemaName(event)];
      assert.equal(schema.properties.event.const, event);
      const required = Object.entries(EVENT_DATA[event].shape)
        .filter(([, field]) => !field.safeParse(undefined).success)
        .map(([name]) => name);
      assert.deepEqual([...(schema.properties.data.required ?? [])].sort(), required.sort(), `${event}: required fields`);
    }
  });
});
