// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { AuditEvent } from '../../db/models';
import { latestMail } from '../../test/documents';
import {
  create,
  local,
  publicDownloads,
  publicGet,
  releasedEvents,
  samples,
  sender,
  stack,
  upload,
  useTransfersStack,
} from '../../test/fixtures/transfers';
import { assertErrorCode, call } from '../../test/http';
import { waitFor } from '../../test/wait';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('transfers: share, sign-to-unlock and accept-to-unlock packages, claims and downloads', () => {
  useTransfersStack();

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
});
