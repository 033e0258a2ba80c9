import nodemailer, { type Transporter } from 'nodemailer';
import type { Db } from '../../db/connect';
import { MailMessage } from '../../db/models';
import { newId } from '../ids';
import type { Logger } from '../log';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** What the mail is for (sign-code, sign-invite …), kept with it in the outbox. */
  purpose: string;
  tenantId?: string | null;
  /** Secrets in the text (one-time codes): delivered, but never stored when SMTP carries the mail. */
  secrets?: string[];
  /** Mail with the same key is sent once, however often send is called (retried activities). */
  dedupeKey?: string;
}

export interface Mailer {
  readonly mode: 'smtp' | 'outbox';
  send(mail: OutgoingMail): Promise<MailMessage>;
  close(): void;
}

function redact(text: string, secrets: string[] = []): string {
  return secrets.reduce((out, secret) => out.split(secret).join('••••••'), text);
}

/**
 * SMTP at SMTP_URL when set; otherwise the embedded outbox: the mail is stored in the database,
 * printed to the log and listed at /dev/mail (development only, where it is the delivery).
 */
export function createMailer(options: { db: Db; log: Logger; smtpUrl?: string; from: string }): Mailer {
  const { db, log } = options;
  let transport: Transporter | undefined;
  const smtp = () => (transport ??= nodemailer.createTransport(options.smtpUrl, { from: options.from }));
  return {
    mode: options.smtpUrl ? 'smtp' : 'outbox',
    async send(mail) {
      const row = {
        tenant_id: mail.tenantId ?? null,
        to_address: mail.to,
        subject: mail.subject,
        text: options.smtpUrl ? redact(mail.text, mail.secrets) : mail.text,
        purpose: mail.purpose,
        dedupe_key: mail.dedupeKey ?? null,
        status: 'stored' as const,
      };
      const existing = mail.dedupeKey ? await MailMessage.query(db).findOne({ dedupe_key: mail.dedupeKey }) : undefined;
      if (existing && (existing.status === 'sent' || !options.smtpUrl)) return existing;
      let stored = existing;
      if (!stored) {
        if (mail.dedupeKey) await MailMessage.query(db).insert({ id: newId('msg'), ...row }).onConflict('dedupe_key').ignore();
        stored = mail.dedupeKey
          ? (await MailMessage.query(db).findOne({ dedupe_key: mail.dedupeKey }))!
          : await MailMessage.query(db).insertAndFetch({ id: newId('msg'), ...row });
      }
      const message = stored;
      if (!options.smtpUrl) {
        log.info('mail stored in the outbox (no SMTP_URL)', { id: message.id, to: mail.to, subject: mail.subject, text: mail.text });
        return message;
      }
      try {
        await smtp().sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text });
        return message.$query(db).patchAndFetch({ status: 'sent', sent_at: new Date(), error: null });
      } catch (error) {
        log.error('mail delivery failed', { id: message.id, purpose: mail.purpose, error: (error as Error).message });
        await message.$query(db).patch({ status: 'failed', error: (error as Error).message.slice(0, 500) });
        throw error;
      }
    },
    close() {
      transport?.close();
    },
  };
}
