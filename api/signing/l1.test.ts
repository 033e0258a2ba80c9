// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { revokeMandate } from '../../activities/mandates/mandates';
import { Apply, Event, MailMessage, Principal, SignRequest, type Template } from '../../db/models';
import { createDocument, downloadPdf, latestMail, SignerSession, seedSamples, sentNda, waitForDocument } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { pdfsig, pdfText } from '../../test/pdf-tools';
import { AppClient, hiddenFields, mandatedAccount, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';
import { signRequestWorkflowId } from '../../workflows/signing/shared';

describe('L1: sign requests the principal confirms in the app', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '30000' } });
    owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    ({ nda } = await seedSamples(stack, owner));
  });
  after(() => stack.close());

  const principalWithL1 = (level: 'L1' | 'L2' = 'L1') => mandatedAccount(stack, { level, name: 'Lena Lone', label: 'l1 agent' });

  const inboundNda = async (signer: Account) =>
    sentNda(stack, owner, nda, await principalOf(stack, signer), { name: 'NDA for confirmation', other: { name: 'Other' } });

  const requestSign = (account: Account, documentId: string, base = stack.url) =>
    call(base, 'POST', `/v1/documents/${documentId}/sign-requests`, {
      key: account.key,
      body: { reason: 'Please confirm the NDA we agreed' },
    });
  const linkPath = (confirmUrl: string) => new URL(confirmUrl).pathname;

  it('creates a request with its confirm_url, e-mails it to the principal, and allows one open request per document and key', async () => {
    const { account, mandate } = await principalWithL1();
    const document = await inboundNda(account);
    const created = await requestSign(account, document.document_id);
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.sign_request_id, /^sr_/);
    assert.equal(created.body.status, 'open');
    assert.equal(created.body.mandate_id, mandate.id);
    assert.match(created.body.confirm_url, new RegExp(`^${stack.config.appUrl}/sign-request/sr_[0-9A-Za-z]{20}\\.[A-Za-z0-9_-]+$`));
    const principal = await principalOf(stack, account);
    const mail = await waitFor('the confirm mail', () => latestMail(stack, principal.email, 'sign-request'));
    assert.ok(mail.text.includes(created.body.confirm_url));

    assertErrorCode(await requestSign(account, document.document_id), 409, 'pending_exists');
    const listed = await call(stack.url, 'GET', `/v1/documents/${document.document_id}/sign-requests`, { key: account.key });
    assert.deepEqual(
      listed.body.data.map((r: { sign_request_id: string }) => r.sign_request_id),
      [created.body.sign_request_id],
    );
    const one = await call(stack.url, 'GET', `/v1/sign-requests/${created.body.sign_request_id}`, { key: account.key });
    assert.equal(one.body.reason, 'Please confirm the NDA we agreed');
    assertErrorCode(
      await call(stack.url, 'GET', `/v1/sign-requests/${created.body.sign_request_id}`, { key: owner.key }),
      404,
      'not_found',
    );
  });

  it('works with an L2 mandate too (an agent may always ask for confirmation)', async () => {
    const { account } = await principalWithL1('L2');
    assert.equal((await requestSign(account, (await inboundNda(account)).document_id)).status, 201);
  });

  it('refuses without a mandate, for a non-signer and with l1_signing off', async () => {
    const bare = await createAccount(stack.deps.db);
    assertErrorCode(await requestSign(bare, (await inboundNda(bare)).document_id), 403, 'mandate_required');
    const { account } = await principalWithL1();
    const notMine = await createDocument(stack, owner, {
      template_id: nda.id,
      name: 'x',
      signers: [
        { name: 'A', email: 'a9@example.test' },
        { name: 'B', email: 'b9@example.test' },
      ],
      send: true,
    });
    assertErrorCode(await requestSign(account, notMine.body.document_id), 404, 'not_found');
    const api = await stack.withEnv({ SVC_FF_L1_SIGNING: 'false' });
    try {
      assertErrorCode(await requestSign(account, (await inboundNda(account)).document_id, api.url), 403, 'feature_disabled');
    } finally {
      await api.close();
    }
  });

  it('cannot be confirmed with the link alone: the agent gets the sign-in page, and another principal a 404', async () => {
    const { account } = await principalWithL1();
    const created = await requestSign(account, (await inboundNda(account)).document_id);
    const link = linkPath(created.body.confirm_url);

    const anonymous = await fetch(`${stack.url}${link}`, { redirect: 'manual' });
    assert.equal(anonymous.status, 302);
    assert.match(anonymous.headers.get('location') ?? '', /\/app\/login\?next=/);
    const post = await fetch(`${stack.url}${link}/confirm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    assert.equal(post.status, 302, 'a key is no session: the confirm is refused');

    const stranger = await createAccount(stack.deps.db);
    const strangerApp = await new AppClient(stack, stranger.email).login();
    const foreign = await strangerApp.get(link);
    assert.equal(foreign.status, 404);
    const attempt = await strangerApp.post(`${link}/confirm`, {}, `${new URL(stack.config.appUrl).pathname}/`);
    assert.equal(attempt.status, 404);

    const request = await SignRequest.query(stack.deps.db).findById(created.body.sign_request_id);
    assert.equal(request?.status, 'open');
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: request!.document_id }).resultSize(), 0);
  });

  /** Signals the request's workflow as anyone with the Temporal frontend could (`temporal workflow signal --name …`). */
  async function forgeSignal(signRequestId: string, name: 'confirm' | 'decline') {
    const handle = stack.deps.temporal.client.workflow.getHandle(signRequestWorkflowId(signRequestId));
    await handle.signal(name, {});
    // Handled: the activity the workflow ran about the signal (anything but the confirm mail) has completed.
    await waitFor('the workflow to act on the signal', async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const reactions = events.filter(
        (event) =>
          event.activityTaskScheduledEventAttributes &&
          event.activityTaskScheduledEventAttributes.activityType?.name !== 'emailSignRequest',
      );
      const done = events.some((event) =>
        reactions.some((scheduled) => String(event.activityTaskCompletedEventAttributes?.scheduledEventId) === String(scheduled.eventId)),
      );
      return done ? true : undefined;
    });
  }

  it('applies nothing on a confirm signal alone: only a confirmation the app recorded counts', async () => {
    const { account } = await principalWithL1();
    const document = await inboundNda(account);
    const created = await requestSign(account, document.document_id);
    const id = created.body.sign_request_id;

    await forgeSignal(id, 'confirm');
    assert.equal((await SignRequest.query(stack.deps.db).findById(id))?.status, 'open');
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: document.document_id }).resultSize(), 0, 'no apply');
    const seen = await call(stack.url, 'GET', `/v1/documents/${document.document_id}`, { key: owner.key });
    assert.equal(seen.body.signers[0].status, 'pending');

    // The request still waits for the principal, who can confirm in the app.
    const link = linkPath(created.body.confirm_url);
    const app = await new AppClient(stack, (await principalOf(stack, account)).email).login();
    assert.equal((await app.post(`${link}/confirm`, {}, link)).status, 200);
    await waitFor('the request to be applied', async () =>
      (await SignRequest.query(stack.deps.db).findById(id))?.status === 'applied' ? true : undefined,
    );
  });

  it('lets a decline recorded by the app win over a confirm signal that races it', async () => {
    const { account } = await principalWithL1();
    const document = await inboundNda(account);
    const created = await requestSign(account, document.document_id);
    const id = created.body.sign_request_id;
    const link = linkPath(created.body.confirm_url);
    const app = await new AppClient(stack, (await principalOf(stack, account)).email).login();
    const page = await (await app.get(link)).text();
    const csrf = /name="_csrf" value="([^"]*)"/.exec(page)![1];

    const handle = stack.deps.temporal.client.workflow.getHandle(signRequestWorkflowId(id));
    const [declined] = await Promise.all([app.post(`${link}/decline`, { _csrf: csrf }), handle.signal('confirm', {})]);
    assert.equal(declined.status, 200);
    const result = await handle.result();
    assert.equal(result.status, 'declined');
    assert.equal((await SignRequest.query(stack.deps.db).findById(id))?.status, 'declined');
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: document.document_id }).resultSize(), 0, 'nothing applied');
  });

  it('e-mails the confirm link even when the request’s transaction commits after its workflow starts', async () => {
    const { account } = await principalWithL1();
    const document = await inboundNda(account);
    const { db } = stack.deps;
    // A deferred trigger holds every sign request insert's commit back by two seconds.
    await db.raw(`create function slow_commit() returns trigger language plpgsql as $$ begin perform pg_sleep(2); return null; end $$`);
    await db.raw(
      `create constraint trigger slow_commit after insert on sign_requests deferrable initially deferred for each row execute function slow_commit()`,
    );
    try {
      const created = await requestSign(account, document.document_id);
      assert.equal(created.status, 201, created.text);
      const principal = await principalOf(stack, account);
      const mail = await waitFor('the confirm mail', () => latestMail(stack, principal.email, 'sign-request'), 20_000);
      assert.ok(mail.text.includes(created.body.confirm_url));
    } finally {
      await db.raw('drop trigger slow_commit on sign_requests');
      await db.raw('drop function slow_commit()');
    }
  });

  it('applies once when the principal confirms, even when confirm is clicked twice at once', async () => {
    const { account, mandate } = await principalWithL1();
    const document = await inboundNda(account);
    const created = await requestSign(account, document.document_id);
    const link = linkPath(created.body.confirm_url);
    const app = await new AppClient(stack, (await principalOf(stack, account)).email).login();
    const form = hiddenFields(await (await app.get(link)).text(), `${link}/confirm`);

    const [first, second] = await Promise.all([app.post(`${link}/confirm`, form), app.post(`${link}/confirm`, form)]);
    const statuses = [first.status, second.status].sort();
    assert.deepEqual(statuses, [200, 409], `statuses ${statuses}`);

    const request = await waitFor('the request to be applied', async () => {
      const row = await SignRequest.query(stack.deps.db).findById(created.body.sign_request_id);
      return row?.status === 'applied' ? row : undefined;
    });
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: document.document_id }).resultSize(), 1, 'one apply');
    const events = await Event.query(stack.deps.db)
      .where({ event: 'document.signed', tenant_id: owner.tenantId })
      .whereRaw(`data->>'document_id' = ?`, [document.document_id]);
    assert.equal(events.length, 1);
    const own = await Event.query(stack.deps.db)
      .where({ event: 'document.signed', tenant_id: account.tenantId })
      .whereRaw(`data->>'document_id' = ?`, [document.document_id]);
    assert.deepEqual(
      own.map((event) => event.data),
      [events[0].data],
      'the signing principal’s own tenant hears of its inbound apply too',
    );
    assert.equal((events[0].data as { confirmation_level: string }).confirmation_level, 'l1');
    assert.equal((events[0].data as { mandate_id: string }).mandate_id, mandate.id);
    assert.deepEqual((events[0].data as { agent: unknown }).agent, { api_key_id: account.keyId, label: 'l1 agent' });
    const api = await call(stack.url, 'GET', `/v1/sign-requests/${request.id}`, { key: account.key });
    assert.equal(api.body.status, 'applied');
    const principal = await principalOf(stack, account);
    assert.equal(
      await MailMessage.query(stack.deps.db).where({ to_address: principal.email, purpose: 'l2-notice' }).resultSize(),
      0,
      'an L1 apply sends no L2 notice',
    );
    assertErrorCode(await requestSign(account, document.document_id), 409, 'already_signed');
  });

  it('the confirm page answers the outcome through the request workflow’s update; the wait for the apply is in its history, woken by the document’s workflow', async () => {
    const { account } = await principalWithL1();
    const document = await inboundNda(account);
    const created = await requestSign(account, document.document_id);
    const link = linkPath(created.body.confirm_url);
    const app = await new AppClient(stack, (await principalOf(stack, account)).email).login();
    const form = hiddenFields(await (await app.get(link)).text(), `${link}/confirm`);
    const page = await app.post(`${link}/confirm`, form);
    assert.equal(page.status, 200);
    // The stack's recheck (SVC_RETRY_MAX_MS) is a minute: only the wake-up can have settled it within the page's wait.
    assert.match(await page.text(), /Signed: your signature was applied/);
    const history =
      (await stack.deps.temporal.client.workflow.getHandle(signRequestWorkflowId(created.body.sign_request_id)).fetchHistory()).events ??
      [];
    const signals = history.flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? []);
    assert.deepEqual(signals, ['confirm', 'wake'], 'confirmed by the app, woken by the document’s workflow');
    const activities = history.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    assert.deepEqual(activities, ['emailSignRequest', 'stepSignRequest', 'stepSignRequest'], 'no activity waits for the apply');
    assert.ok(
      history.some((event) => event.workflowExecutionUpdateCompletedEventAttributes),
      'the page’s update answered',
    );
  });

  it('leaves the document unsigned when the principal declines', async () => {
    const { account } = await principalWithL1();
    const document = await inboundNda(account);
    const created = await requestSign(account, document.document_id);
    const link = linkPath(created.body.confirm_url);
    const app = await new AppClient(stack, (await principalOf(stack, account)).email).login();
    const declined = await app.post(`${link}/decline`, {}, link);
    assert.equal(declined.status, 200);
    const request = await SignRequest.query(stack.deps.db).findById(created.body.sign_request_id);
    assert.equal(request?.status, 'declined');
    const seen = await call(stack.url, 'GET', `/v1/documents/${document.document_id}`, { key: owner.key });
    assert.equal(seen.body.signers[0].status, 'pending');
    assert.equal((await call(stack.url, 'GET', `/v1/sign-requests/${request!.id}`, { key: account.key })).body.status, 'declined');
    const again = await app.post(`${link}/confirm`, {}, link);
    assert.equal(again.status, 409, 'a declined request cannot be confirmed');
  });

  it('expires after its lifetime, leaving the document unsigned', async () => {
    const { account } = await principalWithL1();
    const document = await inboundNda(account);
    const api = await stack.withEnv({ SVC_SIGN_REQUEST_TTL_MS: '1500' });
    try {
      const created = await requestSign(account, document.document_id, api.url);
      assert.equal(created.status, 201, created.text);
      const expired = await waitFor(
        'the request to expire',
        async () => {
          const reply = await call(stack.url, 'GET', `/v1/sign-requests/${created.body.sign_request_id}`, { key: account.key });
          return reply.body.status === 'expired' ? reply : undefined;
        },
        15_000,
      );
      assert.ok(expired.body.decided_at);
      const app = await new AppClient(stack, (await principalOf(stack, account)).email).login();
      const late = await app.post(`${linkPath(created.body.confirm_url)}/confirm`, {}, linkPath(created.body.confirm_url));
      assert.equal(late.status, 409);
      assert.equal(
        (await call(stack.url, 'GET', `/v1/documents/${document.document_id}`, { key: owner.key })).body.signers[0].status,
        'pending',
      );
      assert.equal((await requestSign(account, document.document_id)).status, 201, 'an expired request does not block a new one');
    } finally {
      await api.close();
    }
  });

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
