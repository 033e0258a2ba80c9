import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** Envelope recipients, lower-case. */
  to: string[];
  from: string;
  subject: string;
  /** The body, transfer-decoded. */
  text: string;
  /** The service's X-Svc-Purpose header (sign-code, login-code, sign-invite …). */
  purpose: string;
  raw: string;
}

export interface SmtpListener {
  /** The SMTP_URL for the service under test. */
  url: string;
  mails: ReceivedMail[];
  /** The next mail to `to` not taken yet (optionally with a subject matching), waited for. */
  nextMail(to: string, options?: { subject?: RegExp; timeoutMs?: number }): Promise<ReceivedMail>;
  /** The newest mail received for `to` with this purpose (X-Svc-Purpose), if any. */
  latest(to: string, purpose: string): ReceivedMail | undefined;
  /** Recipients whose RCPT TO the server refuses for good (550), as a relay does for an unknown mailbox. */
  refuse(address: string): void;
  /** Forgets every mail received and every refusal (the shared stack, between one file and the next). */
  reset(): void;
  close(): Promise<void>;
}

function header(head: string, name: string): string {
  // Folded header lines continue with whitespace.
  const match = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(head);
  return match ? match[1].replace(/\r?\n[ \t]+/g, ' ').trim() : '';
}

/** RFC 2047 encoded words (=?utf-8?Q?…?= / =?utf-8?B?…?=), as nodemailer writes non-ASCII subjects. */
function decodeWords(value: string): string {
  return value.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_, _charset: string, kind: string, data: string) =>
    kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : quotedPrintable(data.replace(/_/g, ' ')),
  );
}

function quotedPrintable(text: string): string {
  const bytes = Buffer.from(text.replace(/=\r?\n/g, ''), 'latin1');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i += 1) {
    const hex = bytes[i] === 0x3d ? bytes.subarray(i + 1, i + 3).toString('latin1') : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      out.push(parseInt(hex, 16));
      i += 2;
    } else out.push(bytes[i]);
  }
  return Buffer.from(out).toString('utf8');
}

export function parseMail(raw: string, envelope: { to: string[]; from: string }): ReceivedMail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const encoding = header(head, 'Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'quoted-printable' ? quotedPrintable(body) : encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body;
  return { ...envelope, subject: decodeWords(header(head, 'Subject')), text, purpose: header(head, 'X-Svc-Purpose'), raw };
}

/** The code in a mail: 10 digits (login, mandate grant) or 6 (sign link). */
export function codeIn(mail: ReceivedMail): string {
  const code = /\b(\d{10}|\d{6})\b/.exec(mail.text)?.[1];
  if (!code) throw new Error(`no code in the mail "${mail.subject}"`);
  return code;
}

/**
 * A real SMTP server on loopback that keeps every message it is given. The service delivers to it
 * with nodemailer when started with SMTP_URL=listener.url; no TLS, no authentication.
 */
export async function startSmtpListener(): Promise<SmtpListener> {
  const mails: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const refused = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!refused.has(address.address.toLowerCase())) return callback();
      const error = Object.assign(new Error(`5.1.1 <${address.address}>: mailbox unavailable`), { responseCode: 550 });
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((address) => address.address.toLowerCase());
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        mails.push(parseMail(Buffer.concat(chunks).toString('latin1'), { to, from }));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // smtp-server re-emits each connection's error on the server: a client killed mid-conversation (a
  // worker process a test kills) resets its socket, and an 'error' nobody listens to would throw in the
  // test process. The connection is gone; the listener goes on.
  server.on('error', () => undefined);
  const { port } = server.server.address() as { port: number };

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async nextMail(to, options = {}) {
      const address = to.toLowerCase();
      const deadline = Date.now() + (options.timeoutMs ?? 20_000);
      for (;;) {
        const mail = mails.find(
          (candidate) =>
            !taken.has(candidate) && candidate.to.includes(address) && (!options.subject || options.subject.test(candidate.subject)),
        );
        if (mail) {
          taken.add(mail);
          return mail;
        }
        if (Date.now() > deadline)
          throw new Error(
            `no mail to ${to}${options.subject ? ` matching ${options.subject}` : ''}; received: ${mails.map((m) => `${m.to.join(',')} "${m.subject}"`).join('; ') || 'none'}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    latest(to, purpose) {
      const address = to.toLowerCase();
      return mails.findLast((mail) => mail.to.includes(address) && mail.purpose === purpose);
    },
    refuse(address) {
      refused.add(address.toLowerCase());
    },
    reset() {
      mails.length = 0;
      taken.clear();
      refused.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
