import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticateKey } from '../../activities/accounts/accounts';
import { findVisibleDocument } from '../../activities/documents/documents';
import { invitationsOf } from '../../activities/documents/invitations';
import { ApiKey, Document, DocumentSigner, MailMessage } from '../../db/models';
import { newId } from '../../lib/ids';
import { createDocument, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { queriesDuring } from '../../test/queries';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';
import { presentDocument } from './presenter';

/**
 * The read path does the least work: a known key is answered from the key cache (lib/key-cache.ts),
 * and one query reads the document with its signers and their invitation states; nothing is written
 * while answering (last_used_at is written in a batch afterwards).
 */
describe('GET /v1/documents/:id: one read, no write', () => {
  let stack: Stack;
  let owner: Account;
  let documentId: string;

  before(async () => {
    stack = await startStack({ worker: false, env: { SVC_KEY_USAGE_FLUSH_MS: '600000' } });
    owner = await createAccount(stack.deps.db);
    const { nda } = await seedSamples(stack, owner);
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: 'Read path',
      signers: [
        { name: 'Ann', email: 'ann-read@example.test' },
        { name: 'Bob', email: 'bob-read@example.test' },
      ],
    });
    assert.equal(created.status, 201, created.text);
    documentId = created.body.document_id;
  });
  after(() => stack.close());

  /** The SQL the service ran while answering one request (this process serves it). */
  const queriesOf = (request: () => Promise<unknown>) => queriesDuring(stack.deps.db, request);

  it('answers with the document and both signers in one query once the key is known, none of them a write', async () => {
    // The process's first joined read fetches the tables' column lists once (Objection caches them);
    // the key is cached once the process hears changes to keys.
    await waitFor('the key cache listening', () => stack.deps.keyCache.isListening, 5_000, 20);
    await call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: owner.key });
    let reply: Awaited<ReturnType<typeof call>> | undefined;
    const queries = await queriesOf(async () => {
      reply = await call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: owner.key });
    });
    assert.equal(reply?.status, 200, reply?.text);
    assert.deepEqual(
      reply?.body.signers.map((signer: { email: string }) => signer.email),
      ['ann-read@example.test', 'bob-read@example.test'],
      'signers in signing order',
    );
    assert.equal(queries.length, 1, `${queries.length} queries:\n${queries.join('\n')}`);
    assert.deepEqual(
      queries.filter((sql) => !/^\s*select/i.test(sql)),
      [],
      'nothing but reads on the request path',
    );
  });

  it('reads no widgets, which no answer shows: neither the document nor the list asks for them', async () => {
    const read = await queriesOf(() => call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: owner.key }));
    const listed = await queriesOf(() => call(stack.url, 'GET', '/v1/documents', { key: owner.key }));
    for (const sql of [...read, ...listed].filter((each) => /\bdocuments\b/.test(each))) {
      assert.doesNotMatch(sql, /widgets/, sql);
      assert.doesNotMatch(sql, /"documents"\.\*|select \* from "documents"|\bd\.\*/, sql);
    }
    assert.ok(read.length > 0 && listed.length > 0);
  });

  it('the read is a prepared statement that a column added while the process runs does not break', async () => {
    const read = () => call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: owner.key });
    for (let i = 0; i < 7; i++) assert.equal((await read()).status, 200); // past PostgreSQL's five custom plans
    // A migration of a rolling deploy: the statement prepared on every pooled connection must still run.
    await stack.deps.db.raw('alter table documents add column read_path_extra text');
    await stack.deps.db.raw('alter table document_signers add column read_path_extra text');
    try {
      for (let i = 0; i < 3; i++) {
        const reply = await read();
        assert.equal(reply.status, 200, reply.text);
        assert.equal(reply.body.signers.length, 2);
      }
    } finally {
      await stack.deps.db.raw('alter table documents drop column read_path_extra');
      await stack.deps.db.raw('alter table document_signers drop column read_path_extra');
    }
    assert.equal((await read()).status, 200);
  });

  it('a key used for the first time is not written during the request; the batch writes it', async () => {
    const fresh = await createAccount(stack.deps.db);
    const queries = await queriesOf(() => call(stack.url, 'GET', '/v1/me', { key: fresh.key }));
    assert.deepEqual(
      queries.filter((sql) => /^\s*(update|insert|delete)\b/i.test(sql)),
      [],
    );
    assert.equal((await ApiKey.query(stack.deps.db).findById(fresh.keyId))!.last_used_at, null, 'not yet written');
    await stack.deps.keyUsage.flush();
    const written = (await ApiKey.query(stack.deps.db).findById(fresh.keyId))!.last_used_at;
    assert.ok(written instanceof Date, 'written by the flush');
    // Used again within the resolution: no new mark, so the next flush writes nothing.
    await call(stack.url, 'GET', '/v1/me', { key: fresh.key });
    const flushed = await queriesOf(() => stack.deps.keyUsage.flush());
    assert.deepEqual(flushed, []);
  });

  it('an unknown or revoked key is refused in one query', async () => {
    const unknown = await queriesOf(() => call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: `svc_${'x'.repeat(40)}` }));
    assert.ok(unknown.length <= 1, unknown.join('\n'));
    const revoked = await createAccount(stack.deps.db);
    await ApiKey.query(stack.deps.db).findById(revoked.keyId).patch({ revoked_at: new Date() });
    const reply = await call(stack.url, 'GET', '/v1/me', { key: revoked.key });
    assert.equal(reply.status, 401);
  });

  it('answers exactly what the reads it replaced answered: invitation states, outbound and inbound', async () => {
    const document = await Document.query(stack.deps.db).findById(documentId);
    const signers = await DocumentSigner.query(stack.deps.db).where({ document_id: documentId }).orderBy('position');
    // The invitation mails the workflow would have queued: one failed at the relay, one sent.
    const outcomes = [
      { status: 'failed', error: '550 no such mailbox' },
      { status: 'sent', error: 'kept, not shown' },
    ] as const;
    await MailMessage.query(stack.deps.db).insert(
      signers.map((one, i) => ({
        ...outcomes[i],
        id: newId('msg'),
        tenant_id: document!.tenant_id,
        to_address: one.email,
        subject: 's',
        text: 't',
        purpose: 'sign-invite',
        dedupe_key: `sign-invite:${one.id}`,
        document_id: documentId,
        signer_id: one.id,
      })),
    );
    await Document.query(stack.deps.db).findById(documentId).patch({ status: 'sent', sent_at: new Date() });
    const signer = await createAccount(stack.deps.db);
    await stack.deps.db('principals').where({ id: signer.principalId }).update({ email: 'bob-read@example.test' });
    for (const [account, inbound] of [
      [owner, false],
      [signer, true],
    ] as const) {
      const caller = (await authenticateKey(stack.deps.db, account.key))!;
      const view = await findVisibleDocument(stack.deps.db, caller, documentId);
      assert.equal(view.inbound, inbound);
      const invitations = inbound
        ? undefined
        : await invitationsOf(
            stack.deps.db,
            view.signers.map((one) => one.id),
          );
      const before = presentDocument(view, { inbound, appUrl: stack.config.appUrl, secret: stack.deps.secret, invitations });
      const reply = await call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: account.key });
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(reply.body, JSON.parse(JSON.stringify(before)));
    }
    const shown = (await call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: owner.key })).body.signers;
    assert.deepEqual(
      shown.map((one: { invitation: unknown }) => one.invitation),
      [
        { status: 'failed', error: '550 no such mailbox' },
        { status: 'sent', error: null },
      ],
    );
  });
});

describe('lists walk an index in their order (EXPLAIN at 100,000 documents)', () => {
  let stack: Stack;
  let owner: Account;

  before(async () => {
    stack = await startStack({ worker: false });
    owner = await createAccount(stack.deps.db);
    const { nda } = await seedSamples(stack, owner);
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: 'seed',
      signers: [{ name: 'A', email: 'a@example.test' }],
    });
    const db = stack.deps.db;
    const columns: string[] = (
      await db('information_schema.columns').where({ table_name: 'documents', table_schema: db.raw('current_schema()') })
    ).map((column: { column_name: string }) => column.column_name);
    const select = columns.map((column) =>
      column === 'id' ? `'doc_many' || lpad(g::text, 8, '0')` : column === 'created_at' ? `now() - g * interval '1 second'` : `"${column}"`,
    );
    await db.raw(
      `insert into documents (${columns.map((c) => `"${c}"`).join(', ')})
       select ${select.join(', ')} from documents, generate_series(1, 99999) g where id = ?`,
      [created.body.document_id],
    );
    await db.raw('analyze documents');
  });
  after(() => stack.close());

  it('the first page and a later page of GET /v1/documents read the index, with no sort of the whole list', async () => {
    const seen: Array<{ sql: string; bindings: unknown[] }> = [];
    const listener = (query: { sql: string; bindings: unknown[] }) => seen.push(query);
    stack.deps.db.on('query', listener);
    const first = await call(stack.url, 'GET', '/v1/documents?limit=20', { key: owner.key });
    const second = await call(stack.url, 'GET', `/v1/documents?limit=20&cursor=${first.body.next_cursor}`, { key: owner.key });
    stack.deps.db.off('query', listener);
    assert.equal(first.status, 200, first.text);
    assert.equal(second.status, 200, second.text);
    assert.equal(first.body.data.length, 20);
    assert.notEqual(second.body.data[0].document_id, first.body.data[19].document_id);
    const lists = seen.filter((query) => /from "documents"/.test(query.sql) && /limit \$\d+/i.test(query.sql));
    assert.equal(lists.length, 2, seen.map((query) => query.sql).join('\n'));
    for (const list of lists) {
      const explained = await stack.deps.db.raw(`explain ${list.sql.replace(/\$\d+/g, '?')}`, list.bindings as never);
      const plan = explained.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
      assert.match(plan, /Index Scan using documents_tenant_id_page/, plan);
      assert.doesNotMatch(plan, /Sort|Seq Scan/, plan);
    }
  });
});
