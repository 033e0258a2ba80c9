import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Template } from '../../db/models';
import { createDocument, latestMail, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { assertPaging } from '../../test/paging';
import { pdfsig } from '../../test/pdf-tools';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

describe('documents and templates API', () => {
  let stack: Stack;
  let owner: Account;
  let stranger: Account;
  let templates: { nda: Template; services: Template };
  const signers = [
    { name: 'Ann Disclosing', email: 'ann@example.test' },
    { name: 'Bob Receiving', email: 'bob@example.test' },
  ];

  before(async () => {
    stack = await startStack({ env: { SVC_DOWNLOAD_URL_TTL_MS: '1500' } });
    owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    stranger = await createAccount(stack.deps.db, { name: 'Sam Stranger' });
    templates = await seedSamples(stack, owner);
  });
  after(() => stack.close());

  describe('templates', () => {
    it('lists and shows the account’s templates with roles and widgets', async () => {
      const list = await call(stack.url, 'GET', '/v1/templates', { key: owner.key });
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.data.map((t: { template_id: string }) => t.template_id).sort(),
        [templates.nda.id, templates.services.id].sort(),
      );
      assert.equal(list.body.next_cursor, null);
      const nda = await call(stack.url, 'GET', `/v1/templates/${templates.nda.id}`, { key: owner.key });
      assert.equal(nda.status, 200);
      assert.deepEqual(nda.body.roles, ['Disclosing Party', 'Receiving Party']);
      assert.equal(nda.body.page_count, 1);
      assert.ok(nda.body.widgets.some((w: { type: string; role: string }) => w.type === 'signature' && w.role === 'Receiving Party'));
      const services = await call(stack.url, 'GET', `/v1/templates/${templates.services.id}`, { key: owner.key });
      assert.equal(services.body.page_count, 50);
    });

    it('pages with a cursor', async () => {
      const first = await call(stack.url, 'GET', '/v1/templates?limit=1', { key: owner.key });
      assert.equal(first.body.data.length, 1);
      assert.ok(first.body.next_cursor);
      const second = await call(stack.url, 'GET', `/v1/templates?limit=1&cursor=${first.body.next_cursor}`, { key: owner.key });
      assert.equal(second.body.data.length, 1);
      assert.notEqual(second.body.data[0].template_id, first.body.data[0].template_id);
      assert.equal(second.body.next_cursor, null);
      const bad = await call(stack.url, 'GET', '/v1/templates?cursor=garbage', { key: owner.key });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.details[0].path, 'query.cursor');
      await assertPaging(stack.url, '/v1/templates', owner.key, 'template_id', 2);
    });

    it('answers 404 for another tenant’s template, and lists none of them', async () => {
      assert.equal((await call(stack.url, 'GET', `/v1/templates/${templates.nda.id}`, { key: stranger.key })).status, 404);
      assert.deepEqual((await call(stack.url, 'GET', '/v1/templates', { key: stranger.key })).body.data, []);
    });
  });

  describe('creating and sending', () => {
    it('creates a sent document with sign links and next actions, sealed from the start', async () => {
      const created = await createDocument(stack, owner, { template_id: templates.nda.id, name: 'Mutual NDA', signers, send: true });
      assert.equal(created.status, 201, created.text);
      assert.match(created.body.document_id, /^doc_/);
      assert.equal(created.body.status, 'sent');
      assert.equal(created.body.direction, 'outbound');
      assert.equal(created.body.signers.length, 2);
      for (const [index, signer] of created.body.signers.entries()) {
        assert.equal(signer.email, signers[index].email);
        assert.equal(signer.role, templates.nda.roles[index]);
        assert.equal(signer.status, 'pending');
        assert.match(signer.sign_url, new RegExp(`^${stack.config.appUrl}/sign/sgn_[0-9A-Za-z]{20}\\.[A-Za-z0-9_-]+$`));
      }
      assert.ok(created.body.next_actions.some((a: { action: string }) => a.action === 'download'));
      assert.equal(created.body.original_sha256, created.body.document_hash);

      const download = await call(stack.url, 'GET', `/v1/documents/${created.body.document_id}/download`, { key: owner.key });
      assert.equal(download.status, 200);
      const pdf = await fetch(download.body.url.replace(stack.config.publicUrl, stack.url));
      assert.equal(pdf.status, 200);
      assert.equal(pdf.headers.get('content-type'), 'application/pdf');
      assert.equal(pdf.headers.get('x-content-sha256'), created.body.document_hash);
      const { valid, report } = await pdfsig(Buffer.from(await pdf.arrayBuffer()));
      assert.ok(valid, report);
    });

    it('keeps a draft until sent, adds signers only to a draft, and sends once', async () => {
      const draft = await createDocument(stack, owner, { template_id: templates.nda.id, name: 'Draft NDA', signers: signers.slice(0, 1) });
      assert.equal(draft.status, 201);
      assert.equal(draft.body.status, 'draft');
      assert.deepEqual(
        draft.body.next_actions.map((a: { action: string }) => a.action),
        ['add_signers', 'download'],
      );
      const id = draft.body.document_id;

      const early = await call(stack.url, 'POST', `/v1/documents/${id}/send`, { key: owner.key, body: { confirm: true } });
      assert.equal(early.status, 409);
      assert.equal(early.body.error.code, 'invalid_state');
      assert.match(early.body.error.message, /Receiving Party/);

      const tooMany = await call(stack.url, 'POST', `/v1/documents/${id}/signers`, { key: owner.key, body: { signers } });
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.body.error.details[0].path, 'signers');

      const added = await call(stack.url, 'POST', `/v1/documents/${id}/signers`, { key: owner.key, body: { signers: signers.slice(1) } });
      assert.equal(added.status, 200, added.text);
      assert.deepEqual(
        added.body.signers.map((s: { role: string }) => s.role),
        ['Disclosing Party', 'Receiving Party'],
      );
      assert.deepEqual(added.body.next_actions[0], {
        action: 'send',
        method: 'POST',
        path: `/v1/documents/${id}/send`,
        body: { confirm: true },
        description: 'Send the document to its signers.',
      });

      const sent = await call(stack.url, 'POST', `/v1/documents/${id}/send`, { key: owner.key, body: { confirm: true } });
      assert.equal(sent.status, 200, sent.text);
      assert.equal(sent.body.status, 'sent');
      const again = await call(stack.url, 'POST', `/v1/documents/${id}/send`, { key: owner.key, body: { confirm: true } });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'invalid_state');
      const late = await call(stack.url, 'POST', `/v1/documents/${id}/signers`, { key: owner.key, body: { signers: signers.slice(0, 1) } });
      assert.equal(late.status, 409);
      assert.equal(late.body.error.code, 'invalid_state');
    });

    it('e-mails each signer their sign link when sent', async () => {
      const created = await createDocument(stack, owner, {
        template_id: templates.nda.id,
        name: 'Invite check',
        signers: [
          { name: 'Ivy', email: 'ivy@example.test' },
          { name: 'Jo', email: 'jo@example.test' },
        ],
        send: true,
      });
      for (const signer of created.body.signers) {
        const mail = await waitFor(`the invitation of ${signer.email}`, async () => latestMail(stack, signer.email, 'sign-invite'), 15_000);
        assert.ok(mail.text.includes(signer.sign_url), 'the invitation carries the signer’s own link');
        const token = new URL(signer.sign_url).pathname.split('/').pop()!;
        const stored = await stack.deps.db('mail_outbox').where({ purpose: 'sign-invite', to_address: signer.email }).first();
        assert.ok(
          stored && !stored.text.includes(token) && !(stored.sealed ?? '').includes(token),
          'the outbox keeps no link token in the clear',
        );
      }
    });

    it('refuses an unknown template, an empty signer list and bad types, naming the field', async () => {
      const unknown = await createDocument(stack, owner, { template_id: 'tpl_nope', name: 'x', signers });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.code, 'not_found');
      const empty = await createDocument(stack, owner, { template_id: templates.nda.id, name: 'x', signers: [] });
      assert.equal(empty.status, 400);
      assert.equal(empty.body.error.details[0].path, 'signers');
      const three = await createDocument(stack, owner, {
        template_id: templates.nda.id,
        name: 'x',
        signers: [...signers, { name: 'C', email: 'c@example.test' }],
      });
      assert.equal(three.status, 400);
    });

    it('refuses a signer name that carries a line only the certificate of completion writes (400, naming the field)', async () => {
      for (const name of ['Eve Signer (via authorized agent)', 'Eve   Mandate :  mdt_x (L2)', 'Eve\nsigner (VIA authorised\tagent)']) {
        const forged = await createDocument(stack, owner, {
          template_id: templates.nda.id,
          name: 'x',
          signers: [signers[0], { name, email: 'eve@example.test' }],
        });
        assert.equal(forged.status, 400, `${JSON.stringify(name)}: ${forged.text}`);
        assert.equal(forged.body.error.code, 'invalid_request');
        assert.equal(forged.body.error.details[0].path, 'signers.1.name');
        assert.match(forged.body.error.details[0].message, /Signer \(via authorized agent\)/);
      }
      // Ordinary names that only come near them are fine.
      const fine = await createDocument(stack, owner, {
        template_id: templates.nda.id,
        name: 'x',
        signers: [signers[0], { name: 'Mandy Signer', email: 'mandy@example.test' }],
      });
      assert.equal(fine.status, 201, fine.text);
    });
  });

  describe('reading', () => {
    it('shows an inbound document to a signer’s principal in another tenant, without sign links', async () => {
      const created = await createDocument(stack, owner, {
        template_id: templates.nda.id,
        name: 'Inbound NDA',
        signers: [signers[0], { name: 'Sam Stranger', email: stranger.email }],
        send: true,
      });
      const seen = await call(stack.url, 'GET', `/v1/documents/${created.body.document_id}`, { key: stranger.key });
      assert.equal(seen.status, 200, seen.text);
      assert.equal(seen.body.direction, 'inbound');
      assert.ok(seen.body.signers.every((s: { sign_url?: string }) => s.sign_url === undefined));
      const inbox = await call(stack.url, 'GET', '/v1/documents?direction=inbound', { key: stranger.key });
      assert.ok(inbox.body.data.some((d: { document_id: string }) => d.document_id === created.body.document_id));
      const download = await call(stack.url, 'GET', `/v1/documents/${created.body.document_id}/download`, { key: stranger.key });
      assert.equal(download.status, 200);
      const draft = await createDocument(stack, owner, {
        template_id: templates.nda.id,
        name: 'Unsent',
        signers: [signers[0], { name: 'Sam', email: stranger.email }],
      });
      assert.equal(
        (await call(stack.url, 'GET', `/v1/documents/${draft.body.document_id}`, { key: stranger.key })).status,
        404,
        'a draft is not inbound yet',
      );
    });

    it('lists outbound documents newest first, with a cursor', async () => {
      const first = await call(stack.url, 'GET', '/v1/documents?limit=2', { key: owner.key });
      assert.equal(first.status, 200);
      assert.equal(first.body.data.length, 2);
      const second = await call(stack.url, 'GET', `/v1/documents?limit=2&cursor=${first.body.next_cursor}`, { key: owner.key });
      const ids = [...first.body.data, ...second.body.data].map((d: { document_id: string }) => d.document_id);
      assert.equal(new Set(ids).size, ids.length);
      const times = [...first.body.data, ...second.body.data].map((d: { created_at: string }) => Date.parse(d.created_at));
      assert.deepEqual(
        [...times].sort((a, b) => b - a),
        times,
      );
    });

    it('keeps the list convention outbound and inbound: every page size, the same order; a bad cursor or limit is 400', async () => {
      const sender = await createAccount(stack.deps.db, { name: 'Paige Pager' });
      const { nda } = await seedSamples(stack, sender);
      const recipient = await createAccount(stack.deps.db, { name: 'Ria Recipient' });
      const they = { name: 'Ria Recipient', email: recipient.email };
      for (let n = 0; n < 3; n += 1) {
        const created = await createDocument(stack, sender, {
          template_id: nda.id,
          name: `Paged ${n}`,
          signers: [they, signers[1]],
          send: n < 2,
        });
        assert.equal(created.status, 201, created.text);
      }
      await assertPaging(stack.url, '/v1/documents', sender.key, 'document_id', 3);
      await assertPaging(stack.url, '/v1/documents?direction=inbound', recipient.key, 'document_id', 2);
    });

    it('expires download links', async () => {
      const created = await createDocument(stack, owner, { template_id: templates.nda.id, name: 'Expiring', signers });
      const download = await call(stack.url, 'GET', `/v1/documents/${created.body.document_id}/download`, { key: owner.key });
      const url = download.body.url.replace(stack.config.publicUrl, stack.url);
      assert.equal((await fetch(url)).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 1700));
      const expired = await fetch(url);
      assert.equal(expired.status, 410);
      assert.equal(((await expired.json()) as { error: { code: string } }).error.code, 'expired');
      const forged = await fetch(url.replace(/token=[^.]+/, 'token=eyJ4Ijo'));
      assert.equal(forged.status, 410);
    });
  });

  describe('another tenant', () => {
    it('gets 404 on every document route of a document it has no part in', async () => {
      const created = await createDocument(stack, owner, { template_id: templates.nda.id, name: 'Private', signers: signers.slice(0, 1) });
      const id = created.body.document_id;
      const routes: Array<[string, string, unknown?]> = [
        ['GET', `/v1/documents/${id}`],
        ['POST', `/v1/documents/${id}/signers`, { signers: signers.slice(1) }],
        ['POST', `/v1/documents/${id}/send`, { confirm: true }],
        ['GET', `/v1/documents/${id}/download`],
      ];
      for (const [method, route, body] of routes) {
        const reply = await call(stack.url, method, route, { key: stranger.key, body });
        assert.equal(reply.status, 404, `${method} ${route}: ${reply.text}`);
        assert.equal(reply.body.error.code, 'not_found');
      }
      const list = await call(stack.url, 'GET', '/v1/documents', { key: stranger.key });
      assert.ok(!list.body.data.some((d: { document_id: string }) => d.document_id === id));
      const fromStrangersTemplate = await createDocument(stack, stranger, { template_id: templates.nda.id, name: 'x', signers });
      assert.equal(fromStrangersTemplate.status, 404);
      const after = await call(stack.url, 'GET', `/v1/documents/${id}`, { key: owner.key });
      assert.equal(after.body.status, 'draft', 'the stranger’s send did nothing');
      assert.equal(after.body.signers.length, 1, 'the stranger’s signers were not added');
    });
  });
});
