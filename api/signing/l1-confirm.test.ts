// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Apply, Event, MailMessage, SignRequest } from '../../db/models';
import { inboundNda, linkPath, owner, principalWithL1, requestSign, stack, useL1Stack } from '../../test/fixtures/signing-l1';
import { assertErrorCode, call } from '../../test/http';
import { AppClient, hiddenFields, principalOf } from '../../test/principal';
import { waitFor } from '../../test/wait';
import { signRequestWorkflowId } from '../../workflows/signing/shared';

describe('L1: sign requests the principal confirms in the app', () => {
  useL1Stack();

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
});
