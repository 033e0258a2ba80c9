// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { latestMail, SignerSession } from '../../../test/documents';
import { sentNda, signature, stack, useSignFlowStack } from '../../../test/fixtures/sign-flow';
import { assertErrorCode } from '../../../test/http';

describe('signing at a sign link', () => {
  useSignFlowStack();

  describe('the e-mailed code', () => {
    it('is required before the document can be read or signed', async () => {
      const { first } = await sentNda();
      assertErrorCode(await first.request('GET', '/state'), 401, 'unauthorized');
      assertErrorCode(await first.request('GET', '/document.pdf'), 401, 'unauthorized');
      assertErrorCode(await first.request('POST', '/sign', { consent: true, signature, values: {} }), 401, 'unauthorized');
      assertErrorCode(await first.request('POST', '/decline', {}), 401, 'unauthorized');
    });

    it('is sent to the signer’s address, works once and only with the challenge of the page that asked, and is spent after five wrong tries', async () => {
      const { first } = await sentNda();
      const sent = await first.request('POST', '/code');
      assert.equal(sent.status, 200);
      assert.match(sent.body.sent_to, /^a•+@example\.test$/);
      assert.match(sent.body.challenge, /^otc_\w+\.\S+$/);
      const code = /\b(\d{6})\b/.exec((await latestMail(stack, first.email, 'sign-code'))!.text)![1];
      const wrong = code === '000000' ? '111111' : '000000';
      assertErrorCode(await first.request('POST', '/verify', { code: wrong, challenge: sent.body.challenge }), 400, 'invalid_request');
      // The right code without its challenge, or with a forged one, opens nothing.
      assertErrorCode(await first.request('POST', '/verify', { code }), 400, 'invalid_request');
      assertErrorCode(await first.request('POST', '/verify', { code, challenge: `${sent.body.challenge}x` }), 400, 'invalid_request');
      const ok = await first.request('POST', '/verify', { code, challenge: sent.body.challenge });
      assert.equal(ok.status, 200);
      // Spent: it works once. That is this client's fourth wrong try, so from here each one makes it wait (Retry-After).
      assertErrorCode(await first.request('POST', '/verify', { code, challenge: sent.body.challenge }), 400, 'invalid_request');

      const again = await first.request('POST', '/code');
      const fresh = /\b(\d{6})\b/.exec((await latestMail(stack, first.email, 'sign-code'))!.text)![1];
      const guess = fresh === '222222' ? '333333' : '222222';
      const tryCode = async (candidate: string) => {
        for (;;) {
          const reply = await first.request('POST', '/verify', { code: candidate, challenge: again.body.challenge });
          if (reply.status !== 429 || !/wait/.test(reply.body.error.message)) return reply;
          await new Promise((resolve) => setTimeout(resolve, Number(reply.headers.get('retry-after')) * 1000));
        }
      };
      for (let i = 0; i < 4; i += 1) assertErrorCode(await tryCode(guess), 400, 'invalid_request');
      const spent = await tryCode(guess);
      assertErrorCode(spent, 429, 'rate_limited');
      assert.match(spent.body.error.message, /ask for a new one/);
      assertErrorCode(await tryCode(fresh), 429, 'rate_limited');
    });

    it('binds the session to one signer: another signer’s link needs its own code', async () => {
      const { first, second } = await sentNda();
      await first.verify();
      second.cookie = first.cookie.replace(
        /^svc_sign_sgn_[^=]+/,
        `svc_sign_${new URL(second.signUrl).pathname.split('/').pop()!.split('.')[0]}`,
      );
      assertErrorCode(await second.request('GET', '/state'), 401, 'unauthorized');
    });

    it('serves the verified signer the PDF inline in a sandbox: it cannot run as the app, and is never sniffed as anything else', async () => {
      const { first } = await sentNda();
      await first.verify();
      const pdf = await fetch(`${stack.url}${first.path}/document.pdf`, { headers: { cookie: first.cookie } });
      assert.equal(pdf.status, 200);
      assert.equal(pdf.headers.get('content-type'), 'application/pdf');
      assert.match(pdf.headers.get('content-disposition') ?? '', /^inline/);
      assert.equal(pdf.headers.get('content-security-policy'), 'sandbox');
      assert.equal(pdf.headers.get('x-content-type-options'), 'nosniff');
    });

    it('refuses a tampered or unknown link with 404', async () => {
      const { first } = await sentNda();
      const tampered = new SignerSession(stack, `${first.signUrl.slice(0, -2)}xx`, first.email);
      assertErrorCode(await tampered.request('POST', '/code'), 404, 'not_found');
      const page = await fetch(`${stack.url}${tampered.path}`);
      assert.equal(page.status, 404);
      assert.match(await page.text(), /not valid/);
    });
  });
});
