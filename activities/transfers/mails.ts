// The transfer offer mail to each recipient; its words come from the message catalogue (`mail.*`) in the current locale.
import { t } from '../../lib/i18n';
import type { MailText } from '../mail/text';

const MODE = {
  share: 'mail.transferOffer.mode.share',
  sign: 'mail.transferOffer.mode.sign',
  accept: 'mail.transferOffer.mode.accept',
} as const;

/** A recipient's claim link to the files, and when the files unlock (by the transfer's mode). */
export function transferOfferMail(input: {
  recipientName: string;
  senderName: string;
  senderEmail: string;
  transferName: string;
  mode: 'share' | 'sign' | 'accept';
  claimUrl: string;
}): MailText {
  const { senderName: sender, transferName: transfer } = input;
  return {
    subject: t('mail.transferOffer.subject', { sender, transfer }),
    text: [
      t('mail.greeting', { name: input.recipientName }),
      '',
      t('mail.transferOffer.sent', { sender, senderEmail: input.senderEmail, transfer }),
      t(MODE[input.mode]),
      '',
      t('mail.transferOffer.open', { url: input.claimUrl }),
      t('mail.transferOffer.keep'),
    ].join('\n'),
  };
}
