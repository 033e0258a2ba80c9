/**
 * A mail's words: its subject and plain-text body, written by a mail function (activities/<room>/mails.ts)
 * from the message catalogue (`mail.*`) in the current locale; the rule that sends it adds the
 * recipient, purpose, secrets and dedupe key.
 */
export interface MailText {
  subject: string;
  text: string;
}
