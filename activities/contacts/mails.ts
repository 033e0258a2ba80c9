// The contact invitation mail; its words come from the message catalogue (`mail.*`) in the current locale.
import { t } from '../../lib/i18n';
import type { MailText } from '../mail/text';

/** An invitation to become agent contacts, with the link to review and accept it in the app. */
export function contactInviteMail(input: {
  inviteeName: string;
  inviterName: string;
  inviterEmail: string;
  to: string;
  acceptUrl: string;
}): MailText {
  const inviter = input.inviterName;
  return {
    subject: t('mail.contactInvite.subject', { inviter }),
    text: [
      t('mail.greeting', { name: input.inviteeName }),
      '',
      t('mail.contactInvite.invites', { inviter, inviterEmail: input.inviterEmail }),
      t('mail.contactInvite.signsNothing'),
      '',
      t('mail.contactInvite.review', { email: input.to, url: input.acceptUrl }),
    ].join('\n'),
  };
}
