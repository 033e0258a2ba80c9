// The secrets a test was handed (API keys, claim tokens, webhook and inbox secrets, link tokens,
// session cookies, one-time codes) and a scan of stored bytes for their raw values.
import { inflateSync } from 'node:zlib';
import type { Db } from '../../db/connect';
import { pdfText } from '../pdf-tools';
import type { ReceivedMail } from '../smtp';

/** A signed link token `<id or message>.<MAC>` (sign, confirm, download links): the MAC (HMAC-SHA256, base64url) is the secret. */
const MAC_TOKEN = /\.([A-Za-z0-9_-]{43})$/;
/** Answer fields whose values are secrets, or links that carry one. */
const SECRET_FIELDS = new Set(['key', 'secret', 'token', 'inbox_secret', 'sign_url', 'confirm_url', 'accept_url', 'claim_url']);

export interface Secret {
  /** What it is (e.g. `claim token`), for the report. */
  kind: string;
  value: string;
}

export interface Finding {
  kind: string;
  /** The secret's first characters only: the report must not print it whole. */
  value: string;
  where: string;
  context: string;
}

export class MintedSecrets {
  readonly all = new Map<string, Secret>();

  add(kind: string, value: string | undefined): void {
    if (!value) return;
    if (!this.all.has(value)) this.all.set(value, { kind, value });
  }

  /**
   * The secret parts of a link: the MAC of each `<message>.<MAC>` segment or query value, a raw
   * claim token, any other long query value (an accept token). Ids in paths are public.
   */
  addUrl(kind: string, url: string): void {
    const parsed = new URL(url);
    const take = (value: string, where: string, whole: boolean) => {
      const mac = MAC_TOKEN.exec(value);
      if (mac) this.add(`${kind} (${where} MAC)`, mac[1]);
      else if (value.startsWith('svcxfer_')) this.add(`${kind} (claim token)`, value);
      else if (whole && value.length >= 20) this.add(`${kind} (${where})`, value);
    };
    for (const segment of parsed.pathname.split('/')) take(segment, 'path', false);
    for (const [name, value] of parsed.searchParams) take(value, `?${name}`, true);
  }

  /** Every secret field of an API answer, at any depth (download answers: their `url`s). */
  addAnswer(what: string, body: unknown, parentKey = ''): void {
    if (Array.isArray(body)) for (const item of body) this.addAnswer(what, item, parentKey);
    else if (body && typeof body === 'object') {
      for (const [name, value] of Object.entries(body)) {
        if (typeof value === 'string' && (SECRET_FIELDS.has(name) || (name === 'url' && value.includes('/files/')))) {
          if (/^https?:\/\//.test(value)) this.addUrl(`${what} ${name}`, value);
          else this.add(`${what} ${name}`, value);
        } else this.addAnswer(what, value, name);
      }
    }
  }

  /** A mail's one-time code and the token of every link in it. */
  addMail(mail: ReceivedMail): void {
    if (mail.purpose.endsWith('-code')) {
      for (const code of mail.text.match(/\b(?:\d{10}|\d{6})\b/g) ?? []) this.add(`one-time code (${mail.purpose})`, code);
    }
    for (const url of mail.text.match(/https?:\/\/[^\s"'<>)\]]+/g) ?? []) this.addUrl(`link in ${mail.purpose} mail`, url);
  }

  /** A session cookie's value (`name=value`). */
  addCookie(kind: string, cookie: string): void {
    this.add(kind, cookie.split('=').slice(1).join('='));
  }

  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { kind } of this.all.values()) {
      const family = kind.replace(/ \(.*\)$/, '');
      counts[family] = (counts[family] ?? 0) + 1;
    }
    return counts;
  }
}

/** A code (6 or 10 digits) counts only standing alone (not inside a longer number or word); anything else is found as a substring. */
function positions(haystack: string, secret: Secret): number[] {
  const found: number[] = [];
  if (/^(?:\d{10}|\d{6})$/.test(secret.value)) {
    const pattern = new RegExp(`(?<![0-9A-Za-z])${secret.value}(?![0-9A-Za-z])`, 'g');
    for (const match of haystack.matchAll(pattern)) found.push(match.index);
    return found;
  }
  for (let at = haystack.indexOf(secret.value); at >= 0; at = haystack.indexOf(secret.value, at + 1)) found.push(at);
  return found;
}

export class SecretScanner {
  readonly findings: Finding[] = [];
  /** What was scanned, by source: items and bytes. */
  readonly scanned: Record<string, { items: number; bytes: number }> = {};

  constructor(private readonly secrets: MintedSecrets) {}

  scanText(source: string, where: string, text: string): void {
    this.scanned[source] ??= { items: 0, bytes: 0 };
    const tally = this.scanned[source];
    tally.items += 1;
    tally.bytes += text.length;
    for (const secret of this.secrets.all.values()) {
      for (const at of positions(text, secret)) {
        this.findings.push({
          kind: secret.kind,
          value: `${secret.value.slice(0, 6)}…`,
          where,
          context: text.slice(Math.max(0, at - 80), at).replace(/\s+/g, ' '),
        });
      }
    }
  }

  /** Bytes as stored, and for a PDF also its inflated streams and its text as pdftotext reads it. */
  async scanBytes(source: string, where: string, bytes: Buffer): Promise<void> {
    this.scanText(source, where, bytes.toString('latin1'));
    if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') return;
    const raw = bytes.toString('latin1');
    const inflated: string[] = [];
    for (const match of raw.matchAll(/stream\r?\n/g)) {
      const start = match.index + match[0].length;
      const end = raw.indexOf('endstream', start);
      if (end < 0) continue;
      try {
        inflated.push(inflateSync(bytes.subarray(start, end)).toString('latin1'));
      } catch {
        // not a Flate stream (an image, a signature's contents)
      }
    }
    this.scanText(source, `${where} (inflated streams)`, inflated.join('\n'));
    this.scanText(source, `${where} (pdftotext)`, await pdfText(bytes));
  }

  /** Every row of every table in the database's public schema, as PostgreSQL prints the row. */
  async scanDatabase(db: Db): Promise<void> {
    const tables = await db('information_schema.tables').where({ table_schema: 'public', table_type: 'BASE TABLE' }).pluck('table_name');
    for (const table of tables as string[]) {
      const { rows } = await db.raw(`select t::text as row from "${table}" t`);
      this.scanText('database', `table ${table}`, (rows as Array<{ row: string }>).map((row) => row.row).join('\n'));
    }
  }
}
