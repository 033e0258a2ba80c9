// The mails of a document's life, to its signers and its sender: what each says, from the message
// catalogue (lib/i18n, `mail.*`) in the current locale. The rules (invitations, reminders, void,
// notify) choose whom to mail and when; these functions only write the mail, from plain values.
import { formatDay, formatMoment, t } from '../../lib/i18n';
import { formatInstant } from '../../lib/i18n/instant';
import type { MailText } from '../mail/text';

interface SignerInvite {
  signerName: string;
  role: string;
  ownerName: string;
  ownerEmail: string;
  documentName: string;
  signUrl: string;
}

/** A signer's invitation to sign, with their sign link. */
export function inviteMail(input: SignerInvite): MailText {
  const { signerName, role, ownerName: owner, ownerEmail, documentName: document, signUrl: url } = input;
  return {
    subject: t('mail.invite.subject', { owner, document }),
    text: [
      t('mail.greeting', { name: signerName }),
      '',
      t('mail.invite.asks', { owner, ownerEmail, document, role }),
      '',
      t('mail.document.open', { url }),
      '',
      t('mail.invite.code'),
      t('mail.invite.unexpected'),
    ].join('\n'),
  };
}

/** A reminder to a pending signer, with their sign link (and the document's expiry, if it has one). */
export function reminderMail(input: SignerInvite & { expiresAt: Date | null }): MailText {
  const { signerName, role, ownerName: owner, ownerEmail, documentName: document, signUrl: url, expiresAt } = input;
  return {
    subject: t('mail.reminder.subject', { owner, document }),
    text: [
      t('mail.greeting', { name: signerName }),
      '',
      expiresAt
        ? t('mail.reminder.waitingUntil', { owner, ownerEmail, document, role, until: formatMoment(expiresAt) })
        : t('mail.reminder.waiting', { owner, ownerEmail, document, role }),
      '',
      t('mail.document.open', { url }),
      '',
      t('mail.reminder.decline'),
    ].join('\n'),
  };
}

/** To a pending signer of a voided document: their link no longer works, and the sender's reason. */
export function voidedMail(input: { signerName: string; documentName: string; reason: string | null }): MailText {
  const document = input.documentName;
  return {
    subject: t('mail.voided.subject', { document }),
    text: [
      t('mail.greeting', { name: input.signerName }),
      '',
      t('mail.voided.body', { document }),
      t('mail.voided.reason', { reason: String(input.reason) }),
      '',
      t('mail.voided.nothingToDo'),
    ].join('\n'),
  };
}

/** Why an apply was rejected, as its mail says: the stored message (or a general one) and its code. */
export function rejectionReason(message: string | null | undefined, code: string | null | undefined): string {
  return t('mail.rejected.why', { message: message ?? t('mail.rejected.unknown'), code: code ?? 'sign_failed' });
}

/** To a browser signer whose signature was rejected: why, and their link to sign again. */
export function signerRejectedMail(input: { signerName: string; documentName: string; why: string; signUrl: string }): MailText {
  const document = input.documentName;
  return {
    subject: t('mail.signerRejected.subject', { document }),
    text: [
      t('mail.greeting', { name: input.signerName }),
      '',
      t('mail.signerRejected.body', { document }),
      input.why,
      '',
      t('mail.signerRejected.again', { url: input.signUrl }),
    ].join('\n'),
  };
}

/** To a principal whose apply under a mandate was rejected: why, and that nothing was signed; ends with the stop section. */
export function principalRejectedMail(input: {
  principalName: string;
  documentName: string;
  documentId: string;
  level: string;
  mandateName: string;
  mandateId: string;
  why: string;
  stopLines: string[];
}): MailText {
  const document = input.documentName;
  return {
    subject: t('mail.principalRejected.subject', { document }),
    text: [
      t('mail.greeting', { name: input.principalName }),
      '',
      t('mail.principalRejected.body', {
        document,
        documentId: input.documentId,
        level: input.level,
        mandate: input.mandateName,
        mandateId: input.mandateId,
      }),
      input.why,
      '',
      t('mail.rejected.nothingSigned'),
      ...input.stopLines,
    ].join('\n'),
  };
}

/** SPEC apply step 9: what an L2 apply signed, by which key, under which mandate; ends with the stop section. */
export function appliedMail(input: {
  principalName: string;
  mandateName: string;
  mandateId: string;
  keyLabel: string;
  keyPrefix: string;
  documentName: string;
  documentId: string;
  appliedAt: Date;
  reason: string | null | undefined;
  hashBefore: string | null;
  hashAfter: string | null;
  /** The mandate's policy in plain words, when it has one: what this apply was checked against and kept to. */
  policyLines?: string[];
  stopLines: string[];
}): MailText {
  const document = input.documentName;
  const policy = input.policyLines?.length ? ['', t('mail.applied.policy'), ...input.policyLines.map((line) => `- ${line}`)] : [];
  return {
    subject: t('mail.applied.subject', { document }),
    text: [
      t('mail.greeting', { name: input.principalName }),
      '',
      t('mail.applied.body', {
        mandate: input.mandateName,
        mandateId: input.mandateId,
        key: input.keyLabel,
        prefix: input.keyPrefix,
        document,
        documentId: input.documentId,
        at: formatInstant(input.appliedAt),
      }),
      input.reason ? t('mail.agent.reason', { reason: input.reason }) : '',
      t('mail.applied.hashBefore', { sha256: String(input.hashBefore) }),
      t('mail.applied.hashAfter', { sha256: String(input.hashAfter) }),
      ...policy,
      '',
      t('mail.applied.unexpected'),
      ...input.stopLines,
    ].join('\n'),
  };
}

/** The completed PDF's link to one of its parties (a signer also gets their sign link, where it stays a while longer). */
export function completedMail(input: {
  name: string;
  documentName: string;
  documentId: string;
  completedAt: Date;
  signers: Array<{ name: string; email: string }>;
  link: { url: string; expiresAt: string };
  sha256: string;
  /** A signer's own sign link and the day it stops offering the copy; none for the sender. */
  signLink?: { url: string; until: Date };
}): MailText {
  const document = input.documentName;
  return {
    subject: t('mail.completed.subject', { document }),
    text: [
      t('mail.greeting', { name: input.name }),
      '',
      t('mail.completed.body', { document, documentId: input.documentId, at: formatInstant(input.completedAt) }),
      ...input.signers.map((signer) => t('mail.completed.signer', { name: signer.name, email: signer.email })),
      '',
      t('mail.completed.download', { until: input.link.expiresAt }),
      input.link.url,
      t('mail.completed.sha256', { sha256: input.sha256 }),
      input.signLink
        ? t('mail.completed.signLink', { day: formatDay(input.signLink.until), url: input.signLink.url })
        : t('mail.completed.inApp'),
    ].join('\n'),
  };
}
