// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEvent, Document } from '../../db/models';
import { createDocument, downloadPdf, SignerSession, seedSamples, waitForDocument } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { pdfText, pdfWords } from '../../test/pdf-tools';
import { mandatedAccount, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

// Issue 40, item 1: an agent prepares the document it sends. The sample NDA's Receiving Party has a
// required text field `receiving-title`, a dropdown `receiving-term` (1, 2 or 3 years) and a checkbox
// `receiving-copy`; the sender fills them by name, locked, and they are in the PDF from the start.

let stack: Stack;
let sender: Account;
let nda: { id: string; widgets: Array<{ id: string; x: number; y: number; width: number; height: number }> };

before(async () => {
  stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '60000' } });
  sender = await createAccount(stack.deps.db, { name: 'Sam Sender' });
  nda = (await seedSamples(stack, sender)).nda;
});
after(() => stack?.close());

const VALUES = { 'receiving-title': 'Chief Counsel', 'receiving-term': '2 years', 'receiving-copy': true };
const signers = () => [
  { name: 'Dana Discloser', email: `dana-${Date.now()}@example.test` },
  { name: 'Rob Receiver', email: `rob-${Date.now()}@example.test` },
];

/** The words pdftotext finds inside the widget `id`'s box on page 1 of `pdf`, in reading order. */
async function inWidget(pdf: Buffer, id: string): Promise<string> {
  const box = nda.widgets.find((widget) => widget.id === id)!;
  const inside = (await pdfWords(pdf)).filter(
    (word) =>
      word.page === 1 &&
      word.xMin >= box.x - 1 &&
      word.xMax <= box.x + box.width + 1 &&
      word.yMin >= box.y - 1 &&
      word.yMax <= box.y + box.height + 1,
  );
  return inside.map((word) => word.text).join(' ');
}

describe('POST /v1/documents with values: fields filled by name, locked', () => {
  it('stamps the values into the document before it is sent; the signer fills none of them; the completed PDF shows them where the widgets are', async () => {
    const created = await createDocument(stack, sender, {
      template_id: nda.id,
      name: 'Prefilled NDA',
      signers: signers(),
      values: VALUES,
      send: true,
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.document_id;

    // The PDF the signers are sent (the one `pre_sign_hash` will be of) already carries them.
    const sent = await downloadPdf(stack, sender.key, id);
    assert.equal(await inWidget(sent, 'receiving-title'), 'Chief Counsel');
    assert.equal(await inWidget(sent, 'receiving-term'), '2 years');
    const audit = await AuditEvent.query(stack.deps.db).findOne({ document_id: id, action: 'document.created' });
    assert.deepEqual((audit!.data as { prefilled: string[] }).prefilled.sort(), Object.keys(VALUES).sort());

    const [disclosing, receiving] = created.body.signers;
    const rob = await new SignerSession(stack, receiving.sign_url, receiving.email).verify();
    const state = await rob.request('GET', '/state');
    assert.equal(state.status, 200, state.text);
    const ids = state.body.widgets.map((widget: { id: string }) => widget.id);
    for (const name of Object.keys(VALUES)) assert.ok(!ids.includes(name), `${name} is not a field the signer fills`);

    // A locked field cannot be changed at the sign link: it is not one of the signer's fields.
    const changed = await rob.sign({ 'receiving-title': 'Intern' });
    assert.equal(changed.status, 400, changed.text);
    assert.deepEqual(
      changed.body.error.details.map((detail: { path: string }) => detail.path),
      ['values.receiving-title'],
    );
    // Without the title (required) the signer's sign goes through: the sender filled it.
    assert.equal((await rob.sign()).status, 200);
    const dana = await new SignerSession(stack, disclosing.sign_url, disclosing.email).verify();
    assert.equal((await dana.sign()).status, 200);
    await waitForDocument(stack, sender.key, id, (document) => document.status === 'completed', 'the document to complete');

    const completed = await downloadPdf(stack, sender.key, id);
    assert.equal(await inWidget(completed, 'receiving-title'), 'Chief Counsel');
    assert.equal(await inWidget(completed, 'receiving-term'), '2 years');
    assert.doesNotMatch(await pdfText(completed), /Intern/);
  });

  it('an editable value is the signer’s to keep or change: a change replaces it in their revision and is audited', async () => {
    const values = {
      'receiving-title': { value: 'Chief Counsel', editable: true },
      'receiving-term': { value: '1 year', editable: true },
    };
    const created = await createDocument(stack, sender, {
      template_id: nda.id,
      name: 'Editable NDA',
      signers: signers(),
      values,
      send: true,
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.document_id;
    const sent = await downloadPdf(stack, sender.key, id);
    assert.equal(await inWidget(sent, 'receiving-title'), 'Chief Counsel');

    const [disclosing, receiving] = created.body.signers;
    const rob = await new SignerSession(stack, receiving.sign_url, receiving.email).verify();
    const state = await rob.request('GET', '/state');
    const title = state.body.widgets.find((widget: { id: string }) => widget.id === 'receiving-title');
    assert.deepEqual([title.mine, title.unfilled, title.prefill], [true, false, { value: 'Chief Counsel', editable: true }]);
    assert.equal((await rob.sign({ 'receiving-title': 'General Counsel' })).status, 200);
    const dana = await new SignerSession(stack, disclosing.sign_url, disclosing.email).verify();
    assert.equal((await dana.sign()).status, 200);
    await waitForDocument(stack, sender.key, id, (document) => document.status === 'completed', 'the document to complete');

    const completed = await downloadPdf(stack, sender.key, id);
    assert.equal(await inWidget(completed, 'receiving-title'), 'General Counsel');
    assert.equal(await inWidget(completed, 'receiving-term'), '1 year', 'kept as prefilled');
    assert.doesNotMatch(await pdfText(completed), /Chief Counsel/, 'the replaced value is in no later revision');
    const lines = await AuditEvent.query(stack.deps.db).where({ document_id: id, action: 'signature.submitted' });
    const submitted = lines.find((line) => 'prefill_changed' in line.data);
    assert.ok(submitted, 'the signer’s audit line names the change');
    assert.deepEqual((submitted.data as { prefill_changed: unknown }).prefill_changed, [
      { field: 'receiving-title', from: 'Chief Counsel', to: 'General Counsel' },
    ]);

    const refused = await createDocument(stack, sender, {
      template_id: nda.id,
      name: 'Editable box',
      signers: signers(),
      values: { 'receiving-copy': { value: true, editable: true } },
    });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.error.details[0].message, /only text and dropdown values may be editable/);
  });

  it('binds the values by the hash: the same template without them is another PDF', async () => {
    const plain = await createDocument(stack, sender, { template_id: nda.id, name: 'Plain NDA', signers: signers() });
    const filled = await createDocument(stack, sender, { template_id: nda.id, name: 'Plain NDA', signers: signers(), values: VALUES });
    assert.equal(filled.status, 201, filled.text);
    const [a, b] = await Promise.all([plain, filled].map((reply) => Document.query(stack.deps.db).findById(reply.body.document_id)));
    assert.notEqual(a!.current_sha256, b!.current_sha256);
    assert.doesNotMatch(await pdfText(await downloadPdf(stack, sender.key, plain.body.document_id)), /Chief Counsel/);
  });

  it('refuses a value that does not suit its field (400 naming each field) and makes nothing', async () => {
    const before = await Document.query(stack.deps.db).where({ tenant_id: sender.tenantId }).resultSize();
    const reply = await createDocument(stack, sender, {
      template_id: nda.id,
      name: 'Wrong values',
      signers: signers(),
      values: {
        'receiving-term': '9 years',
        'receiving-copy': 'yes',
        'receiving-name': 'Rob',
        'no-such-field': 'x',
        'receiving-title': ' ',
      },
    });
    assert.equal(reply.status, 400, reply.text);
    assert.equal(reply.body.error.code, 'invalid_request');
    const byPath = Object.fromEntries(
      reply.body.error.details.map((detail: { path: string; message: string }) => [detail.path, detail.message]),
    );
    assert.match(byPath['values.receiving-term'], /1 year, 2 years, 3 years/);
    assert.match(byPath['values.receiving-copy'], /true or false/);
    assert.match(byPath['values.receiving-name'], /filled from the signer/);
    assert.match(byPath['values.no-such-field'], /no field of this name.*receiving-title/);
    assert.match(byPath['values.receiving-title'], /blank/);
    assert.match(reply.body.error.message, /receiving-term/);
    assert.equal(await Document.query(stack.deps.db).where({ tenant_id: sender.tenantId }).resultSize(), before);
  });

  it('lets an agent prefill its own principal’s required field, so the L2 sign by mandate completes it', async () => {
    const { account: agent } = await mandatedAccount(stack, { name: 'Paula Principal', label: 'contracts agent' });
    const principal = await principalOf(stack, agent);
    const paula = { name: principal.name, email: principal.email };
    const other = { name: 'Carl Counterparty', email: `carl-${Date.now()}@example.test` };
    const unfilled = await createDocument(stack, sender, { template_id: nda.id, name: 'Inbound NDA', signers: [other, paula], send: true });
    const refused = await call(stack.url, 'POST', `/v1/documents/${unfilled.body.document_id}/sign`, {
      key: agent.key,
      body: { reason: 'NDA' },
    });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.error.code, 'unfilled_fields');

    const prepared = await createDocument(stack, sender, {
      template_id: nda.id,
      name: 'Inbound NDA',
      signers: [other, paula],
      values: { 'receiving-title': 'Head of Legal' },
      send: true,
    });
    const signed = await call(stack.url, 'POST', `/v1/documents/${prepared.body.document_id}/sign`, {
      key: agent.key,
      body: { reason: 'NDA' },
    });
    assert.equal(signed.status, 200, signed.text);
    assert.match(await pdfText(await downloadPdf(stack, sender.key, prepared.body.document_id)), /Head of Legal/);
  });
});

describe('POST /v1/documents/bulk with values per item', () => {
  it('stamps each item’s values into its document; a wrong value in one item refuses the whole request, naming the item', async () => {
    // Two items: the first titled Buyer, the second given these values.
    const bulk = (second: Record<string, string>) =>
      call(stack.url, 'POST', '/v1/documents/bulk', {
        key: sender.key,
        body: {
          template_id: nda.id,
          name: 'Bulk NDAs',
          items: [
            { signers: signers(), values: { 'receiving-title': 'Buyer' } },
            { signers: signers(), values: second },
          ],
        },
      });
    const wrong = await bulk({ 'receiving-term': 'forever' });
    assert.equal(wrong.status, 400, wrong.text);
    assert.deepEqual(
      wrong.body.error.details.map((detail: { path: string }) => detail.path),
      ['items.1.values.receiving-term'],
    );

    const started = await bulk({ 'receiving-title': 'Seller' });
    assert.equal(started.status, 202, started.text);
    const done = await waitFor(
      'the bulk to finish',
      async () => {
        const reply = await call(stack.url, 'GET', `/v1/bulk/${started.body.bulk_id}`, { key: sender.key });
        return reply.body.status !== 'running' && reply.body;
      },
      60_000,
      250,
    );
    const texts = await Promise.all(
      done.items.map((item: { document_id: string }) => downloadPdf(stack, sender.key, item.document_id).then(pdfText)),
    );
    assert.match(texts[0], /Buyer/);
    assert.match(texts[1], /Seller/);
  });
});
