// Stories of the offer workflow: acknowledged and accepted or declined, escalated to the principal, expired.
import { offerWorkflowId } from '../../workflows/offer/shared';
import { connect } from '../contacts';
import { sentNda } from '../documents';
import type { Account } from '../factories';
import { call } from '../http';
import { AppClient, mandatedAccount } from '../principal';
import { type Context, type Story, workflowResult } from './context';

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

export const OFFER_STORIES: Story[] = [
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
];
