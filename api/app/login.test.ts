import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { latestMail } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { challengeIn } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

let stack: Stack;
let account: Account;

before(async () => {
  stack = await startStack({ worker: false });
  account = await createAccount(stack.deps.db);
});
after(() => stack?.close());

function post(path: string, fields: Record<string, string>, origin?: string): Promise<Response> {
  return fetch(`${stack.url}${new URL(stack.config.appUrl).pathname}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin ? { origin } : {}) },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

describe('sign-in forms check the Origin like every other form', () => {
  it('a code request from another origin is refused and sends no code', async () => {
    const refused = await post('/login', { email: account.email }, 'https://evil.example');
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /did not come from this app/);
    assert.equal(await latestMail(stack, account.email, 'login-code'), undefined);
  });

  it('a verify from another origin is refused even with the right code, which then still works from this origin', async () => {
    const asked = await post('/login', { email: account.email }, stack.url);
    assert.equal(asked.status, 200);
    const challenge = challengeIn(await asked.text());
    const code = /\b(\d{10}|\d{6})\b/.exec((await latestMail(stack, account.email, 'login-code'))!.text)![1];
    const refused = await post('/login/verify', { email: account.email, code, challenge }, 'https://evil.example');
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('set-cookie'), null, 'no session');
    assert.match(await refused.text(), /did not come from this app/);
    const signedIn = await post('/login/verify', { email: account.email, code, challenge }, stack.url);
    assert.equal(signedIn.status, 302);
    assert.match(signedIn.headers.get('set-cookie') ?? '', /^svc_app=/);
  });
});

describe('the way back after signing in', () => {
  it('is dropped when it would not fit in a Location header: a page with a very long path redirects to plain sign-in', async () => {
    const app = new URL(stack.config.appUrl).pathname;
    const long = `${app}/mandates/${'x'.repeat(8000)}/confirm`;
    const reply = await fetch(`${stack.url}${long}`, { redirect: 'manual' });
    assert.equal(reply.status, 302);
    assert.equal(reply.headers.get('location'), `${app}/login`);
    const short = await fetch(`${stack.url}${app}/keys`, { redirect: 'manual' });
    assert.equal(short.headers.get('location'), `${app}/login?next=${encodeURIComponent(`${app}/keys`)}`);
  });

  it('is not taken from a sign-in form past the length a header can carry', async () => {
    const app = new URL(stack.config.appUrl).pathname;
    const page = await fetch(`${stack.url}${app}/login?next=${encodeURIComponent(`${app}/${'y'.repeat(5000)}`)}`);
    assert.doesNotMatch(await page.text(), /yyyyyyyy/, 'the form carries the app’s home instead');
  });
});
