// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { revokeMandate } from '../../activities/mandates/mandates';
import { Principal } from '../../db/models';
import { createDocument, downloadPdf, latestMail, SignerSession, seedSamples, waitForDocument } from '../../test/documents';
import { inboundNda, linkPath, nda, owner, principalWithL1, requestSign, stack, useL1Stack } from '../../test/fixtures/signing-l1';
import { call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { pdfsig, pdfText } from '../../test/pdf-tools';
import { AppClient, principalOf } from '../../test/principal';
import { waitFor } from '../../test/wait';

describe('L1: sign requests the principal confirms in the app', () => {
  useL1Stack();

  it('fails with mandate_inactive when the mandate is revoked before the confirmation', async () => {
    const { account, mandate, principal } = await principalWithL1();
    const document = await inboundNda(account);
    const created = await requestSign(account, document.document_id);
    await revokeMandate(stack.deps.db, await principalOf(stack, account), mandate.id, { type: 'principal', id: account.principalId });
    const app = await new AppClient(stack, (await principalOf(stack, account)).email).login();
    await app.post(`${linkPath(created.body.confirm_url)}/confirm`, {}, linkPath(created.body.confirm_url));
    const failed = await waitFor('the request to fail', async () => {
      const reply = await call(stack.url, 'GET', `/v1/sign-requests/${created.body.sign_request_id}`, { key: account.key });
      return reply.body.status === 'failed' ? reply : undefined;
    });
    assert.equal(failed.body.error.code, 'mandate_inactive');
    assert.equal(
      (await call(stack.url, 'GET', `/v1/documents/${document.document_id}`, { key: owner.key })).body.signers[0].status,
      'pending',
    );
    // The principal who confirmed is told it failed, and why.
    const mail = await waitFor('the principal to be told', () => latestMail(stack, principal.email, 'apply-rejected'));
    assert.match(mail.text, /could not be applied/);
    assert.match(mail.text, /mandate_inactive/);
    assert.match(mail.text, /Nothing was signed/);
  });

  it('mails the principal when a confirmed request cannot be applied (the stored signature became unreadable)', async () => {
    const { account, principal } = await principalWithL1();
    const document = await inboundNda(account);
    const created = await requestSign(account, document.document_id);
    // The principal's stored appearance is no longer a readable image when the apply runs.
    await Principal.query(stack.deps.db)
      .findById(principal.id)
      .patch({ signature_sha256: await stack.deps.blobs.put(Buffer.from('not an image')) });
    const app = await new AppClient(stack, principal.email).login();
    await app.post(`${linkPath(created.body.confirm_url)}/confirm`, {}, linkPath(created.body.confirm_url));
    const failed = await waitFor('the request to fail', async () => {
      const reply = await call(stack.url, 'GET', `/v1/sign-requests/${created.body.sign_request_id}`, { key: account.key });
      return reply.body.status === 'failed' ? reply : undefined;
    });
    assert.equal(failed.body.error.code, 'missing_appearance');
    const mail = await waitFor('the principal to be told', () => latestMail(stack, principal.email, 'apply-rejected'));
    assert.match(mail.text, /missing_appearance/);
  });

  it('revoking a mandate does not unwind a completed document', async () => {
    const { account, mandate } = await principalWithL1('L2');
    const principal = await principalOf(stack, account);
    const template = (await seedSamples(stack, account)).nda;
    // The principal's own outbound document, signed by them alone under the L2 mandate… plus a second role.
    const created = await createDocument(stack, account, {
      template_id: template.id,
      name: 'Own NDA',
      signers: [
        { name: principal.name, email: principal.email },
        { name: principal.name, email: principal.email },
      ],
      send: true,
    });
    assert.equal(
      (await call(stack.url, 'POST', `/v1/documents/${created.body.document_id}/sign`, { key: account.key, body: { reason: 'first' } }))
        .status,
      200,
    );
    const second = await call(stack.url, 'POST', `/v1/documents/${created.body.document_id}/sign`, {
      key: account.key,
      body: { reason: 'second' },
    });
    assert.equal(second.status, 422, 'the second role needs a Title the appearance cannot fill');

    const ownerDocument = await inboundNda(account);
    const other = ownerDocument.signers[1];
    assert.equal(
      (await call(stack.url, 'POST', `/v1/documents/${ownerDocument.document_id}/sign`, { key: account.key, body: { reason: 'agreed' } }))
        .status,
      200,
    );
    const session = await new SignerSession(stack, other.sign_url, other.email).verify();
    const titleId = nda.widgets.find((w) => w.role === 'Receiving Party' && w.type === 'text')!.id;
    assert.equal(
      (
        await session.request('POST', '/sign', {
          consent: true,
          signature: { method: 'drawn', image: dataUrl(signaturePng()) },
          values: { [titleId]: 'CEO' },
        })
      ).status,
      200,
    );
    const completed = await waitForDocument(stack, owner.key, ownerDocument.document_id, (d) => d.status === 'completed', 'completion');

    await revokeMandate(stack.deps.db, principal, mandate.id, { type: 'principal', id: principal.id });
    const after = await call(stack.url, 'GET', `/v1/documents/${ownerDocument.document_id}`, { key: owner.key });
    assert.equal(after.body.status, 'completed');
    assert.equal(after.body.document_hash, completed.document_hash, 'the PDF is unchanged');
    assert.equal(after.body.signers[0].status, 'signed');
    const pdf = await downloadPdf(stack, owner.key, ownerDocument.document_id);
    assert.ok((await pdfsig(pdf)).valid);
    assert.ok((await pdfText(pdf)).includes(`Mandate : ${mandate.id} (L2)`));
    const me = await call(stack.url, 'GET', '/v1/me', { key: account.key });
    assert.ok(!me.body.scopes.includes('documents:sign'), 'the scope left with the last mandate');
    assert.equal(me.body.signing_mandate, undefined);
  });
});
