import { confirmGrant, startGrant } from '../activities/mandates/mandates';
import { storeAppearance } from '../activities/principals/appearance';
import { mandateDeps } from '../api/app/pages/common';
import { type ConfirmationLevel, type Mandate, type MandateMode, type MandatePolicy, Principal } from '../db/models';
import { latestMail } from './documents';
import { type Account, createAccount } from './factories';
import { signaturePng } from './images';
import type { Stack } from './stack';

function codeIn(text: string | undefined): string {
  const code = /\b(\d{10}|\d{6})\b/.exec(text ?? '')?.[1];
  if (!code) throw new Error('no code in the mail');
  return code;
}

/** The challenge a code page carries (its hidden field): a code works only with the page that asked for it. */
export function challengeIn(html: string): string {
  const challenge = /name="challenge" value="([^"]+)"/.exec(html)?.[1];
  if (!challenge) throw new Error('no code challenge in the page');
  return challenge;
}

/** The hidden fields of the page's form that posts to `action`, as a browser submits them. */
export function hiddenFields(html: string, action: string): Record<string, string> {
  const form = [...html.matchAll(/<form\b[^>]*>[\s\S]*?<\/form>/g)]
    .map((match) => match[0])
    .find((markup) => markup.includes(`action="${action}"`));
  const fields: Record<string, string> = {};
  for (const input of (form ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[input[1]] = input[2];
  return fields;
}

export async function principalOf(stack: Stack, account: Account): Promise<Principal> {
  return (await Principal.query(stack.deps.db).findById(account.principalId))!;
}

/** A mandate granted as the app grants it: clickwrap accepted, then the e-mailed code confirmed. */
export async function grantMandate(
  stack: Stack,
  account: Account,
  options: { level: ConfirmationLevel; mode?: MandateMode; expiresAt?: Date; name?: string; policy?: MandatePolicy },
): Promise<Mandate> {
  const { deps } = stack;
  const principal = await principalOf(stack, account);
  const actor = { type: 'principal' as const, id: principal.id, ip: '127.0.0.1' };
  const pending = await startGrant(
    mandateDeps(deps),
    principal,
    {
      apiKeyId: account.keyId,
      name: options.name ?? `${options.level} mandate`,
      level: options.level,
      mode: options.mode ?? 'both',
      expiresAt: options.expiresAt,
      policy: options.policy,
      consentAccepted: true,
    },
    actor,
  );
  const code = codeIn((await latestMail(stack, principal.email, 'mandate-code'))?.text);
  return confirmGrant(mandateDeps(deps), principal, pending.id, code, actor);
}

export async function giveAppearance(stack: Stack, account: Account, image: Buffer = signaturePng()): Promise<void> {
  await storeAppearance(stack.deps, await principalOf(stack, account), image, { type: 'principal', id: account.principalId });
}

export interface MandatedAccountOptions<L extends ConfirmationLevel | null> {
  /** The mandate's level (L2 unless given); null grants none. */
  level?: L;
  mode?: MandateMode;
  /** The principal's name. */
  name?: string;
  /** The API key's label. */
  label?: string;
  /** Whether a signature appearance is stored (it is unless false). */
  appearance?: boolean;
  /** The mandate's policy (none unless given). */
  policy?: MandatePolicy;
}

/**
 * A fresh account whose principal has a stored signature appearance and a signing mandate granted to
 * its key, as an agent acting for the principal has them; `level: null` grants no mandate and
 * `appearance: false` stores no appearance.
 */
export async function mandatedAccount<L extends ConfirmationLevel | null = 'L2'>(
  stack: Stack,
  options: MandatedAccountOptions<L> = {},
): Promise<{ account: Account; principal: Principal; mandate: L extends null ? undefined : Mandate }> {
  const account = await createAccount(stack.deps.db, { name: options.name, label: options.label });
  if (options.appearance !== false) await giveAppearance(stack, account);
  const level = options.level === undefined ? 'L2' : options.level;
  const mandate = level === null ? undefined : await grantMandate(stack, account, { level, mode: options.mode, policy: options.policy });
  return { account, principal: await principalOf(stack, account), mandate: mandate as L extends null ? undefined : Mandate };
}

/** A principal signed in to the app over HTTP (cookie and form token kept). */
export class AppClient {
  cookie = '';

  constructor(
    readonly stack: Stack,
    readonly email: string,
  ) {}

  get appPath(): string {
    // An app at the root of its host has the path '' ('/' without its slash).
    return new URL(this.stack.config.appUrl).pathname.replace(/\/$/, '');
  }

  async login(): Promise<this> {
    const asked = await this.post(`${this.appPath}/login`, { email: this.email });
    const challenge = challengeIn(await asked.text());
    const code = codeIn((await latestMail(this.stack, this.email, 'login-code'))?.text);
    const response = await this.post(`${this.appPath}/login/verify`, { email: this.email, code, challenge });
    if (response.status !== 302) throw new Error(`login failed: ${response.status} ${await response.text()}`);
    return this;
  }

  async get(path: string): Promise<Response> {
    return fetch(`${this.stack.url}${path}`, { headers: this.cookie ? { cookie: this.cookie } : {}, redirect: 'manual' });
  }

  /**
   * Posts a form; with `csrfFrom` (a page of this session) the hidden fields of that page's form for
   * `path` are sent too, as a browser would (`_csrf` from any form of the page when none posts there).
   */
  async post(path: string, fields: Record<string, string>, csrfFrom?: string): Promise<Response> {
    const form = new URLSearchParams(fields);
    if (csrfFrom) {
      const html = await (await this.get(csrfFrom)).text();
      for (const [name, value] of Object.entries(hiddenFields(html, path))) if (!form.has(name)) form.set(name, value);
      if (!form.has('_csrf')) form.set('_csrf', /name="_csrf" value="([^"]*)"/.exec(html)?.[1] ?? '');
    }
    const response = await fetch(`${this.stack.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      body: form.toString(),
      redirect: 'manual',
    });
    const set = response.headers.get('set-cookie');
    if (set?.startsWith('svc_app=')) this.cookie = set.split(';')[0];
    return response;
  }
}
