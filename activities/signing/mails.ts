// The sign request's mails to its principal: the request to confirm, and a confirmation that could
// not be applied. Their words come from the message catalogue (`mail.*`) in the current locale.
import { t } from '../../lib/i18n';
import { formatInstant } from '../../lib/i18n/instant';
import type { MailText } from '../mail/text';

/** The agent's request to confirm a signature (L1): its reason, the confirm link, its expiry; ends with the stop section. */
export function signRequestMail(input: {
  principalName: string;
  documentName: string;
  reason: string;
  confirmUrl: string;
  expiresAt: Date;
  stopLines: string[];
}): MailText {
  const document = input.documentName;
  return {
    subject: t('mail.signRequest.subject', { document }),
    text: [
      t('mail.greeting', { name: input.principalName }),
      '',
      t('mail.signRequest.asks', { document }),
      t('mail.agent.reason', { reason: input.reason }),
      '',
      t('mail.signRequest.review', { url: input.confirmUrl }),
      t('mail.signRequest.expires', { at: formatInstant(input.expiresAt) }),
      ...input.stopLines,
    ].join('\n'),
  };
}

/** A confirmed request that could not become an apply (the mandate was revoked meanwhile …): why, and that nothing was signed. */
export function confirmationFailedMail(input: {
  principalName: string;
  documentName: string;
  documentId: string;
  error: { message: string; code: string };
}): MailText {
  const document = input.documentName;
  return {
    subject: t('mail.principalRejected.subject', { document }),
    text: [
      t('mail.greeting', { name: input.principalName }),
      '',
      t('mail.confirmationFailed.body', { document, documentId: input.documentId }),
      t('mail.rejected.why', { message: input.error.message, code: input.error.code }),
      '',
      t('mail.rejected.nothingSigned'),
    ].join('\n'),
  };
}
