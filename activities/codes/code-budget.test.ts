import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEvent, Mandate } from '../../db/models';
import { monthlyGuessBound } from '../../lib/code-limits';
import { TIMING_SETTINGS } from '../../lib/config/settings/timing';
import { latestMail } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { AppClient, challengeIn } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { CODE_ATTEMPTS, LONG_CODE_DIGITS } from './one-time-codes';

const codeOf = (text: string | undefined) => /\b(\d{10})\b/.exec(text ?? '')?.[1] ?? '';
const linkOf = (text: string | undefined) => /(https?:\/\/\S+(?:login\/link|confirm)\?\S+)/.exec(text ?? '')?.[1] ?? '';
const wrongFor = (code: string) => (code.startsWith('0') ? '1' : '0').repeat(code.length);
const BUDGET = 3;

describe('a budget of wrong codes per subject, across every address; the mailed link still works', () => {
  let stack: Stack;
  let login: string;

  before(async () => {
    // Clients by address, as behind a proxy; a small budget so it is spent in a few tries.
    stack = await startStack({
      env: { SVC_TRUST_PROXY: 'true', SVC_CODE_SUBJECT_LIMIT: String(BUDGET), SVC_CODE_IP_LIMIT: '1000' },
    });
    login = `${new URL(stack.config.appUrl).pathname}/login`;
  });
  after(() => stack?.close());

  /** A login form post from a client address, with the browser's cookies if any. */
  const postFrom = (address: string, path: string, fields: Record<string, string>, cookie = '') =>
    fetch(`${stack.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address, ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
  const bindingCookie = (response: Response) =>
    response.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .filter((pair) => pair.startsWith('svc_code_bind'))
      .join('; ');
  const open = (url: string, cookie: string) =>
    fetch(`${stack.url}${new URL(url).pathname}${new URL(url).search}`, {
      headers: { 'x-forwarded-for': '192.0.2.200', ...(cookie ? { cookie } : {}) },
      redirect: 'manual',
    });

  it('the arithmetic: the defaults keep a month of guessing a 10-digit code below one in a million', () => {
    const limit = TIMING_SETTINGS.SVC_CODE_SUBJECT_LIMIT.schema.parse(undefined);
    const windowMs = TIMING_SETTINGS.SVC_CODE_SUBJECT_WINDOW_MS.schema.parse(undefined);
    assert.equal(LONG_CODE_DIGITS, 10);
    assert.ok(monthlyGuessBound(limit, windowMs, LONG_CODE_DIGITS, CODE_ATTEMPTS) < 1e-6);
    // Six digits could not: a single guess a month is already one in a million.
    assert.ok(monthlyGuessBound(1, 31 * 24 * 3600_000, 6, CODE_ATTEMPTS) >= 1e-6);
  });

  it('login: once wrong codes from many addresses spend the budget, a fresh address’s code is refused; the link signs the owner in, once, only in the browser that asked', async () => {
    const account = await createAccount(stack.deps.db);
    // Each guesser asks from its own address (its own challenge and per-client wait) and enters one wrong code.
    for (let i = 0; i < BUDGET; i += 1) {
      const address = `2001:db8:${i + 1}::1`;
      const asked = await postFrom(address, login, { email: account.email });
      assert.equal(asked.status, 200);
      const challenge = challengeIn(await asked.text());
      const guess = await postFrom(address, `${login}/verify`, { email: account.email, code: '0123456789', challenge });
      assert.equal(guess.status, 400, `guess ${i + 1}`);
    }
    // The owner, from a fresh address, asks for a code: it is mailed with a link.
    const asked = await postFrom('198.51.100.9', login, { email: account.email });
    assert.equal(asked.status, 200);
    const cookie = bindingCookie(asked);
    assert.match(cookie, /^svc_code_bind=/);
    assert.match(asked.headers.getSetCookie().join('\n'), /svc_code_bind=[^\n]*HttpOnly/i);
    const mail = await latestMail(stack, account.email, 'login-code');
    const code = codeOf(mail?.text);
    const link = linkOf(mail?.text);
    assert.match(code, /^\d{10}$/);
    assert.match(link, /\/login\/link\?token=/);
    // Even the right code, with its own page's challenge, is not checked any more: the budget is the address's, not a client's.
    const spent = await postFrom('198.51.100.9', `${login}/verify`, {
      email: account.email,
      code,
      challenge: challengeIn(await asked.text()),
    });
    assert.equal(spent.status, 429);
    assert.ok(Number(spent.headers.get('retry-after')) > 0);
    assert.match(await spent.text(), /The link in the same e-mail still works/);
    assert.equal(bindingCookie(spent), '');
    assert.doesNotMatch(spent.headers.get('set-cookie') ?? '', /svc_app=/);

    // The link: not without the binding cookie, not in another browser (its own cookie), and neither spends it.
    const bare = await open(link, '');
    assert.equal(bare.status, 400);
    assert.doesNotMatch(bare.headers.get('set-cookie') ?? '', /svc_app=/);
    const otherBrowser = bindingCookie(await postFrom('203.0.113.5', login, { email: `nobody-${Date.now()}@example.test` }));
    assert.match(otherBrowser, /^svc_code_bind=/);
    const elsewhere = await open(link, otherBrowser);
    assert.equal(elsewhere.status, 400);
    assert.doesNotMatch(elsewhere.headers.get('set-cookie') ?? '', /svc_app=/);
    // In the browser that asked, it signs in, and the session works.
    const signedIn = await open(link, cookie);
    assert.equal(signedIn.status, 302, await signedIn.text());
    const session = /svc_app=[^;]+/.exec(signedIn.headers.get('set-cookie') ?? '')?.[0];
    assert.ok(session, 'a session cookie');
    const overview = await fetch(`${stack.url}${new URL(stack.config.appUrl).pathname}/`, {
      headers: { cookie: session },
      redirect: 'manual',
    });
    assert.equal(overview.status, 200);
    const audit = await AuditEvent.query(stack.deps.db).where({ action: 'login.succeeded', actor_id: account.principalId });
    assert.deepEqual(
      audit.map((line) => line.data.via),
      ['link'],
    );
    // Once only.
    const again = await open(link, cookie);
    assert.equal(again.status, 400);
    assert.doesNotMatch(again.headers.get('set-cookie') ?? '', /svc_app=/);
  });

  it('login: an address without an account is refused alike once its budget is spent (nothing tells who has an account)', async () => {
    const refusals: string[] = [];
    for (const email of [(await createAccount(stack.deps.db)).email, `nobody-${Date.now()}@example.test`]) {
      let last: Response | undefined;
      for (let i = 0; i <= BUDGET; i += 1) {
        const address = `2001:db8:${100 + i}::1`;
        const asked = await postFrom(address, login, { email });
        assert.equal(asked.status, 200);
        assert.match(bindingCookie(asked), /^svc_code_bind=/, 'a binding cookie either way');
        last = await postFrom(address, `${login}/verify`, { email, code: '0123456789', challenge: challengeIn(await asked.text()) });
        assert.equal(last.status, i < BUDGET ? 400 : 429, `try ${i + 1}`);
      }
      // The page differs only in what the visitor typed and the fresh challenge of its form.
      refusals.push(
        (await last!.text())
          .replaceAll(email, 'EMAIL')
          .replace(/name="challenge" value="[^"]+"/, 'CHALLENGE')
          .replace(/\d+ minutes/, 'N minutes'),
      );
    }
    assert.equal(refusals[0], refusals[1]);
  });

  it('mandate grant: wrong codes of all the principal’s grants share one budget; the mail’s link still confirms, only in the session that asked, and the grant records it', async () => {
    const account = await createAccount(stack.deps.db);
    const app = await new AppClient(stack, account.email).login();
    const newPath = `${app.appPath}/mandates/new`;
    const start = async (name: string) => {
      const started = await app.post(
        newPath,
        { api_key_id: account.keyId, name, level: 'L1', mode: 'both', consent: 'accepted', consent_version: 'mandate-consent-v2' },
        newPath,
      );
      assert.equal(started.status, 302);
      const mail = await latestMail(stack, account.email, 'mandate-code');
      return { confirmPath: started.headers.get('location')!, code: codeOf(mail?.text), link: linkOf(mail?.text) };
    };
    const first = await start('First');
    for (let i = 0; i < BUDGET - 1; i += 1)
      assert.equal((await app.post(first.confirmPath, { code: wrongFor(first.code) }, first.confirmPath)).status, 400);
    // A new grant is no way round it: the budget is the principal's.
    const second = await start('Second');
    assert.match(second.link, /\/confirm\?link=/);
    assert.equal((await app.post(second.confirmPath, { code: wrongFor(second.code) }, second.confirmPath)).status, 400);
    const spent = await app.post(second.confirmPath, { code: second.code }, second.confirmPath);
    assert.equal(spent.status, 429);
    assert.ok(Number(spent.headers.get('retry-after')) > 0);
    const mandateId = second.confirmPath.split('/').at(-2)!;
    assert.equal((await Mandate.query(stack.deps.db).findById(mandateId))!.status, 'pending');

    // Another session of the same principal (signed in elsewhere) cannot use the link, and does not spend it.
    const other = await new AppClient(stack, account.email).login();
    const linkPath = `${new URL(second.link).pathname}${new URL(second.link).search}`;
    const elsewhere = await other.post(second.confirmPath, { link: new URL(second.link).searchParams.get('link')! }, second.confirmPath);
    assert.equal(elsewhere.status, 400);
    assert.equal((await Mandate.query(stack.deps.db).findById(mandateId))!.status, 'pending');

    // In the session that asked, the link's page offers one button, which grants the mandate.
    const page = await (await app.get(linkPath)).text();
    assert.match(page, /data-testid="grant-link-form"/);
    const granted = await app.post(second.confirmPath, {}, linkPath);
    assert.equal(granted.status, 302, await granted.text());
    assert.equal((await Mandate.query(stack.deps.db).findById(mandateId))!.status, 'active');
    const audit = await AuditEvent.query(stack.deps.db)
      .where({ action: 'mandate.granted' })
      .whereRaw("data->>'mandate_id' = ?", [mandateId]);
    assert.equal(audit.length, 1);
    assert.equal(audit[0].data.confirmed_with, 'link');
    assert.equal(audit[0].data.consent_version, 'mandate-consent-v2');
    // Used once: posting it again grants nothing more.
    const again = await app.post(second.confirmPath, { link: new URL(second.link).searchParams.get('link')! }, second.confirmPath);
    assert.equal(again.status, 409);
    // The first grant's code stays refused while the budget is spent.
    assert.equal((await app.post(first.confirmPath, { code: first.code }, first.confirmPath)).status, 429);
  });
});
