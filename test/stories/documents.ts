// Stories of the document workflow (applies, completion, decline) and of the mails it sends.
import fs from 'node:fs';
import path from 'node:path';
import { DocumentRevision } from '../../db/models';
import { documentWorkflowId } from '../../workflows/document/shared';
import { mailWorkflowId } from '../../workflows/mail/shared';
import { createDocument, SignerSession, sentNda, waitForDocument } from '../documents';
import { call } from '../http';
import { dataUrl, signaturePng } from '../images';
import { principalOf } from '../principal';
import { type Context, mailId, type Story, workflowResult } from './context';

/** The owner's own NDA: they sign first (L2), a signer who is no principal second. */
export async function ownNda(context: Context, other: { name: string; email: string }) {
  const principal = await principalOf(context.stack, context.owner);
  const created = await sentNda(context.stack, context.owner, context.nda, principal, { name: 'Replay NDA', other });
  return { documentId: created.document_id as string, otherSignUrl: created.signers[1].sign_url as string };
}

export async function signByMandate(context: Context, documentId: string) {
  return call(context.stack.url, 'POST', `/v1/documents/${documentId}/sign`, { key: context.owner.key, body: { reason: 'agreed' } });
}

export async function signOnPage(context: Context, signUrl: string, email: string) {
  const session = await new SignerSession(context.stack, signUrl, email).verify();
  const signed = await session.request('POST', '/sign', {
    consent: true,
    signature: { method: 'drawn', image: dataUrl(signaturePng()) },
    values: { 'receiving-title': 'CFO' },
  });
  if (signed.status !== 200) throw new Error(`sign page: ${signed.status} ${signed.text}`);
}

export const DOCUMENT_STORIES: Story[] = [
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
      await stack.deps.workflows.apply({ id: 'apl_doesnotexist00000000', document_id: documentId, tenant_id: 'ten_unknown' }, {});
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
    // Patch document-waits: two reminders on schedule (strict order: the first signer only), then the expiry.
    histories: ['document/reminded-then-expired'],
    async run(context) {
      const { stack, owner, nda } = context;
      const created = await createDocument(stack, owner, {
        template_id: nda.id,
        name: 'Reminded NDA',
        send: true,
        strict_order: true,
        signers: [
          { name: 'Rita Reminded', email: `rita-${Date.now()}@example.test` },
          { name: 'Sid Second', email: `sid-${Date.now()}@example.test` },
        ],
        reminders: { first_after: 'PT1S', every: 'PT1S', max: 2 },
        expires_at: new Date(Date.now() + 4000).toISOString(),
      });
      if (created.status !== 201) throw new Error(`create document: ${created.status} ${created.text}`);
      const documentId = created.body.document_id as string;
      const ended = await workflowResult(stack, documentWorkflowId(documentId));
      if (ended.status !== 'expired') throw new Error(`expected expired, got ${JSON.stringify(ended)}`);
      return { 'document/reminded-then-expired': documentWorkflowId(documentId) };
    },
  },
  {
    // Patch document-waits with a schedule that never comes: the document is voided first (the settle signal).
    histories: ['document/voided'],
    async run(context) {
      const { stack, owner, nda } = context;
      const created = await createDocument(stack, owner, {
        template_id: nda.id,
        name: 'Voided NDA',
        send: true,
        signers: [
          { name: 'Vic Voided', email: `vic-${Date.now()}@example.test` },
          { name: 'Wen Voided', email: `wen-${Date.now()}@example.test` },
        ],
        reminders: { first_after: 'P1D' },
        expires_at: new Date(Date.now() + 7 * 24 * 3600_000).toISOString(),
      });
      if (created.status !== 201) throw new Error(`create document: ${created.status} ${created.text}`);
      const documentId = created.body.document_id as string;
      await mailId(stack, created.body.signers[1].email, 'sign-invite');
      const voided = await call(stack.url, 'POST', `/v1/documents/${documentId}/void`, {
        key: owner.key,
        body: { reason: 'Sent by mistake' },
      });
      if (voided.status !== 200) throw new Error(`void: ${voided.status} ${voided.text}`);
      await workflowResult(stack, documentWorkflowId(documentId));
      return { 'document/voided': documentWorkflowId(documentId) };
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
];
