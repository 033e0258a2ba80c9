// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AuditEvent, Event, Transfer } from '../../db/models';
import { latestMail, SignerSession, seedSamples, sentNda } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { driveSamples } from '../../test/files';
import { assertErrorCode, call, type Reply } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { AppClient, mandatedAccount, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('transfers: share, sign-to-unlock and accept-to-unlock packages, claims and downloads', () => {
  let stack: Stack;
  let sender: Account;
  let samples: Awaited<ReturnType<typeof driveSamples>>;

  before(async () => {
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '30000', SVC_TRANSFER_RECHECK_MS: '500' } });
    ({ account: sender } = await mandatedAccount(stack, { level: 'L2', name: 'Sam Sender' }));
    samples = await driveSamples();
  });
  after(() => stack.close());

  async function upload(account: Account, index: number): Promise<string> {
    const sample = samples[index];
    const reply = await call(stack.url, 'POST', `/v1/assets?filename=${sample.name}`, {
      key: account.key,
      raw: sample.bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(reply.status, 201, reply.text);
    return reply.body.drive_file_id;
  }

  async function create(body: Record<string, unknown>, account = sender): Promise<Reply> {
    return call(stack.url, 'POST', '/v1/transfers', { key: account.key, body });
  }

  async function offered(body: Record<string, unknown>, account = sender) {
    const created = await create(body, account);
    assert.equal(created.status, 201, created.text);
    const offer = await call(stack.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, {
      key: account.key,
      body: { confirm: true },
    });
    assert.equal(offer.status, 200, offer.text);
    return offer.body;
  }

  const publicGet = (token: string) => call(stack.url, 'GET', `/v1/public/transfers/${token}`);
  const publicDownloads = (token: string) => call(stack.url, 'POST', `/v1/public/transfers/${token}/downloads`);
  /** A download URL as the test server serves it (the link carries SVC_PUBLIC_URL's host). */
  const local = (url: string) => url.replace(stack.config.publicUrl, stack.url);
  const releasedEvents = async (transferId: string) =>
    (await Event.query(stack.deps.db).where({ event: 'transfer.released' })).filter((event) => event.data.transfer_id === transferId)
      .length;

  it('share: offered with claim links and tokens shown once, released at once; guests download each file by its SHA-256, with Range', async () => {
    const files = [await upload(sender, 0), await upload(sender, 4)];
    const recipient = { email: `rita-${Date.now()}@example.test`, name: 'Rita Recipient' };
    const created = await create({ name: 'Quarterly pack', drive_file_ids: files, recipients: [recipient] });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.transfer_id, /^xfr_/);
    assert.equal(created.body.mode, 'share');
    assert.equal(created.body.status, 'created');
    assert.equal(created.body.can_release, false);
    assertErrorCode(
      await call(stack.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, { key: sender.key, body: { confirm: false } }),
      400,
      'invalid_request',
    );
    const offer = await call(stack.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, {
      key: sender.key,
      body: { confirm: true },
    });
    assert.equal(offer.status, 200, offer.text);
    const [rcpt] = offer.body.recipients;
    assert.match(rcpt.token, /^svcxfer_[0-9A-Za-z]{32}$/);
    assert.equal(rcpt.claim_url, `${stack.config.appUrl}/claim/${rcpt.token}`);
    assert.equal(offer.body.status, 'released');
    assert.equal(offer.body.can_release, true);
    const row = await stack.deps.db('transfer_recipients').where({ transfer_id: created.body.transfer_id }).first();
    assert.equal(row.token_hash, sha256(Buffer.from(rcpt.token)), 'only the SHA-256 of the token is stored');
    assert.ok(!JSON.stringify(row).includes(rcpt.token));
    const mail = await waitFor('the claim mail', () => latestMail(stack, recipient.email, 'transfer-offer'));
    assert.ok(mail.text.includes(rcpt.claim_url));
    // The token is shown once: a second offer is refused, and GET never shows it.
    assertErrorCode(
      await call(stack.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, { key: sender.key, body: { confirm: true } }),
      409,
      'invalid_state',
    );
    const detail = await call(stack.url, 'GET', `/v1/transfers/${created.body.transfer_id}`, { key: sender.key });
    assert.ok(!detail.text.includes(rcpt.token));
    assert.deepEqual(
      detail.body.files.map((f: { sha256: string }) => f.sha256),
      [samples[0], samples[4]].map((s) => sha256(s.bytes)),
    );

    const metadata = await publicGet(rcpt.token);
    assert.equal(metadata.status, 200, metadata.text);
    assert.equal(metadata.body.can_release, true);
    assert.equal(metadata.body.from.email, sender.email);
    assert.ok(!/https?:\/\//.test(metadata.text), 'guest metadata carries no file URL');
    assert.equal(metadata.headers.get('referrer-policy'), 'no-referrer');

    const downloads = await publicDownloads(rcpt.token);
    assert.equal(downloads.status, 200, downloads.text);
    const minted = await AuditEvent.query(stack.deps.db).where({ action: 'transfer.downloads_minted', actor_type: 'recipient' });
    assert.ok(
      minted.some((line) => line.data.transfer_id === created.body.transfer_id),
      'the guest’s download links are on the record',
    );
    for (const [index, file] of downloads.body.files.entries()) {
      const response = await fetch(local(file.url));
      assert.equal(response.status, 200);
      const bytes = Buffer.from(await response.arrayBuffer());
      assert.equal(sha256(bytes), file.sha256);
      assert.equal(response.headers.get('x-content-sha256'), file.sha256);
      assert.equal(Number(response.headers.get('content-length')), bytes.length);
      assert.equal(bytes.length, [samples[0], samples[4]][index].bytes.length);
    }
    const pdf = samples[0].bytes;
    const ranged = await fetch(local(downloads.body.files[0].url), { headers: { range: 'bytes=10-99' } });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers.get('content-range'), `bytes 10-99/${pdf.length}`);
    assert.deepEqual(Buffer.from(await ranged.arrayBuffer()), pdf.subarray(10, 100));
    const head = await fetch(local(downloads.body.files[0].url), { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers.get('content-length')), pdf.length);
    assert.equal(head.headers.get('x-content-sha256'), sha256(pdf));
    const beyond = await fetch(local(downloads.body.files[0].url), { headers: { range: `bytes=${pdf.length + 5}-` } });
    assert.equal(beyond.status, 416);
    const forged = local(downloads.body.files[0].url).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    assert.equal((await fetch(forged)).status, 410);
    assert.equal(await releasedEvents(created.body.transfer_id), 1, 'transfer.released once');
  });

  it('sign-to-unlock: nothing downloads until the linked document completes; then it is released, once', async () => {
    const { nda } = await seedSamples(stack, sender);
    const principal = await principalOf(stack, sender);
    const document = await sentNda(stack, sender, nda, principal, { name: 'Unlocking NDA', other: { name: 'Otis Other' } });
    const file = await upload(sender, 5);
    const recipient = { email: `una-${Date.now()}@example.test`, name: 'Una' };
    const body = await offered({ name: 'Signed pack', drive_file_ids: [file], recipients: [recipient], document_id: document.document_id });
    assert.equal(body.mode, 'sign');
    assert.equal(body.status, 'offered');
    assert.equal(body.can_release, false);
    const token = body.recipients[0].token;
    assertErrorCode(await publicDownloads(token), 409, 'invalid_state');
    assertErrorCode(
      await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/downloads`, { key: sender.key }),
      409,
      'invalid_state',
    );

    const signed = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
      key: sender.key,
      body: { reason: 'ours' },
    });
    assert.equal(signed.status, 200, signed.text);
    assert.equal((await publicGet(token)).body.can_release, false, 'one signature is not completion');
    const other = document.signers[1];
    const session = await new SignerSession(stack, other.sign_url, other.email).verify();
    const done = await session.request('POST', '/sign', {
      consent: true,
      signature: { method: 'typed', image: dataUrl(signaturePng()) },
      values: { 'receiving-title': 'COO' },
    });
    assert.equal(done.status, 200, done.text);
    await waitFor('the release', async () => (await publicGet(token)).body.can_release);
    assert.equal((await publicDownloads(token)).status, 200);
    await waitFor('the unlock workflow to end', async () => {
      const status = await stack.deps.temporal.client.workflow.getHandle(`transfer-${body.transfer_id}`).describe();
      return status.status.name === 'COMPLETED';
    });
    assert.equal(await releasedEvents(body.transfer_id), 1, 'transfer.released exactly once');
  });

  it('sign-to-unlock: a declined document never releases', async () => {
    const { nda } = await seedSamples(stack, sender);
    const decliner = { name: 'Dee Cline', email: `dee-${Date.now()}@example.test` };
    const created = await call(stack.url, 'POST', '/v1/documents', {
      key: sender.key,
      body: {
        template_id: nda.id,
        name: 'Doomed',
        send: true,
        signers: [decliner, { name: 'Ed', email: `ed-${Date.now()}@example.test` }],
      },
    });
    const body = await offered({
      name: 'Never',
      drive_file_ids: [await upload(sender, 1)],
      recipients: [{ email: 'never@example.test', name: 'N' }],
      document_id: created.body.document_id,
    });
    const session = await new SignerSession(stack, created.body.signers[0].sign_url, decliner.email).verify();
    assert.equal((await session.request('POST', '/decline', { reason: 'no' })).status, 200);
    const blocked = await waitFor('the block', async () => {
      const reply = await call(stack.url, 'GET', `/v1/transfers/${body.transfer_id}`, { key: sender.key });
      return reply.body.blocked_reason ? reply.body : undefined;
    });
    assert.equal(blocked.can_release, false);
    assertErrorCode(await publicDownloads(body.recipients[0].token), 409, 'invalid_state');
    assert.equal(await releasedEvents(body.transfer_id), 0);
    assertErrorCode(
      await create({
        name: 'x',
        drive_file_ids: [await upload(sender, 1)],
        recipients: [{ email: 'x@example.test', name: 'X' }],
        document_id: created.body.document_id,
      }),
      409,
      'invalid_state',
    );
  });

  it('accept-to-unlock: released when every recipient accepted (by key or as a guest); claims bind a matching key, others are guests', async () => {
    const { account: ann } = await mandatedAccount(stack, { level: null, name: 'Ann Agent' });
    const guest = { email: `gus-${Date.now()}@example.test`, name: 'Gus Guest' };
    const body = await offered({
      name: 'Accept pack',
      drive_file_ids: [await upload(sender, 2)],
      recipients: [{ email: ann.email, name: 'Ann' }, guest],
      requires_acceptance: true,
    });
    assert.equal(body.mode, 'accept');
    assert.equal(body.requires_acceptance, true);
    const [annToken, gusToken] = body.recipients.map((r: { token: string }) => r.token);

    // Ann's key claims her link: bound to her, she sees it and (after release) mints downloads by id.
    const claimed = await call(stack.url, 'POST', '/v1/transfers/claim', { key: ann.key, body: { token: annToken } });
    assert.equal(claimed.status, 200, claimed.text);
    assert.equal(claimed.body.bound, true);
    assert.equal((await call(stack.url, 'GET', `/v1/transfers/${body.transfer_id}`, { key: ann.key })).body.direction, 'received');
    const received = await call(stack.url, 'GET', '/v1/transfers?direction=received', { key: ann.key });
    assert.ok(received.body.data.some((t: { transfer_id: string }) => t.transfer_id === body.transfer_id));
    // Another principal's key with Gus's token: a guest capability only.
    const stranger = await createAccount(stack.deps.db);
    const guestClaim = await call(stack.url, 'POST', '/v1/transfers/claim', { key: stranger.key, body: { token: gusToken } });
    assert.equal(guestClaim.body.bound, false);
    assertErrorCode(await call(stack.url, 'GET', `/v1/transfers/${body.transfer_id}`, { key: stranger.key }), 404, 'not_found');
    assertErrorCode(await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/downloads`, { key: stranger.key }), 404, 'not_found');

    const first = await call(stack.url, 'POST', '/v1/transfers/accept', { key: ann.key, body: { token: annToken } });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.transfer.can_release, false, 'one of two accepted');
    assertErrorCode(await publicDownloads(gusToken), 409, 'invalid_state');
    const second = await call(stack.url, 'POST', `/v1/public/transfers/${gusToken}/accept`);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.can_release, true);
    assert.equal(second.body.recipients_accepted, 2);
    assert.equal((await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/downloads`, { key: ann.key })).status, 200);
    assert.equal((await publicDownloads(gusToken)).status, 200);
    assert.equal(await releasedEvents(body.transfer_id), 1);
    // Acceptance belongs to accept-to-unlock packages only.
    const share = await offered({ name: 'Share', drive_file_ids: [await upload(sender, 2)], recipients: [guest] });
    assertErrorCode(await call(stack.url, 'POST', `/v1/public/transfers/${share.recipients[0].token}/accept`), 409, 'invalid_state');
  });

  it('binds a claim to the signed-in app session of the recipient; another session gets 404, none 401', async () => {
    const { account: bea } = await mandatedAccount(stack, { level: null, name: 'Bea Bound' });
    const body = await offered({
      name: 'Bind me',
      drive_file_ids: [await upload(sender, 3)],
      recipients: [{ email: bea.email, name: 'Bea' }],
    });
    const token = body.recipients[0].token;
    assertErrorCode(await call(stack.url, 'POST', `/v1/public/transfers/${token}/bind`), 401, 'unauthorized');
    const other = await new AppClient(stack, sender.email).login();
    const refused = await fetch(`${stack.url}/v1/public/transfers/${token}/bind`, { method: 'POST', headers: { cookie: other.cookie } });
    assert.equal(refused.status, 404);
    const app = await new AppClient(stack, bea.email).login();
    // Another site's page (or a sibling subdomain's, which SameSite=Lax lets carry the cookie) cannot bind it.
    const foreign: Record<string, string>[] = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'same-site' }];
    for (const headers of foreign) {
      const forged = await fetch(`${stack.url}/v1/public/transfers/${token}/bind`, {
        method: 'POST',
        headers: { cookie: app.cookie, ...headers },
      });
      assert.equal(forged.status, 403, JSON.stringify(headers));
      assert.equal(((await forged.json()) as { error: { code: string } }).error.code, 'cross_origin');
    }
    assertErrorCode(await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/downloads`, { key: bea.key }), 404, 'not_found');
    const bound = await fetch(`${stack.url}/v1/public/transfers/${token}/bind`, { method: 'POST', headers: { cookie: app.cookie } });
    assert.equal(bound.status, 200);
    assert.equal(((await bound.json()) as { bound: boolean }).bound, true);
    assert.equal((await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/downloads`, { key: bea.key })).status, 200);
  });

  it('cancel revokes every claim link (404 like a token that never was); refusals are clear and leak nothing', async () => {
    const recipient = { email: `carl-${Date.now()}@example.test`, name: 'Carl' };
    const body = await offered({
      name: 'Cancel me',
      drive_file_ids: [await upload(sender, 1)],
      recipients: [recipient],
      requires_acceptance: true,
    });
    const token = body.recipients[0].token;
    const cancelled = await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/cancel`, { key: sender.key });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelled');
    const never = `svcxfer_${'A'.repeat(32)}`;
    for (const candidate of [token, never, 'svcxfer_short', 'nonsense']) {
      const reply = await publicGet(candidate);
      assertErrorCode(reply, 404, 'not_found');
      assert.equal(reply.body.error.message, (await publicGet(never)).body.error.message, 'the same answer for every bad token');
      assertErrorCode(await call(stack.url, 'POST', `/v1/public/transfers/${candidate}/accept`), 404, 'not_found');
      assertErrorCode(await publicDownloads(candidate), 404, 'not_found');
      assertErrorCode(
        await call(stack.url, 'POST', '/v1/transfers/claim', { key: sender.key, body: { token: candidate } }),
        404,
        'not_found',
      );
    }
    assertErrorCode(await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/cancel`, { key: sender.key }), 409, 'invalid_state');
    assert.equal((await Transfer.query(stack.deps.db).findById(body.transfer_id))?.released_at, null);
    const share = await offered({ name: 'Released', drive_file_ids: [await upload(sender, 1)], recipients: [recipient] });
    assertErrorCode(await call(stack.url, 'POST', `/v1/transfers/${share.transfer_id}/cancel`, { key: sender.key }), 409, 'invalid_state');
  });

  it('refuses bad input (400 naming the field), other tenants’ ids (404), a file in use (409)', async () => {
    const file = await upload(sender, 0);
    const recipients = [{ email: 'r@example.test', name: 'R' }];
    const both = await create({ name: 'x', drive_file_ids: [file], recipients, document_id: 'doc_x', requires_acceptance: true });
    assertErrorCode(both, 400, 'invalid_request');
    assert.equal(both.body.error.details[0].path, 'requires_acceptance');
    assertErrorCode(await create({ name: 'x', drive_file_ids: [], recipients }), 400, 'invalid_request');
    assertErrorCode(await create({ name: 'x', drive_file_ids: [file, file], recipients }), 400, 'invalid_request');
    assertErrorCode(
      await create({ name: 'x', drive_file_ids: [file], recipients: [...recipients, ...recipients] }),
      400,
      'invalid_request',
    );
    const stranger = await createAccount(stack.deps.db);
    assertErrorCode(await create({ name: 'x', drive_file_ids: [file], recipients }, stranger), 404, 'not_found');
    assertErrorCode(await create({ name: 'x', drive_file_ids: [file], recipients, document_id: 'doc_nothere' }), 404, 'not_found');
    const made = await create({ name: 'Mine', drive_file_ids: [file], recipients });
    for (const [method, path, body] of [
      ['GET', `/v1/transfers/${made.body.transfer_id}`, undefined],
      ['POST', `/v1/transfers/${made.body.transfer_id}/offer`, { confirm: true }],
      ['POST', `/v1/transfers/${made.body.transfer_id}/cancel`, undefined],
      ['POST', `/v1/transfers/${made.body.transfer_id}/downloads`, undefined],
    ] as const)
      assertErrorCode(await call(stack.url, method, path, { key: stranger.key, body }), 404, 'not_found');
    assertErrorCode(await call(stack.url, 'DELETE', `/v1/drive/${file}`, { key: sender.key }), 409, 'invalid_state');
    assertErrorCode(await call(stack.url, 'GET', '/v1/transfers'), 401, 'unauthorized');
  });
});
