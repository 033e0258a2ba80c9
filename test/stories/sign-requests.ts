// Stories of the L1 sign request's workflow: confirmed, declined, expired, and a forged signal.
import { signRequestWorkflowId } from '../../workflows/signing/shared';
import { sentNda } from '../documents';
import type { Account } from '../factories';
import { call } from '../http';
import { AppClient, mandatedAccount } from '../principal';
import { waitFor } from '../wait';
import { type Context, type Story, workflowResult } from './context';

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

export const SIGN_REQUEST_STORIES: Story[] = [
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
];
