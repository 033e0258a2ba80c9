import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mandate } from '../../db/models';
import { createDocument, latestMail, SignerSession, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode } from '../../test/http';
import { AppClient } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

const codeOf = (text: string | undefined) => /\b(\d{6})\b/.exec(text ?? '')?.[1] ?? '';
const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');

/** A form post as the login page sends it, without a session. */
function postForm(stack: Stack, path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

async function assertLocked(response: Response, what: string): Promise<void> {
  assert.equal(response.status, 429, `${what}: ${await response.clone().text()}`);
  assert.ok(Number(response.headers.get('retry-after')) > 23 * 3600, `${what}: Retry-After is the rest of the 24-hour lock`);
}

describe('the wrong-code budget (10 wrong codes in 24 hours lock the subject for 24 hours)', () => {
  let stack: Stack;
  let owner: Account;

  before(async () => {
    stack = await startStack();
    owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
  });
  after(() => stack?.close());

  it('login: asking for new codes buys no new guesses; the 10th wrong code locks, then no code is sent and even the right one fails', async () => {
    const account = await createAccount(stack.deps.db);
    const login = `${new URL(stack.config.appUrl).pathname}/login`;
    let code = '';
    // Five rounds of code, wrong, wrong: each new code would give five fresh tries, yet the budget spans them all.
    for (let round = 1; round <= 5; round += 1) {
      assert.equal((await postForm(stack, login, { email: account.email })).status, 200, `code ${round}`);
      code = codeOf((await latestMail(stack, account.email, 'login-code'))?.text);
      assert.equal(
        (await postForm(stack, `${login}/verify`, { email: account.email, code: wrongFor(code) })).status,
        400,
        `round ${round}, first wrong code`,
      );
      const second = await postForm(stack, `${login}/verify`, { email: account.email, code: wrongFor(code) });
      if (round < 5) assert.equal(second.status, 400, `round ${round}, second wrong code`);
      else await assertLocked(second, 'the 10th wrong code');
    }
    const notice = await latestMail(stack, account.email, 'code-locked');
    assert.ok(notice, 'the principal is told');
    assert.match(notice.text, /Too many wrong codes were entered to sign in to the app/);

    await assertLocked(await postForm(stack, `${login}/verify`, { email: account.email, code }), 'the right code of the last mail');
    const lastCode = (await latestMail(stack, account.email, 'login-code'))?.text;
    await assertLocked(await postForm(stack, login, { email: account.email }), 'a new code');
    assert.equal((await latestMail(stack, account.email, 'login-code'))?.text, lastCode, 'no new code is sent');
    await assertLocked(await postForm(stack, `${login}/verify`, { email: account.email, code: wrongFor(code) }), 'another wrong code');
    assert.equal((await latestMail(stack, account.email, 'code-locked'))?.text, notice.text, 'one notice');
  });

  it('login: an address without an account locks alike, so the answer does not tell who has one', async () => {
    const login = `${new URL(stack.config.appUrl).pathname}/login`;
    const email = `nobody-${Date.now()}@example.test`;
    for (let i = 1; i < 10; i += 1) assert.equal((await postForm(stack, `${login}/verify`, { email, code: '123456' })).status, 400);
    await assertLocked(await postForm(stack, `${login}/verify`, { email, code: '123456' }), 'the 10th wrong code');
    await assertLocked(await postForm(stack, login, { email }), 'a new code');
  });

  it('sign link: the agent holding the link is locked out after 10 wrong codes, and the signer is told', async () => {
    const { nda } = await seedSamples(stack, owner);
    const signerEmail = `ann-${Date.now()}@example.test`;
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: 'Locked NDA',
      send: true,
      signers: [
        { name: 'Ann Able', email: signerEmail },
        { name: 'Bob Baker', email: `bob-${Date.now()}@example.test` },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const agent = new SignerSession(stack, created.body.signers[0].sign_url, signerEmail);
    let code = '';
    for (let round = 1; round <= 5; round += 1) {
      assert.equal((await agent.request('POST', '/code')).status, 200, `code ${round}`);
      code = codeOf((await latestMail(stack, signerEmail, 'sign-code'))?.text);
      assertErrorCode(await agent.request('POST', '/verify', { code: wrongFor(code) }), 400, 'invalid_request');
      const second = await agent.request('POST', '/verify', { code: wrongFor(code) });
      assertErrorCode(second, round < 5 ? 400 : 429, round < 5 ? 'invalid_request' : 'rate_limited');
    }
    assert.match((await latestMail(stack, signerEmail, 'code-locked'))?.text ?? '', /open "Locked NDA" at your sign link/);
    const right = await agent.request('POST', '/verify', { code });
    assertErrorCode(right, 429, 'rate_limited');
    assert.ok(Number(right.headers.get('retry-after')) > 23 * 3600);
    assert.equal(right.headers.get('set-cookie'), null, 'no sign session');
    assertErrorCode(await agent.request('POST', '/code'), 429, 'rate_limited');
    assert.equal(codeOf((await latestMail(stack, signerEmail, 'sign-code'))?.text), code, 'no new code is sent');
  });

  it('mandate grant: new codes on request buy no new guesses; the 10th wrong code locks the grant and the principal is told', async () => {
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
    let code = '';
    for (let round = 1; round <= 5; round += 1) {
      if (round > 1) assert.equal((await app.post(confirmPath, { resend: '1' }, confirmPath)).status, 302, `code ${round}`);
      code = codeOf((await latestMail(stack, principal.email, 'mandate-code'))?.text);
      assert.equal((await app.post(confirmPath, { code: wrongFor(code) }, confirmPath)).status, 400);
      const second = await app.post(confirmPath, { code: wrongFor(code) }, confirmPath);
      if (round < 5) assert.equal(second.status, 400);
      else await assertLocked(second, 'the 10th wrong code');
    }
    assert.match((await latestMail(stack, principal.email, 'code-locked'))?.text ?? '', /grant the mandate "Guessed"/);
    await assertLocked(await app.post(confirmPath, { code }, confirmPath), 'the right code');
    await assertLocked(await app.post(confirmPath, { resend: '1' }, confirmPath), 'a new code');
    const mandateId = confirmPath.split('/').at(-2)!;
    assert.equal((await Mandate.query(stack.deps.db).findById(mandateId))!.status, 'pending');
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
