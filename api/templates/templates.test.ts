// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEvent } from '../../db/models';
import { buildSampleNda } from '../../lib/pdf/samples';
import { createDocument, SignerSession, waitForDocument } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { driveSamples } from '../../test/files';
import { assertErrorCode, call, type Reply } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { type Stack, startStack } from '../../test/stack';

const widgets = [
  { id: 'seller-sign', type: 'signature', role: 'Seller', page: 1, x: 72, y: 600, width: 180, height: 40 },
  { id: 'buyer-sign', type: 'signature', role: 'Buyer', page: 1, x: 300, y: 600, width: 180, height: 40 },
  { id: 'buyer-date', type: 'date', role: 'Buyer', page: 1, x: 300, y: 650, width: 120, height: 20, required: false },
];

describe('templates by API: POST, PATCH, DELETE /v1/templates (agent_editor)', () => {
  let stack: Stack;
  let owner: Account;
  let stranger: Account;
  let pdf: Uint8Array;
  let driveFileId: string;

  async function upload(account: Account, bytes: Uint8Array, filename = 'contract.pdf'): Promise<string> {
    const uploaded = await call(stack.url, 'POST', `/v1/assets?filename=${filename}`, {
      key: account.key,
      raw: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(uploaded.status, 201, uploaded.text);
    return uploaded.body.drive_file_id;
  }
  const create = (body: Record<string, unknown>, key = owner.key, url = stack.url): Promise<Reply> =>
    call(url, 'POST', '/v1/templates', { key, body });

  before(async () => {
    stack = await startStack();
    owner = await createAccount(stack.deps.db, { name: 'Olga Owner' });
    stranger = await createAccount(stack.deps.db, { name: 'Sam Stranger' });
    pdf = (await buildSampleNda()).pdf;
    driveFileId = await upload(owner, pdf);
  });
  after(() => stack?.close());

  it('creates a template from a Drive PDF, lists it, and documents are made from it', async () => {
    const created = await create({ drive_file_id: driveFileId, name: 'Sale', roles: ['Seller', 'Buyer'], widgets });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.template_id, /^tpl_/);
    assert.equal(created.body.name, 'Sale');
    assert.equal(created.body.page_count, 1);
    assert.deepEqual(created.body.roles, ['Seller', 'Buyer']);
    assert.deepEqual(
      created.body.widgets.map((widget: { id: string; required: boolean }) => [widget.id, widget.required]),
      [
        ['seller-sign', true],
        ['buyer-sign', true],
        ['buyer-date', false],
      ],
    );
    assert.equal(created.body.deleted_at, null);
    const listed = await call(stack.url, 'GET', '/v1/templates', { key: owner.key });
    assert.ok(listed.body.data.some((template: { template_id: string }) => template.template_id === created.body.template_id));
    const audit = await AuditEvent.query(stack.deps.db).where({ tenant_id: owner.tenantId, action: 'template.created' });
    assert.equal(audit.length, 1);
    assert.equal(audit[0].actor_type, 'agent');

    const document = await createDocument(stack, owner, {
      template_id: created.body.template_id,
      name: 'Sale of the boat',
      signers: [
        { name: 'Sally Seller', email: 'sally@example.test' },
        { name: 'Bob Buyer', email: 'bob@example.test' },
      ],
      send: true,
    });
    assert.equal(document.status, 201, document.text);
    assert.deepEqual(
      document.body.signers.map((signer: { role: string }) => signer.role),
      ['Seller', 'Buyer'],
    );
  });

  it('refuses widgets that leave the PDF’s pages, unknown roles, bad fields and a Drive file that is no PDF, naming the field', async () => {
    const count = await countTemplates();
    const offPage = await create({ drive_file_id: driveFileId, name: 'Bad', widgets: [{ ...widgets[0], page: 2 }] });
    assertErrorCode(offPage, 400, 'invalid_request');
    assert.match(offPage.text, /widgets\.0\.page/);
    const outside = await create({ drive_file_id: driveFileId, name: 'Bad', widgets: [{ ...widgets[0], x: 600 }] });
    assertErrorCode(outside, 400, 'invalid_request');
    assert.match(outside.body.error.message, /leaves page 1/);
    const role = await create({ drive_file_id: driveFileId, name: 'Bad', roles: ['Seller'], widgets });
    assertErrorCode(role, 400, 'invalid_request');
    assert.match(role.body.error.message, /widget role Buyer is not among the roles/);
    const kind = await create({ drive_file_id: driveFileId, name: 'Bad', widgets: [{ ...widgets[0], type: 'stamp' }] });
    assertErrorCode(kind, 400, 'invalid_request');
    assert.match(kind.text, /widgets\.0\.type/);
    const missing = await create({ name: 'Bad', widgets });
    assertErrorCode(missing, 400, 'invalid_request');
    assert.match(missing.text, /drive_file_id/);
    const sample = (await driveSamples()).find((file) => file.kind === 'zip')!;
    const zip = await upload(owner, sample.bytes, sample.name);
    const notPdf = await create({ drive_file_id: zip, name: 'Bad', widgets });
    assertErrorCode(notPdf, 400, 'invalid_request');
    assert.match(notPdf.body.error.message, /is a zip, not a PDF/);
    assert.equal(await countTemplates(), count, 'nothing was made');
  });

  it('refuses a PDF the safe intake refuses with 422 invalid_pdf', async () => {
    const broken = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from('not a pdf at all '.repeat(20))]);
    const id = await upload(owner, broken, 'broken.pdf');
    assertErrorCode(await create({ drive_file_id: id, name: 'Broken', widgets }), 422, 'invalid_pdf');
  });

  it('changes name, roles and widgets with PATCH, checks them against the PDF, and documents made before keep theirs', async () => {
    const created = await create({ drive_file_id: driveFileId, name: 'Lease', roles: ['Seller', 'Buyer'], widgets });
    const id = created.body.template_id;
    const before = await createDocument(stack, owner, {
      template_id: id,
      name: 'Lease one',
      signers: [
        { name: 'Sally Seller', email: 'sally@example.test' },
        { name: 'Bob Buyer', email: 'bob@example.test' },
      ],
    });
    assert.equal(before.status, 201, before.text);
    const renamed = await call(stack.url, 'PATCH', `/v1/templates/${id}`, { key: owner.key, body: { name: 'Lease 2027' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.name, 'Lease 2027');
    assert.equal(renamed.body.widgets.length, 3);
    assert.ok(renamed.body.updated_at);
    // Widgets alone keep the roles and their order while the roles cover them (not re-derived from the widgets' order).
    const kept = await call(stack.url, 'PATCH', `/v1/templates/${id}`, { key: owner.key, body: { widgets: [widgets[1], widgets[0]] } });
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.body.roles, ['Seller', 'Buyer']);

    const moved = [{ ...widgets[0], role: 'Tenant', x: 100, y: 100 }];
    const changed = await call(stack.url, 'PATCH', `/v1/templates/${id}`, { key: owner.key, body: { roles: ['Tenant'], widgets: moved } });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.roles, ['Tenant']);
    assert.deepEqual(
      changed.body.widgets.map((widget: { x: number; y: number; role: string }) => [widget.role, widget.x, widget.y]),
      [['Tenant', 100, 100]],
    );
    const again = await call(stack.url, 'GET', `/v1/templates/${id}`, { key: owner.key });
    assert.equal(again.body.name, 'Lease 2027');
    assert.deepEqual(again.body.roles, ['Tenant']);

    const offPage = await call(stack.url, 'PATCH', `/v1/templates/${id}`, {
      key: owner.key,
      body: { widgets: [{ ...widgets[0], y: 5000 - 40 }] },
    });
    assertErrorCode(offPage, 400, 'invalid_request');
    const orphan = await call(stack.url, 'PATCH', `/v1/templates/${id}`, { key: owner.key, body: { roles: ['Landlord'] } });
    assertErrorCode(orphan, 400, 'invalid_request');
    assert.match(orphan.body.error.message, /widget role Tenant is not among the roles/);
    assertErrorCode(await call(stack.url, 'PATCH', `/v1/templates/${id}`, { key: owner.key, body: {} }), 400, 'invalid_request');
    const extra = await call(stack.url, 'PATCH', `/v1/templates/${id}`, { key: owner.key, body: { pdf_sha256: 'x' } });
    assertErrorCode(extra, 400, 'invalid_request');
    assert.equal((await call(stack.url, 'GET', `/v1/templates/${id}`, { key: owner.key })).body.widgets.length, 1, 'nothing changed');

    const old = await call(stack.url, 'GET', `/v1/documents/${before.body.document_id}`, { key: owner.key });
    assert.deepEqual(
      old.body.signers.map((signer: { role: string }) => signer.role),
      ['Seller', 'Buyer'],
      'the document keeps the roles it was made with',
    );
  });

  it('deletes a template: no longer listed or usable, still readable by id, and its sent documents keep working', async () => {
    const created = await create({ drive_file_id: driveFileId, name: 'Short-lived', roles: ['Seller', 'Buyer'], widgets });
    const id = created.body.template_id;
    const sent = await createDocument(stack, owner, {
      template_id: id,
      name: 'Sent before the delete',
      signers: [
        { name: 'Sally Seller', email: 'sally@example.test' },
        { name: 'Bob Buyer', email: 'bob@example.test' },
      ],
      send: true,
    });
    assert.equal(sent.status, 201, sent.text);
    const deleted = await call(stack.url, 'DELETE', `/v1/templates/${id}`, { key: owner.key });
    assert.equal(deleted.status, 200, deleted.text);
    assert.ok(deleted.body.deleted_at);

    const listed = await call(stack.url, 'GET', '/v1/templates?limit=100', { key: owner.key });
    assert.ok(!listed.body.data.some((template: { template_id: string }) => template.template_id === id), 'not listed');
    const read = await call(stack.url, 'GET', `/v1/templates/${id}`, { key: owner.key });
    assert.equal(read.status, 200);
    assert.equal(read.body.deleted_at, deleted.body.deleted_at);
    const fresh = await createDocument(stack, owner, {
      template_id: id,
      name: 'After the delete',
      signers: [{ name: 'Sally Seller', email: 'sally@example.test' }],
    });
    assertErrorCode(fresh, 409, 'invalid_state');
    assert.match(fresh.body.error.message, /deleted/);

    const document = await call(stack.url, 'GET', `/v1/documents/${sent.body.document_id}`, { key: owner.key });
    assert.equal(document.body.status, 'sent');
    assert.equal(document.body.template_id, id);
    // Both signers sign after the delete, and the document completes.
    for (const signer of sent.body.signers) {
      const session = await new SignerSession(stack, signer.sign_url, signer.email).verify();
      const signed = await session.request('POST', '/sign', {
        consent: true,
        signature: { method: 'drawn', image: dataUrl(signaturePng()) },
        values: {},
      });
      assert.ok([200, 202].includes(signed.status), signed.text);
      await waitForDocument(
        stack,
        owner.key,
        sent.body.document_id,
        (doc) => doc.signers.find((s: { signer_id: string }) => s.signer_id === signer.signer_id).status === 'signed',
        `${signer.name} signed`,
      );
    }
    await waitForDocument(stack, owner.key, sent.body.document_id, (doc) => doc.status === 'completed', 'completed');
    const download = await call(stack.url, 'GET', `/v1/documents/${sent.body.document_id}/download`, { key: owner.key });
    assert.equal(download.status, 200, download.text);

    assertErrorCode(await call(stack.url, 'DELETE', `/v1/templates/${id}`, { key: owner.key }), 409, 'invalid_state');
    assertErrorCode(await call(stack.url, 'PATCH', `/v1/templates/${id}`, { key: owner.key, body: { name: 'x' } }), 409, 'invalid_state');
  });

  it('answers 404 for another tenant’s template or Drive file, 401 without a key, and changes nothing', async () => {
    const created = await create({ drive_file_id: driveFileId, name: 'Mine', widgets });
    const id = created.body.template_id;
    assertErrorCode(
      await call(stack.url, 'PATCH', `/v1/templates/${id}`, { key: stranger.key, body: { name: 'Theirs' } }),
      404,
      'not_found',
    );
    assertErrorCode(await call(stack.url, 'DELETE', `/v1/templates/${id}`, { key: stranger.key }), 404, 'not_found');
    assertErrorCode(await create({ drive_file_id: driveFileId, name: 'Stolen', widgets }, stranger.key), 404, 'not_found');
    assertErrorCode(await call(stack.url, 'PATCH', '/v1/templates/tpl_nothing', { key: owner.key, body: { name: 'x' } }), 404, 'not_found');
    assertErrorCode(
      await call(stack.url, 'POST', '/v1/templates', { body: { drive_file_id: driveFileId, name: 'x', widgets } }),
      401,
      'unauthorized',
    );
    const mine = await call(stack.url, 'GET', `/v1/templates/${id}`, { key: owner.key });
    assert.equal(mine.body.name, 'Mine');
    assert.equal(mine.body.deleted_at, null);
  });

  it('answers 403 feature_disabled with agent_editor off: create, change, delete, and documents from a Drive PDF with widgets', async () => {
    const created = await create({ drive_file_id: driveFileId, name: 'Kept', roles: ['Seller', 'Buyer'], widgets });
    const id = created.body.template_id;
    const off = await stack.withEnv({ SVC_FF: '{"agent_editor": false}' });
    try {
      assert.equal((await call(off.url, 'GET', '/v1/flags', { key: owner.key })).body.agent_editor, false);
      const refusals = [
        await create({ drive_file_id: driveFileId, name: 'Off', widgets }, owner.key, off.url),
        await call(off.url, 'PATCH', `/v1/templates/${id}`, { key: owner.key, body: { name: 'Off' } }),
        await call(off.url, 'DELETE', `/v1/templates/${id}`, { key: owner.key }),
        await call(off.url, 'POST', '/v1/documents', {
          key: owner.key,
          body: { drive_file_id: driveFileId, widgets, name: 'Off', signers: [{ name: 'Sally Seller', email: 'sally@example.test' }] },
        }),
      ];
      for (const reply of refusals) {
        assertErrorCode(reply, 403, 'feature_disabled');
        assert.equal(reply.body.error.message, 'The feature agent_editor is disabled for this deployment.');
      }
      // Reading templates and making documents from one are not the editor's work.
      assert.equal((await call(off.url, 'GET', `/v1/templates/${id}`, { key: owner.key })).status, 200);
      const fromTemplate = await call(off.url, 'POST', '/v1/documents', {
        key: owner.key,
        body: { template_id: id, name: 'Still fine', signers: [{ name: 'Sally Seller', email: 'sally@example.test' }] },
      });
      assert.equal(fromTemplate.status, 201, fromTemplate.text);
    } finally {
      await off.close();
    }
    const still = await call(stack.url, 'GET', `/v1/templates/${id}`, { key: owner.key });
    assert.equal(still.body.name, 'Kept');
    assert.equal(still.body.deleted_at, null);
    // With the flag on (the default), the same Drive document is made.
    const on = await call(stack.url, 'POST', '/v1/documents', {
      key: owner.key,
      body: { drive_file_id: driveFileId, widgets, name: 'On', signers: [{ name: 'Sally Seller', email: 'sally@example.test' }] },
    });
    assert.equal(on.status, 201, on.text);
  });

  async function countTemplates(): Promise<number> {
    const rows = await stack.deps.db('templates').where({ tenant_id: owner.tenantId }).count<{ count: string }[]>('* as count');
    return Number(rows[0].count);
  }
});
