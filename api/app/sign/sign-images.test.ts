import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Template } from '../../../db/models';
import { createDocument, SignerSession, seedSamples, waitForDocument } from '../../../test/documents';
import { type Account, createAccount } from '../../../test/factories';
import { assertErrorCode } from '../../../test/http';
import { blankPng, dataUrl, signaturePng } from '../../../test/images';
import { type Stack, startStack } from '../../../test/stack';

describe('images a signer submits on the sign page', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;
  /** 5000×5000 RGBA at 16 bits: 200 MB of pixels in about 190 KB. */
  const bomb = dataUrl(blankPng(5000, 5000, { bitDepth: 16 }));

  before(async () => {
    stack = await startStack();
    owner = await createAccount(stack.deps.db);
    ({ nda } = await seedSamples(stack, owner));
  });
  after(() => stack.close());

  async function firstSigner(): Promise<{ id: string; signer: SignerSession }> {
    const tag = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: 'NDA',
      signers: [
        { name: 'Ann Able', email: `ann-${tag}@example.test` },
        { name: 'Bob Baker', email: `bob-${tag}@example.test` },
      ],
      send: true,
    });
    assert.equal(created.status, 201, created.text);
    const [first] = created.body.signers as Array<{ sign_url: string; email: string }>;
    return { id: created.body.document_id, signer: await new SignerSession(stack, first.sign_url, first.email).verify() };
  }

  it('refuses a signature or initials image past the limits with 400, naming the field, and records no apply', async () => {
    const { id, signer } = await firstSigner();
    const big = await signer.request('POST', '/sign', { consent: true, signature: { method: 'uploaded', image: bomb }, values: {} });
    assertErrorCode(big, 400, 'invalid_request');
    assert.equal(big.body.error.details[0].path, 'signature.image');
    assert.match(big.body.error.message, /5000×5000 pixels .* the limit is 4 megapixels and 16 MiB/);
    const initials = await signer.request('POST', '/sign', {
      consent: true,
      signature: { method: 'drawn', image: dataUrl(signaturePng()) },
      initials: { image: bomb },
      values: {},
    });
    assertErrorCode(initials, 400, 'invalid_request');
    assert.equal(initials.body.error.details[0].path, 'initials.image');
    assert.equal((await stack.deps.db('applies').where({ document_id: id })).length, 0);
  });

  it('still refuses a PNG with a corrupt CRC as unreadable', async () => {
    const { signer } = await firstSigner();
    const corrupt = signaturePng();
    corrupt[45] ^= 0xff;
    assertErrorCode(
      await signer.request('POST', '/sign', { consent: true, signature: { method: 'uploaded', image: dataUrl(corrupt) }, values: {} }),
      422,
      'missing_appearance',
    );
  });

  it('signs with an image at the limit: 2000×2000 RGBA, stamped by the worker', async () => {
    const { id, signer } = await firstSigner();
    const signed = await signer.request('POST', '/sign', {
      consent: true,
      signature: { method: 'uploaded', image: dataUrl(blankPng(2000, 2000)) },
      values: {},
    });
    assert.ok(signed.status === 200 || signed.status === 202, signed.text);
    await waitForDocument(stack, owner.key, id, (document) => document.signers[0].status === 'signed', 'the first signer to be signed');
  });
});
