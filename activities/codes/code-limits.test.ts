import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mandate } from '../../db/models';
import { createDocument, latestMail, SignerSession, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode } from '../../test/http';
import { AppClient } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

const codeOf = (text: string | undefined) => /\b(\d{10}|\d{6})\b/.exec(text ?? '')?.[1] ?? '';
const wrongFor = (code: string) => (code.startsWith('0') ? '1' : '0').repeat(code.length);

/** A form post as the login page sends it, without a session. */
function postForm(stack: Stack, path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

/** A login page's post from a client address (the stack trusts the proxy's X-Forwarded-For). */
function postFrom(stack: Stack, address: string, path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

const challengeOfPage = async (response: Response) => /name="challenge" value="([^"]+)"/.exec(await response.text())?.[1] ?? '';

describe('wrong codes slow the client that enters them, never the mailbox owner', () => {
  let stack: Stack;
  let owner: Account;
  let login: string;
  const attacker = '203.0.113.66';
  const ownerAddress = '198.51.100.7';

  before(async () => {
    // Clients by address, as behind a proxy; the owner is told when one client's wrong codes reach 5.
    stack = await startStack({ env: { SVC_TRUST_PROXY: 'true', SVC_CODE_WRONG_LIMIT: '5', SVC_CODE_IP_LIMIT: '1000' } });
    owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    login = `${new URL(stack.config.appUrl).pathname}/login`;
  });
  after(() => stack?.close());

  it('login: ten wrong codes from one address, then the owner signs in at once with a fresh code', async () => {
    const account = await createAccount(stack.deps.db);
    const answers: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      answers.push((await postFrom(stack, attacker, `${login}/verify`, { email: account.email, code: String(100000 + i) })).status);
      // The attacker's own waits grow; it waits them out, as a patient attacker would.
      const wait = await stack.deps.codeLimits.waitFor('login', account.email, attacker);
      if (wait > 0 && i < 9) await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 2000) + 50));
    }
    assert.ok(
      answers.every((status) => status === 400 || status === 429),
      answers.join(' '),
    );
    // The owner, elsewhere: a code is sent at once, and it works.
    const asked = await postFrom(stack, ownerAddress, login, { email: account.email });
    assert.equal(asked.status, 200);
    const code = codeOf((await latestMail(stack, account.email, 'login-code'))?.text);
    const signedIn = await postFrom(stack, ownerAddress, `${login}/verify`, {
      email: account.email,
      code,
      challenge: await challengeOfPage(asked),
    });
    assert.equal(signedIn.status, 302, await signedIn.text());
    assert.match(signedIn.headers.get('set-cookie') ?? '', /^svc_app=/);
  });

  it('login: a code works only with the challenge of the page that asked for it, so a stranger cannot spend its tries', async () => {
    const account = await createAccount(stack.deps.db);
    const asked = await postFrom(stack, ownerAddress, login, { email: account.email });
    const challenge = await challengeOfPage(asked);
    const code = codeOf((await latestMail(stack, account.email, 'login-code'))?.text);
    // The right code without its challenge (the attacker read it over the owner's shoulder, say) opens nothing.
    assert.equal((await postFrom(stack, attacker, `${login}/verify`, { email: account.email, code })).status, 400);
    // The attacker's own code request gives it a challenge of its own: its guesses spend that code's tries only.
    const theirs = await challengeOfPage(await postFrom(stack, attacker, login, { email: account.email }));
    for (let i = 0; i < 3; i += 1)
      assert.equal(
        (await postFrom(stack, attacker, `${login}/verify`, { email: account.email, code: wrongFor(code), challenge: theirs })).status,
        400,
      );
    const signedIn = await postFrom(stack, ownerAddress, `${login}/verify`, { email: account.email, code, challenge });
    assert.equal(signedIn.status, 302, 'the owner’s code still works');
  });

  it('growing waits: three wrong codes are free, then the client waits 1 s, 2 s … (429 with Retry-After), and the owner is told once', async () => {
    const account = await createAccount(stack.deps.db);
    const wrong = () => postFrom(stack, attacker, `${login}/verify`, { email: account.email, code: '000000' });
    for (let i = 1; i <= 4; i += 1) assert.equal((await wrong()).status, 400, `wrong code ${i}`);
    const slowed = await wrong();
    assert.equal(slowed.status, 429);
    assert.equal(slowed.headers.get('retry-after'), '1');
    assert.match(await slowed.text(), /wait 1 second before the next try/);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await wrong()).status, 400, 'the fifth wrong code, after the wait');
    const after5 = await wrong();
    assert.equal(after5.status, 429);
    assert.equal(after5.headers.get('retry-after'), '2', 'the wait doubles');
    const notice = await latestMail(stack, account.email, 'code-locked');
    assert.ok(notice, 'the owner is told when one address reaches the threshold');
    assert.match(notice.text, /from one address \(203\.0\.113\.66\)/);
    assert.match(notice.text, /Your own codes are not affected/);
    // Another address is not slowed by that one's wrong codes.
    assert.equal((await postFrom(stack, ownerAddress, `${login}/verify`, { email: account.email, code: '000000' })).status, 400);
  });

  it('an IPv6 client is counted by its /64: its neighbours in the /64 wait too, the next /64 does not', async () => {
    const account = await createAccount(stack.deps.db);
    const from = (address: string) => postFrom(stack, address, `${login}/verify`, { email: account.email, code: '000000' });
    for (let i = 0; i < 4; i += 1) assert.equal((await from(`2001:db8:1:2::${i + 1}`)).status, 400);
    assert.equal((await from('2001:db8:1:2:ffff:ffff:ffff:ffff')).status, 429, 'same /64');
    assert.equal((await from('2001:db8:1:3::1')).status, 400, 'another /64');
  });

  it('asking for codes is counted per address: a stranger asking for many gets 429, the owner still gets one', async () => {
    const account = await createAccount(stack.deps.db);
    for (let i = 0; i < 5; i += 1)
      assert.equal((await postFrom(stack, attacker, login, { email: account.email })).status, 200, `request ${i + 1}`);
    assert.equal((await postFrom(stack, attacker, login, { email: account.email })).status, 429);
    const asked = await postFrom(stack, ownerAddress, login, { email: account.email });
    assert.equal(asked.status, 200);
    const code = codeOf((await latestMail(stack, account.email, 'login-code'))?.text);
    assert.equal(
      (await postFrom(stack, ownerAddress, `${login}/verify`, { email: account.email, code, challenge: await challengeOfPage(asked) }))
        .status,
      302,
    );
  });

  it('sign link: the agent holding the link cannot lock the signer out; the signer opens it with a fresh code', async () => {
    const { nda } = await seedSamples(stack, owner);
    const signerEmail = `ann-${Date.now()}@example.test`;
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: 'Guarded NDA',
      send: true,
      signers: [
        { name: 'Ann Able', email: signerEmail },
        { name: 'Bob Baker', email: `bob-${Date.now()}@example.test` },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const path = new URL(created.body.signers[0].sign_url).pathname;
    const post = (address: string, suffix: string, body: unknown = {}) =>
      fetch(`${stack.url}${path}${suffix}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': address, origin: stack.url },
        body: JSON.stringify(body),
      });
    // The agent asks for a code (mailed to the signer) and guesses with its challenge, and without.
    const theirs = ((await (await post(attacker, '/code')).json()) as { challenge: string }).challenge;
    for (let i = 0; i < 6; i += 1) await post(attacker, '/verify', { code: String(200000 + i), challenge: theirs });
    const sent = await post(ownerAddress, '/code');
    assert.equal(sent.status, 200);
    const { challenge } = (await sent.json()) as { challenge: string };
    const code = codeOf((await latestMail(stack, signerEmail, 'sign-code'))?.text);
    const opened = await post(ownerAddress, '/verify', { code, challenge });
    assert.equal(opened.status, 200, await opened.text());
  });

  it('mandate grant: the code is the principal’s own (asked for in its session); after wrong tries a new one on request works', async () => {
    const principal = await createAccount(stack.deps.db);
    const app = await new AppClient(stack, principal.email).login();
    const newPath = `${app.appPath}/mandates/new`;
    const started = await app.post(
      newPath,
      {
        api_key_id: principal.keyId,
        name: 'Guessed',
        level: 'L1',
        mode: 'both',
        consent: 'accepted',
        consent_version: 'mandate-consent-v2',
      },
      newPath,
    );
    assert.equal(started.status, 302);
    const confirmPath = started.headers.get('location')!;
    const first = codeOf((await latestMail(stack, principal.email, 'mandate-code'))?.text);
    for (let i = 0; i < 3; i += 1) assert.equal((await app.post(confirmPath, { code: wrongFor(first) }, confirmPath)).status, 400);
    assert.equal((await app.post(confirmPath, { resend: '1' }, confirmPath)).status, 302);
    const second = codeOf((await latestMail(stack, principal.email, 'mandate-code'))?.text);
    assert.equal((await app.post(confirmPath, { code: second }, confirmPath)).status, 302);
    const mandateId = confirmPath.split('/').at(-2)!;
    assert.equal((await Mandate.query(stack.deps.db).findById(mandateId))!.status, 'active');
  });
});

describe('the per-address limit of the code endpoints', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack({ env: { SVC_CODE_IP_LIMIT: '6' } });
  });
  after(() => stack?.close());

  it('counts code requests and checks of login, sign links and mandate grants together, then answers 429 with Retry-After', async () => {
    const owner = await createAccount(stack.deps.db);
    const app = await new AppClient(stack, owner.email).login(); // 2: login, verify
    const newPath = `${app.appPath}/mandates/new`;
    const started = await app.post(
      newPath,
      { api_key_id: owner.keyId, name: 'Limited', level: 'L1', mode: 'both', consent: 'accepted', consent_version: 'mandate-consent-v2' },
      newPath,
    );
    const confirmPath = started.headers.get('location')!;
    assert.equal((await app.post(confirmPath, { code: '000000' }, confirmPath)).status, 400); // 3
    const { nda } = await seedSamples(stack, owner);
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: 'NDA',
      send: true,
      signers: [
        { name: 'Ann', email: 'ann@example.test' },
        { name: 'Bob', email: 'bob@example.test' },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const signer = new SignerSession(stack, created.body.signers[0].sign_url, 'ann@example.test');
    assert.equal((await signer.request('POST', '/code')).status, 200); // 4
    assertErrorCode(await signer.request('POST', '/verify', { code: '000000' }), 400, 'invalid_request'); // 5
    assert.equal((await postForm(stack, `${app.appPath}/login`, { email: 'someone@example.test' })).status, 200); // 6

    const limited: Array<[string, Response | { status: number; headers: Headers }]> = [
      ['login code', await postForm(stack, `${app.appPath}/login`, { email: 'someone@example.test' })],
      ['login verify', await postForm(stack, `${app.appPath}/login/verify`, { email: 'someone@example.test', code: '123456' })],
      ['sign code', await signer.request('POST', '/code')],
      ['sign verify', await signer.request('POST', '/verify', { code: '123456' })],
      ['mandate code', await app.post(confirmPath, { code: '123456' }, confirmPath)],
      ['mandate resend', await app.post(confirmPath, { resend: '1' }, confirmPath)],
    ];
    for (const [what, response] of limited) {
      assert.equal(response.status, 429, what);
      const retryAfter = Number(response.headers.get('retry-after'));
      assert.ok(retryAfter > 0 && retryAfter <= 600, `${what}: Retry-After ${retryAfter}`);
    }
  });
});
