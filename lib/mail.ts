import type { Knex } from 'knex';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Db } from '../db/connect';
import { MailMessage } from '../db/models';
import { newId } from './ids';
import type { Logger } from './log';
import { mailAttemptFailures, mailFailures } from './metrics';
import { decryptSecret, encryptSecret } from './secrets/encrypt';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** What the mail is for (sign-code, sign-invite …), kept with it and sent as the X-Svc-Purpose header. */
  purpose: string;
  tenantId?: string | null;
  /** Secrets in the subject or text (one-time codes, link tokens): delivered, never stored or logged in the clear. */
  secrets?: string[];
  /** Mail with the same key is stored and sent once, however often it is queued (retried activities). */
  dedupeKey?: string;
  /** The document and signer the mail concerns, so the sender can see a failed invitation. */
  documentId?: string;
  signerId?: string;
}

export interface Mailer {
  readonly mode: 'smtp' | 'outbox';
  /** Sends now, for mail a person is waiting for (codes); MailNotSent when it does not go out. */
  send(mail: OutgoingMail): Promise<MailMessage>;
  /**
   * Stores the mail (its text sealed) for delivery by its own workflow; idempotent by dedupeKey. With
   * `trx`, the mail commits with the change that sends it (or not at all).
   */
  queue(mail: OutgoingMail, trx?: Knex.Transaction): Promise<MailMessage>;
  /** Delivers a queued mail once; throws when the relay refuses it (MailRefused when for good). */
  deliver(id: string): Promise<MailMessage>;
  /** A queued mail that could not be delivered: recorded as failed (the row, when this call failed it). */
  fail(id: string, reason: string, trx?: Knex.Transaction): Promise<MailMessage | undefined>;
  close(): void;
}

/** A mail sent now that did not go out; it is recorded as failed. */
export class MailNotSent extends Error {
  override name = 'MailNotSent';

  constructor(readonly mail: MailMessage) {
    super(`mail ${mail.id} was not sent: ${mail.error ?? 'unknown reason'}`);
  }
}

/** The relay refused the mail for good (a 5xx answer, e.g. an unknown recipient): retrying cannot help. */
export class MailRefused extends Error {
  override name = 'MailRefused';
}

const MASK = '••••••';
const SEAL = 'mail';

export function redact(text: string, secrets: string[] = []): string {
  return secrets.filter(Boolean).reduce((out, secret) => out.split(secret).join(MASK), text);
}

/**
 * SMTP at SMTP_URL when set; otherwise the embedded outbox (development and tests): the mail stays
 * in the database, redacted, and in development its full text is printed on the console. Nothing
 * stored or logged ever holds a code or a link token in the clear.
 */
export function createMailer(options: {
  db: Db;
  log: Logger;
  smtpUrl?: string;
  from: string;
  secret: Buffer;
  /** Development only: where the outbox shows each mail in full (the console), so a developer can sign in. */
  print?: (text: string) => void;
}): Mailer {
  const { db, log } = options;
  let transport: Transporter | undefined;
  const smtp = () => (transport ??= nodemailer.createTransport(options.smtpUrl, { from: options.from }));

  function row(mail: OutgoingMail, status: MailMessage['status']) {
    return {
      tenant_id: mail.tenantId ?? null,
      to_address: mail.to,
      subject: redact(mail.subject, mail.secrets),
      text: redact(mail.text, mail.secrets),
      purpose: mail.purpose,
      dedupe_key: mail.dedupeKey ?? null,
      document_id: mail.documentId ?? null,
      signer_id: mail.signerId ?? null,
      status,
    };
  }

  /** Hands the mail to the relay, or in outbox mode keeps it (and shows it on a developer's console). */
  async function transmit(message: MailMessage, full: { subject: string; text: string }): Promise<MailMessage> {
    if (!options.smtpUrl) {
      options.print?.(`\n--- mail to ${message.to_address} (no SMTP_URL) ---\nSubject: ${full.subject}\n\n${full.text}\n---\n`);
      return message.$query(db).patchAndFetch({ status: 'stored', sealed: null });
    }
    try {
      await smtp().sendMail({
        from: options.from,
        to: message.to_address,
        subject: full.subject,
        text: full.text,
        headers: { 'X-Svc-Purpose': message.purpose },
      });
    } catch (error) {
      const responseCode = (error as { responseCode?: number }).responseCode ?? 0;
      const reason = (error as Error).message.slice(0, 500);
      log.warn('mail delivery failed', { id: message.id, purpose: message.purpose, error: reason });
      mailAttemptFailures.inc({ purpose: message.purpose });
      await message.$query(db).patch({ error: reason });
      throw responseCode >= 500 && responseCode < 600 ? new MailRefused(reason) : new Error(`mail delivery failed: ${reason}`);
    }
    return message.$query(db).patchAndFetch({ status: 'sent', sent_at: new Date(), error: null, sealed: null });
  }

  /** Marks a queued mail failed for good; answers the row when this call failed it (once). */
  async function fail(id: string, reason: string, trx?: Knex.Transaction): Promise<MailMessage | undefined> {
    const failed = await MailMessage.query(trx ?? db)
      .findById(id)
      .whereIn('status', ['queued'])
      .patch({ status: 'failed', error: reason.slice(0, 500), sealed: null });
    if (!failed) return undefined;
    const message = await MailMessage.query(trx ?? db).findById(id);
    mailFailures.inc({ purpose: message?.purpose ?? 'unknown' });
    return message;
  }

  return {
    mode: options.smtpUrl ? 'smtp' : 'outbox',

    async send(mail) {
      const message = await MailMessage.query(db).insertAndFetch({ id: newId('msg'), ...row(mail, 'queued') });
      try {
        return await transmit(message, mail);
      } catch (error) {
        throw new MailNotSent((await fail(message.id, (error as Error).message)) ?? message);
      }
    },

    async queue(mail, trx) {
      const fields = {
        id: newId('msg'),
        ...row(mail, 'queued'),
        sealed: encryptSecret(options.secret, SEAL, JSON.stringify({ subject: mail.subject, text: mail.text })),
      };
      const on = trx ?? db;
      if (!mail.dedupeKey) return MailMessage.query(on).insertAndFetch(fields);
      await MailMessage.query(on).insert(fields).onConflict('dedupe_key').ignore();
      return (await MailMessage.query(on).findOne({ dedupe_key: mail.dedupeKey }))!;
    },

    async deliver(id) {
      const message = await MailMessage.query(db).findById(id);
      // Queued in a transaction that has not committed (yet): retried within the mail's budget.
      if (!message) throw new Error(`No mail ${id} (not committed yet, or rolled back).`);
      if (message.status !== 'queued' || !message.sealed) return message;
      return transmit(message, JSON.parse(decryptSecret(options.secret, SEAL, message.sealed)));
    },

    fail,

    close() {
      transport?.close();
    },
  };
}
