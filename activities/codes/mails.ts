// The mails that carry a one-time code (sign-in, a sign link, a mandate grant) and the one that tells
// an owner of many wrong codes: their words from the message catalogue (`mail.*`), current locale.
import { t } from '../../lib/i18n';
import type { MailText } from '../mail/text';

/** A code's lifetime in whole minutes, at least one, as its mail states it. */
export function codeMinutes(ttlMs: number): number {
  return Math.max(1, Math.round(ttlMs / 60_000));
}

/** The sign-in code, with the one-use link that works in the browser that asked for it. */
export function loginCodeMail(input: { code: string; minutes: number; linkUrl: string }): MailText {
  const { code, minutes } = input;
  return {
    subject: t('mail.loginCode.subject', { code }),
    text: [
      t('mail.loginCode.is', { code }),
      '',
      t('mail.loginCode.once', { minutes }),
      '',
      t('mail.loginCode.link'),
      input.linkUrl,
      '',
      t('mail.loginCode.ignore'),
    ].join('\n'),
  };
}

/** The code that opens a sign link for its signer. */
export function signCodeMail(input: { code: string; minutes: number; documentName: string }): MailText {
  const { code, minutes, documentName: document } = input;
  return {
    subject: t('mail.signCode.subject', { document, code }),
    text: [t('mail.code.is', { code }), '', t('mail.signCode.enter', { document, minutes }), t('mail.signCode.ignore')].join('\n'),
  };
}

/** A mandate grant's code (and its one-use confirmation link when the app session asked); ends with the stop section. */
export function grantCodeMail(input: {
  code: string;
  level: string;
  mandateName: string;
  keyLabel: string;
  keyPrefix: string;
  linkUrl?: string;
  stopLines: string[];
}): MailText {
  const { code, level, mandateName: mandate } = input;
  return {
    subject: t('mail.grant.subject', { mandate, code }),
    text: [
      t('mail.code.is', { code }),
      '',
      t('mail.grant.enter', { level, mandate, key: input.keyLabel, prefix: input.keyPrefix }),
      ...(input.linkUrl ? ['', t('mail.grant.link'), input.linkUrl] : []),
      t('mail.grant.unexpected'),
      ...input.stopLines,
    ].join('\n'),
  };
}

/** What the wrong codes tried to open, in the owner's mail (`what`: made by the rule that checks the code). */
export const lockedWhat = {
  signIn: () => t('mail.codeLocked.what.signIn'),
  signLink: (documentName: string) => t('mail.codeLocked.what.signLink', { document: documentName }),
  grant: (mandateName: string) => t('mail.codeLocked.what.grant', { mandate: mandateName }),
};

/** To the owner, once, when one address keeps entering wrong codes. `client` is the address's key ('unknown' without one). */
export function codeLockedMail(input: { what: string; client: string }): MailText {
  const client = input.client === 'unknown' ? t('mail.codeLocked.unknownAddress') : input.client;
  return {
    subject: t('mail.codeLocked.subject'),
    text: [t('mail.codeLocked.body', { what: input.what, client }), '', t('mail.codeLocked.wait'), t('mail.codeLocked.notYou')].join('\n'),
  };
}
