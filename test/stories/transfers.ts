// Stories of the transfer workflow: released on sharing, on acceptance or on signature, cancelled, blocked.
import { transferWorkflowId } from '../../workflows/transfer/shared';
import { SignerSession } from '../documents';
import { driveSamples } from '../files';
import { call } from '../http';
import { type Context, type Story, workflowResult } from './context';
import { ownNda, signByMandate, signOnPage } from './documents';

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

export const TRANSFER_STORIES: Story[] = [
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
];
