// The stories `npm run record-histories` runs against the real service, one or more workflow
// histories each: the interesting paths of every workflow, with short durations (workflow inputs).
import fs from 'node:fs';
import path from 'node:path';
import { writeEvent } from '../activities/events/outbox';
import { Delivery, DocumentRevision, MailMessage, type Template } from '../db/models';
import { startWorker } from '../worker/worker';
import { documentWorkflowId } from '../workflows/document/shared';
import { mailWorkflowId } from '../workflows/mail/shared';
import { offerWorkflowId } from '../workflows/offer/shared';
import { PING_WORKFLOW, pingWorkflowId } from '../workflows/ping/shared';
import { signRequestWorkflowId } from '../workflows/signing/shared';
import { transferWorkflowId } from '../workflows/transfer/shared';
import { deliveryWorkflowId, relayWorkflowId } from '../workflows/webhook/shared';
import { connect } from './contacts';
import { createDocument, SignerSession, sentNda, waitForDocument } from './documents';
import { type Account, createAccount } from './factories';
import { driveSamples } from './files';
import { call } from './http';
import { dataUrl, signaturePng } from './images';
import { AppClient, mandatedAccount, principalOf } from './principal';
import { Receiver, type selfSignedCertificate } from './receiver';
import { historyToJson } from './replay';
import { type Stack, startStack } from './stack';
import { waitFor } from './wait';

/** Short durations (inputs of the workflows), so every path runs in seconds. */
export const DURATIONS = {
  SVC_APPLY_WAIT_MS: '30000',
  SVC_APPLY_ATTEMPTS: '3',
  SVC_MAIL_ATTEMPTS: '3',
  SVC_RETRY_INITIAL_MS: '100',
  SVC_RETRY_MAX_MS: '200',
  SVC_WEBHOOK_RETRY_INITIAL_MS: '200',
  SVC_WEBHOOK_RETRY_MAX_MS: '800',
  SVC_WEBHOOK_GIVE_UP_MS: '3000',
  SVC_WEBHOOK_TIMEOUT_MS: '2000',
  SVC_OUTBOX_POLL_MS: '100',
};

export interface Context {
  stack: Stack;
  owner: Account;
  nda: Template;
  tls: ReturnType<typeof selfSignedCertificate>;
  receivers: Receiver[];
}

/** One story against the service; it answers the workflow id of each history it recorded, by history name. */
export interface Story {
  histories: string[];
  run(context: Context): Promise<Record<string, string>>;
}

/** The workflow's result once it ended; a story that leaves one waiting fails instead of hanging the run. */
async function workflowResult(stack: Stack, workflowId: string, timeoutMs = 60_000): Promise<any> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${workflowId} did not end within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([stack.deps.temporal.client.workflow.getHandle(workflowId).result(), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function mailId(stack: Stack, to: string, purpose: string): Promise<string> {
  const mail = await waitFor(`the ${purpose} mail to ${to}`, async () =>
    MailMessage.query(stack.deps.db).where({ to_address: to.toLowerCase(), purpose }).first(),
  );
  return mail.id;
}

/** A principal with a stored appearance and an L1 mandate, and a sent NDA from the owner where they sign first. */
async function l1Principal(context: Context) {
  const { stack, owner, nda } = context;
  const { account, principal } = await mandatedAccount(stack, { level: 'L1', name: 'Lena Lone', label: 'l1 agent' });
  const created = await sentNda(stack, owner, nda, principal, { name: 'NDA for confirmation', other: { name: 'Other' } });
  return { account, principal, documentId: created.document_id as string };
}

async function requestSign(base: string, account: Account, documentId: string) {
  const created = await call(base, 'POST', `/v1/documents/${documentId}/sign-requests`, {
    key: account.key,
    body: { reason: 'Please confirm the NDA we agreed' },
  });
  if (created.status !== 201) throw new Error(`sign request: ${created.status} ${created.text}`);
  return { id: created.body.sign_request_id as string, link: new URL(created.body.confirm_url).pathname };
}

/** The owner's own NDA: they sign first (L2), a signer who is no principal second. */
async function ownNda(context: Context, other: { name: string; email: string }) {
  const principal = await principalOf(context.stack, context.owner);
  const created = await sentNda(context.stack, context.owner, context.nda, principal, { name: 'Replay NDA', other });
  return { documentId: created.document_id as string, otherSignUrl: created.signers[1].sign_url as string };
}

async function signByMandate(context: Context, documentId: string) {
  return call(context.stack.url, 'POST', `/v1/documents/${documentId}/sign`, { key: context.owner.key, body: { reason: 'agreed' } });
}

async function signOnPage(context: Context, signUrl: string, email: string) {
  const session = await new SignerSession(context.stack, signUrl, email).verify();
  const signed = await session.request('POST', '/sign', {
    consent: true,
    signature: { method: 'drawn', image: dataUrl(signaturePng()) },
    values: { 'receiving-title': 'CFO' },
  });
  if (signed.status !== 200) throw new Error(`sign page: ${signed.status} ${signed.text}`);
}

async function webhookFor(context: Context, account: Account, respond: () => number) {
  const receiver = await new Receiver(context.tls).start();
  context.receivers.push(receiver);
  receiver.respond = respond;
  const created = await call(context.stack.url, 'POST', '/v1/webhooks', { key: account.key, body: { url: receiver.url } });
  if (created.status !== 201) throw new Error(`webhook: ${created.status} ${created.text}`);
}

/** The retry workflow of the one delivery of a just-emitted event (its first attempt failed), once it ended. */
async function deliveryOf(context: Context, account: Account, payload: Record<string, unknown>): Promise<string> {
  const { stack } = context;
  const event = await stack.deps.db.transaction((trx) => writeEvent(trx, account.tenantId, 'document.signed', payload));
  const delivery = await waitFor('the delivery', async () => Delivery.query(stack.deps.db).where({ event_id: event.id }).first(), 10_000);
  const workflowId = deliveryWorkflowId(delivery.id);
  await waitFor(
    'the delivery workflow to start',
    async () => (await Delivery.query(stack.deps.db).findById(delivery.id))?.workflow_started_at,
  );
  await workflowResult(stack, workflowId);
  return workflowId;
}

/**
 * An offer of the owner's to a fresh principal with a mandate of `level` (connected as agent
 * contacts), on a sent NDA where that principal signs first; `api` is where the offer is made.
 */
async function offerTo(context: Context, level: 'L1' | 'L2', api = context.stack.url) {
  const { stack, owner, nda } = context;
  const { account, principal } = await mandatedAccount(stack, { level, name: `Cora Counterparty ${level}` });
  const { fromContact } = await connect(stack, owner, account);
  const document = await sentNda(stack, owner, nda, principal, { name: 'Offered NDA', other: { name: 'Carl' } });
  const made = await call(api, 'POST', `/v1/documents/${document.document_id}/offers`, {
    key: owner.key,
    body: { contact_id: fromContact, terms: 'As drafted' },
  });
  if (made.status !== 201) throw new Error(`offer: ${made.status} ${made.text}`);
  return { account, principal, offerId: made.body.offer_id as string };
}

async function offerAction(context: Context, account: Account, offerId: string, verb: string) {
  const reply = await call(context.stack.url, 'POST', `/v1/offers/${offerId}/${verb}`, { key: account.key });
  if (reply.status !== 200) throw new Error(`${verb}: ${reply.status} ${reply.text}`);
  return reply.body;
}

/** The principal confirms or declines an escalated offer's sign request in the app. */
async function decideInApp(context: Context, email: string, confirmUrl: string, decision: 'confirm' | 'decline') {
  const app = await new AppClient(context.stack, email).login();
  const link = new URL(confirmUrl).pathname;
  const decided = await app.post(`${link}/${decision}`, {}, link);
  if (decided.status !== 200) throw new Error(`${decision}: ${decided.status}`);
}

/** A package of the owner's (one uploaded PDF), offered; answers its id and the recipient's claim token. */
async function offeredTransfer(context: Context, extra: Record<string, unknown> = {}) {
  const { stack, owner } = context;
  const pdf = (await driveSamples())[0].bytes;
  const uploaded = await call(stack.url, 'POST', '/v1/assets?filename=pack.pdf', {
    key: owner.key,
    raw: pdf,
    headers: { 'content-type': 'application/pdf' },
  });
  if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${uploaded.text}`);
  const created = await call(stack.url, 'POST', '/v1/transfers', {
    key: owner.key,
    body: {
      name: 'Replay pack',
      drive_file_ids: [uploaded.body.drive_file_id],
      recipients: [{ email: `rory-${Date.now()}@example.test`, name: 'Rory' }],
      ...extra,
    },
  });
  if (created.status !== 201) throw new Error(`transfer: ${created.status} ${created.text}`);
  const offered = await call(stack.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, {
    key: owner.key,
    body: { confirm: true },
  });
  if (offered.status !== 200) throw new Error(`offer: ${offered.status} ${offered.text}`);
  return { id: created.body.transfer_id as string, token: offered.body.recipients[0].token as string };
}

export const STORIES: Story[] = [
  {
    // Recorded after applies began answering through the applySettled update (the histories above
    // are from before it, and keep proving that executions started then still replay).
    histories: ['document/applies-answered-by-update'],
    async run(context) {
      const other = { name: 'Uma Update', email: `uma-${Date.now()}@example.test` };
      const { documentId, otherSignUrl } = await ownNda(context, other);
      const signed = await signByMandate(context, documentId);
      if (signed.status !== 200) throw new Error(`L2 sign: ${signed.status} ${signed.text}`);
      await signOnPage(context, otherSignUrl, other.email);
      await waitForDocument(context.stack, context.owner.key, documentId, (d) => d.status === 'completed', 'completion');
      await workflowResult(context.stack, documentWorkflowId(documentId));
      return { 'document/applies-answered-by-update': documentWorkflowId(documentId) };
    },
  },
  {
    histories: ['document/two-applies-completed', 'mail/delivered'],
    async run(context) {
      const other = { name: 'Otto Other', email: `otto-${Date.now()}@example.test` };
      const { documentId, otherSignUrl } = await ownNda(context, other);
      const signed = await signByMandate(context, documentId);
      if (signed.status !== 200) throw new Error(`L2 sign: ${signed.status} ${signed.text}`);
      await signOnPage(context, otherSignUrl, other.email);
      await waitForDocument(context.stack, context.owner.key, documentId, (d) => d.status === 'completed', 'completion');
      await workflowResult(context.stack, documentWorkflowId(documentId));
      const invitation = mailWorkflowId(await mailId(context.stack, other.email, 'sign-invite'));
      await workflowResult(context.stack, invitation);
      return { 'document/two-applies-completed': documentWorkflowId(documentId), 'mail/delivered': invitation };
    },
  },
  {
    histories: ['document/rejected-applies-then-completed'],
    async run(context) {
      const { stack } = context;
      const other = { name: 'Rhea Retry', email: `rhea-${Date.now()}@example.test` };
      const { documentId, otherSignUrl } = await ownNda(context, other);
      // A rule's refusal: an apply id that does not exist fails at once, typed not_found.
      await stack.deps.workflows.handOverApply(documentId, 'apl_doesnotexist00000000');
      // A failure retrying cannot fix: the current PDF is missing, so the apply is rejected after its attempts.
      const revision = (await DocumentRevision.query(stack.deps.db).findById([documentId, 0]))!;
      const blob = path.join(stack.config.dataDir, 'blobs', revision.unsealed_sha256.slice(0, 2), revision.unsealed_sha256);
      fs.renameSync(blob, `${blob}.away`);
      try {
        const failed = await signByMandate(context, documentId);
        if (failed.status !== 502) throw new Error(`expected sign_failed, got ${failed.status} ${failed.text}`);
      } finally {
        fs.renameSync(`${blob}.away`, blob);
      }
      const retried = await signByMandate(context, documentId);
      if (retried.status !== 200) throw new Error(`L2 sign: ${retried.status} ${retried.text}`);
      await signOnPage(context, otherSignUrl, other.email);
      await waitForDocument(stack, context.owner.key, documentId, (d) => d.status === 'completed', 'completion');
      await workflowResult(stack, documentWorkflowId(documentId));
      return { 'document/rejected-applies-then-completed': documentWorkflowId(documentId) };
    },
  },
  {
    histories: ['document/declined', 'mail/refused'],
    async run(context) {
      const { stack, owner, nda } = context;
      const decliner = { name: 'Dora Decline', email: `dora-${Date.now()}@example.test` };
      const refused = { name: 'Rudi Refused', email: `rudi-${Date.now()}@example.test` };
      stack.smtp!.refuse(refused.email);
      const created = await createDocument(stack, owner, {
        template_id: nda.id,
        name: 'Declined NDA',
        send: true,
        signers: [decliner, refused],
      });
      if (created.status !== 201) throw new Error(`create document: ${created.status} ${created.text}`);
      const documentId = created.body.document_id as string;
      const invitation = mailWorkflowId(await mailId(stack, refused.email, 'sign-invite'));
      await workflowResult(stack, invitation);
      const session = await new SignerSession(stack, created.body.signers[0].sign_url, decliner.email).verify();
      const declined = await session.request('POST', '/decline', { reason: 'Wrong counterparty' });
      if (declined.status !== 200) throw new Error(`decline: ${declined.status} ${declined.text}`);
      await workflowResult(stack, documentWorkflowId(documentId));
      return { 'document/declined': documentWorkflowId(documentId), 'mail/refused': invitation };
    },
  },
  {
    histories: ['sign-request/confirmed'],
    async run(context) {
      const { stack } = context;
      const { account, principal, documentId } = await l1Principal(context);
      const request = await requestSign(stack.url, account, documentId);
      await waitFor('the confirm mail', () => stack.smtp!.latest(principal.email, 'sign-request'));
      const app = await new AppClient(stack, principal.email).login();
      const confirmed = await app.post(`${request.link}/confirm`, {}, request.link);
      if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status}`);
      await workflowResult(stack, signRequestWorkflowId(request.id));
      return { 'sign-request/confirmed': signRequestWorkflowId(request.id) };
    },
  },
  {
    histories: ['sign-request/declined'],
    async run(context) {
      const { stack } = context;
      const { account, principal, documentId } = await l1Principal(context);
      const request = await requestSign(stack.url, account, documentId);
      await waitFor('the confirm mail', () => stack.smtp!.latest(principal.email, 'sign-request'));
      const app = await new AppClient(stack, principal.email).login();
      const declined = await app.post(`${request.link}/decline`, {}, request.link);
      if (declined.status !== 200) throw new Error(`decline: ${declined.status}`);
      await workflowResult(stack, signRequestWorkflowId(request.id));
      return { 'sign-request/declined': signRequestWorkflowId(request.id) };
    },
  },
  {
    histories: ['sign-request/expired'],
    async run(context) {
      const { stack } = context;
      const { account, documentId } = await l1Principal(context);
      const api = await stack.withEnv({ SVC_SIGN_REQUEST_TTL_MS: '1500' });
      try {
        const request = await requestSign(api.url, account, documentId);
        await workflowResult(stack, signRequestWorkflowId(request.id));
        return { 'sign-request/expired': signRequestWorkflowId(request.id) };
      } finally {
        await api.close();
      }
    },
  },
  {
    histories: ['sign-request/forged-confirm-then-confirmed'],
    async run(context) {
      const { stack } = context;
      const { account, principal, documentId } = await l1Principal(context);
      const request = await requestSign(stack.url, account, documentId);
      const handle = stack.deps.temporal.client.workflow.getHandle(signRequestWorkflowId(request.id));
      // As anyone who reaches Temporal's frontend could: the workflow reads the request (still open) and applies nothing.
      await handle.signal('confirm', {});
      await waitFor('the workflow to read the request after the forged signal', async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        return events.filter((event) => event.activityTaskCompletedEventAttributes).length >= 2;
      });
      const app = await new AppClient(stack, principal.email).login();
      const confirmed = await app.post(`${request.link}/confirm`, {}, request.link);
      if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status}`);
      const result = await workflowResult(stack, handle.workflowId);
      if (result.status !== 'applied') throw new Error(`expected applied, got ${result.status}`);
      return { 'sign-request/forged-confirm-then-confirmed': signRequestWorkflowId(request.id) };
    },
  },
  {
    // The relay makes the first attempt; these workflows are the retries of deliveries it could not make.
    histories: ['webhook-delivery/retried-then-delivered', 'webhook-delivery/retried-then-gave-up'],
    async run(context) {
      const { stack } = context;
      const flaky = await createAccount(stack.deps.db);
      let calls = 0;
      await webhookFor(context, flaky, () => (++calls <= 2 ? 500 : 200));
      const delivered = await deliveryOf(context, flaky, { replay: 'failed then delivered' });
      const down = await createAccount(stack.deps.db);
      await webhookFor(context, down, () => 503);
      const gaveUp = await deliveryOf(context, down, { replay: 'gave up' });
      return { 'webhook-delivery/retried-then-delivered': delivered, 'webhook-delivery/retried-then-gave-up': gaveUp };
    },
  },
  {
    histories: ['offer/acked-then-accepted-l2', 'offer/acked-then-declined'],
    async run(context) {
      const accepted = await offerTo(context, 'L2');
      await offerAction(context, accepted.account, accepted.offerId, 'ack');
      await offerAction(context, accepted.account, accepted.offerId, 'accept');
      await workflowResult(context.stack, offerWorkflowId(accepted.offerId));
      const declined = await offerTo(context, 'L2');
      await offerAction(context, declined.account, declined.offerId, 'ack');
      await offerAction(context, declined.account, declined.offerId, 'decline');
      await workflowResult(context.stack, offerWorkflowId(declined.offerId));
      return {
        'offer/acked-then-accepted-l2': offerWorkflowId(accepted.offerId),
        'offer/acked-then-declined': offerWorkflowId(declined.offerId),
      };
    },
  },
  {
    histories: ['offer/escalated-confirmed', 'offer/escalated-declined-in-app'],
    async run(context) {
      const confirmed = await offerTo(context, 'L1');
      const escalated = await offerAction(context, confirmed.account, confirmed.offerId, 'accept');
      await decideInApp(context, confirmed.principal.email, escalated.confirm_url, 'confirm');
      await workflowResult(context.stack, offerWorkflowId(confirmed.offerId));
      const declined = await offerTo(context, 'L1');
      const asked = await offerAction(context, declined.account, declined.offerId, 'escalate');
      await decideInApp(context, declined.principal.email, asked.confirm_url, 'decline');
      await workflowResult(context.stack, offerWorkflowId(declined.offerId));
      return {
        'offer/escalated-confirmed': offerWorkflowId(confirmed.offerId),
        'offer/escalated-declined-in-app': offerWorkflowId(declined.offerId),
      };
    },
  },
  {
    histories: ['offer/expired'],
    async run(context) {
      const api = await context.stack.withEnv({ SVC_OFFER_TTL_MS: '1500' });
      try {
        const { offerId } = await offerTo(context, 'L2', api.url);
        await workflowResult(context.stack, offerWorkflowId(offerId));
        return { 'offer/expired': offerWorkflowId(offerId) };
      } finally {
        await api.close();
      }
    },
  },
  {
    histories: ['transfer/share-released', 'transfer/accept-released', 'transfer/cancelled'],
    async run(context) {
      const { stack, owner } = context;
      const share = await offeredTransfer(context);
      await workflowResult(stack, transferWorkflowId(share.id));
      const accept = await offeredTransfer(context, { requires_acceptance: true });
      const accepted = await call(stack.url, 'POST', `/v1/public/transfers/${accept.token}/accept`);
      if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${accepted.text}`);
      await workflowResult(stack, transferWorkflowId(accept.id));
      const cancel = await offeredTransfer(context, { requires_acceptance: true });
      const cancelled = await call(stack.url, 'POST', `/v1/transfers/${cancel.id}/cancel`, { key: owner.key });
      if (cancelled.status !== 200) throw new Error(`cancel: ${cancelled.status} ${cancelled.text}`);
      await workflowResult(stack, transferWorkflowId(cancel.id));
      return {
        'transfer/share-released': transferWorkflowId(share.id),
        'transfer/accept-released': transferWorkflowId(accept.id),
        'transfer/cancelled': transferWorkflowId(cancel.id),
      };
    },
  },
  {
    histories: ['transfer/sign-released', 'transfer/sign-blocked'],
    async run(context) {
      const other = { name: 'Tom Two', email: `tom-${Date.now()}@example.test` };
      const { documentId, otherSignUrl } = await ownNda(context, other);
      const signed = await offeredTransfer(context, { document_id: documentId });
      const applied = await signByMandate(context, documentId);
      if (applied.status !== 200) throw new Error(`L2 sign: ${applied.status} ${applied.text}`);
      await signOnPage(context, otherSignUrl, other.email);
      await workflowResult(context.stack, transferWorkflowId(signed.id));
      const decliner = { name: 'Dan Decline', email: `dan-${Date.now()}@example.test` };
      const declined = await ownNda(context, decliner);
      const blocked = await offeredTransfer(context, { document_id: declined.documentId });
      const session = await new SignerSession(context.stack, declined.otherSignUrl, decliner.email).verify();
      const answer = await session.request('POST', '/decline', { reason: 'no' });
      if (answer.status !== 200) throw new Error(`decline: ${answer.status} ${answer.text}`);
      await workflowResult(context.stack, transferWorkflowId(blocked.id));
      return { 'transfer/sign-released': transferWorkflowId(signed.id), 'transfer/sign-blocked': transferWorkflowId(blocked.id) };
    },
  },
  {
    histories: ['ping/ping'],
    async run({ stack }) {
      const workflowId = pingWorkflowId(`replay-${Date.now()}`);
      await stack.deps.temporal.client.workflow.execute(PING_WORKFLOW, {
        workflowId,
        taskQueue: stack.deps.temporal.taskQueue,
        args: [{ message: 'replay' }],
      });
      return { 'ping/ping': workflowId };
    },
  },
];

/**
 * The relay never ends (it continues as new every 500 rounds): its history is taken from a stack of
 * its own while it runs, covering a full batch (no rest), a partial one and an idle round (rests).
 */
export const RELAY = 'outbox-relay/full-batch-then-idle';
export async function recordRelay(): Promise<string> {
  const stack = await startStack({ worker: false, env: { ...DURATIONS, SVC_OUTBOX_POLL_MS: '500' } });
  try {
    const account = await createAccount(stack.deps.db);
    await stack.deps.db.transaction(async (trx) => {
      for (let i = 0; i < 150; i += 1) await writeEvent(trx, account.tenantId, 'document.signed', { replay: i });
    });
    const worker = await startWorker(stack.deps);
    const handle = stack.deps.temporal.client.workflow.getHandle(relayWorkflowId(stack.deps.temporal.taskQueue));
    try {
      await waitFor('two idle rounds of the relay', async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        return events.filter((event) => event.timerFiredEventAttributes).length >= 2;
      });
    } finally {
      await worker.stop();
    }
    const history = await handle.fetchHistory();
    await handle.terminate('recorded');
    return historyToJson(history);
  } finally {
    await stack.close();
  }
}
