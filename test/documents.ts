import { createTemplate } from '../activities/templates/templates';
import type { Template } from '../db/models';
import { randomBase62 } from '../lib/ids';
import { buildSampleNda, buildSampleServicesAgreement } from '../lib/pdf/samples';
import type { Account } from './factories';
import { call, type Reply } from './http';
import { dataUrl, signaturePng } from './images';
import type { ReceivedMail } from './smtp';
import type { Stack } from './stack';
import { waitFor } from './wait';

/** The two sample templates in the account's tenant. */
export async function seedSamples(stack: Stack, account: Account): Promise<{ nda: Template; services: Template }> {
  const make = async (build: typeof buildSampleNda) => {
    const sample = await build();
    return createTemplate(stack.deps, {
      tenantId: account.tenantId,
      pdf: sample.pdf,
      definition: { name: sample.name, roles: sample.roles, widgets: sample.widgets },
      createdBy: 'test',
    });
  };
  return { nda: await make(buildSampleNda), services: await make(buildSampleServicesAgreement) };
}

export async function createDocument(stack: Stack, account: Account, body: Record<string, unknown>): Promise<Reply> {
  return call(stack.url, 'POST', '/v1/documents', { key: account.key, body });
}

export interface SentNdaOptions {
  /** The signer's role: 0 (Disclosing Party, the default) or 1 (Receiving Party); the counterparty takes the other. */
  position?: 0 | 1;
  /** strict_order (false unless given). */
  strict?: boolean;
  /** Sent at once (true unless given); false leaves a draft. */
  send?: boolean;
  /** The document's name. */
  name?: string;
  /** The counterparty: its name ('Carl Counterparty' unless given) and e-mail (a fresh unique address unless given). */
  other?: { name?: string; email?: string };
}

/**
 * A document from `sender` on `template` (a two-role NDA) where `signer` signs in role `position` and a
 * counterparty in the other; answers the created document's body, and throws unless the create answered 201.
 */
export async function sentNda(
  stack: Stack,
  sender: Account,
  template: Template,
  signer: { name: string; email: string },
  options: SentNdaOptions = {},
): Promise<any> {
  const me = { name: signer.name, email: signer.email };
  const other = {
    name: options.other?.name ?? 'Carl Counterparty',
    email: options.other?.email ?? `counterparty-${randomBase62(12).toLowerCase()}@example.test`,
  };
  const created = await createDocument(stack, sender, {
    template_id: template.id,
    name: options.name ?? 'Inbound NDA',
    signers: options.position === 1 ? [other, me] : [me, other],
    send: options.send ?? true,
    strict_order: options.strict ?? false,
  });
  if (created.status !== 201) throw new Error(`create document: ${created.status} ${created.text}`);
  return created.body;
}

/**
 * An NDA sent to `signer` (the first role) and `other` (the second), and the first signer's verified
 * session on its sign page: the start of most sign-page tests.
 */
export async function firstSignerOf(
  stack: Stack,
  sender: Account,
  template: Template,
  signer: { name: string; email: string },
  options: SentNdaOptions = {},
): Promise<{ documentId: string; session: SignerSession }> {
  const sent = await sentNda(stack, sender, template, signer, options);
  const first = sent.signers[0];
  return { documentId: sent.document_id, session: await new SignerSession(stack, first.sign_url, first.email).verify() };
}

/** The newest mail to an address with a purpose, as the stack's SMTP listener received it. */
export async function latestMail(stack: Stack, to: string, purpose: string): Promise<ReceivedMail | undefined> {
  if (!stack.smtp) throw new Error('latestMail needs the SMTP listener of the stack (the test set SMTP_URL itself)');
  return stack.smtp.latest(to, purpose);
}

/** A signer's browser session over HTTP: asks for the e-mailed code, reads it from the outbox, verifies. */
export class SignerSession {
  cookie = '';

  constructor(
    readonly stack: Stack,
    readonly signUrl: string,
    readonly email: string,
  ) {}

  /** The sign URL's path on the test server (the link carries SVC_PUBLIC_URL's host). */
  get path(): string {
    return new URL(this.signUrl).pathname;
  }

  request(method: string, suffix: string, body?: unknown): Promise<Reply> {
    return call(this.stack.url, method, `${this.path}${suffix}`, { body, headers: this.cookie ? { cookie: this.cookie } : {} });
  }

  /** Signs with a drawn signature (the sample PNG) and these field values, as the sign page posts it. */
  sign(values: Record<string, string> = {}): Promise<Reply> {
    return this.request('POST', '/sign', { consent: true, signature: { method: 'drawn', image: dataUrl(signaturePng()) }, values });
  }

  async verify(): Promise<this> {
    const sent = await this.request('POST', '/code');
    if (sent.status !== 200) throw new Error(`code: ${sent.status} ${sent.text}`);
    const mail = await latestMail(this.stack, this.email, 'sign-code');
    const code = /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1];
    const response = await fetch(`${this.stack.url}${this.path}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, challenge: sent.body.challenge }),
    });
    if (response.status !== 200) throw new Error(`verify: ${response.status} ${await response.text()}`);
    this.cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
    return this;
  }
}

/** The document's current sealed PDF, fetched as a client would: a download URL from the API, then the file. */
export async function downloadPdf(stack: Stack, key: string, documentId: string): Promise<Buffer> {
  const download = await call(stack.url, 'GET', `/v1/documents/${documentId}/download`, { key });
  if (download.status !== 200) throw new Error(`download: ${download.status} ${download.text}`);
  const response = await fetch(download.body.url.replace(stack.config.publicUrl, stack.url));
  return Buffer.from(await response.arrayBuffer());
}

/** A document as its owner sees it, once `ready(document)` holds (e.g. a status reached). */
export async function waitForDocument(
  stack: Stack,
  key: string,
  documentId: string,
  ready: (document: any) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<any> {
  return waitFor(
    what,
    async () => {
      const reply = await call(stack.url, 'GET', `/v1/documents/${documentId}`, { key });
      if (reply.status !== 200) throw new Error(`GET document: ${reply.status} ${reply.text}`);
      return ready(reply.body) ? reply.body : undefined;
    },
    timeoutMs,
  );
}
