// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTemplate } from '../../../activities/templates/templates';
import { AuditEvent, DocumentRevision, Event, type Template } from '../../../db/models';
import { buildSampleNda } from '../../../lib/pdf/samples';
import { createDocument, latestMail, SignerSession, seedSamples, waitForDocument } from '../../../test/documents';
import { type Account, createAccount } from '../../../test/factories';
import { assertErrorCode, call } from '../../../test/http';
import { dataUrl, signaturePng } from '../../../test/images';
import { type Stack, startStack } from '../../../test/stack';

const signature = { method: 'drawn', image: dataUrl(signaturePng()) };

describe('signing at a sign link', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;
  let titleId: string;

  before(async () => {
    stack = await startStack();
    owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    ({ nda } = await seedSamples(stack, owner));
    titleId = nda.widgets.find((w) => w.role === 'Receiving Party' && w.type === 'text')!.id;
  });
  after(() => stack.close());

  async function sentNda(options: { strict?: boolean; name?: string } = {}) {
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: options.name ?? 'NDA',
      strict_order: options.strict ?? false,
      signers: [
        { name: 'Ann Able', email: `ann-${Date.now()}@example.test` },
        { name: 'Bob Baker', email: `bob-${Date.now()}@example.test` },
      ],
      send: true,
    });
    assert.equal(created.status, 201, created.text);
    const [first, second] = created.body.signers as Array<{ sign_url: string; email: string }>;
    return {
      id: created.body.document_id as string,
      first: new SignerSession(stack, first.sign_url, first.email),
      second: new SignerSession(stack, second.sign_url, second.email),
    };
  }

  async function documentOf(id: string) {
    return (await call(stack.url, 'GET', `/v1/documents/${id}`, { key: owner.key })).body;
  }

  const waitForStatus = (id: string, status: string) =>
    waitForDocument(stack, owner.key, id, (d) => d.status === status, `document ${id} to reach ${status}`);

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

  describe('the signer’s state', () => {
    const utcDate = () => new Date().toISOString().slice(0, 10);
    const fieldsOf = (state: { widgets: Array<Record<string, unknown>> }) =>
      Object.fromEntries(
        state.widgets.map((w) => [w.id, { mine: w.mine, auto_filled: w.auto_filled, text: w.text, unfilled: w.unfilled }]),
      );

    it('says what the service stamps on the signer’s widgets and which ones the signer must still fill', async () => {
      const { second } = await sentNda();
      await second.verify();
      const before = utcDate();
      const state = await second.request('GET', '/state');
      const after = utcDate();
      assert.equal(state.status, 200, state.text);
      assert.equal(state.body.can_sign, true);
      assert.equal(state.body.blocked_reason, null);
      assert.equal(state.body.signer.initials, 'BB');
      const date = state.body.widgets.find((w: { id: string }) => w.id === 'receiving-date').text;
      assert.ok(date === before || date === after, date);
      const theirs = (id: string) => ({ [id]: { mine: false, auto_filled: !/title|copy|term/.test(id), text: null, unfilled: false } });
      assert.deepEqual(fieldsOf(state.body), {
        ...theirs('disclosing-signature'),
        ...theirs('disclosing-name'),
        ...theirs('disclosing-date'),
        'receiving-signature': { mine: true, auto_filled: true, text: null, unfilled: false },
        'receiving-name': { mine: true, auto_filled: true, text: 'Bob Baker', unfilled: false },
        [titleId]: { mine: true, auto_filled: false, text: null, unfilled: true },
        'receiving-date': { mine: true, auto_filled: true, text: date, unfilled: false },
        'receiving-copy': { mine: true, auto_filled: false, text: null, unfilled: false },
        'receiving-term': { mine: true, auto_filled: false, text: null, unfilled: false },
      });
    });

    it('gives the initials’ letters and the e-mail as stamped', async () => {
      const sample = await buildSampleNda();
      const initialled = await createTemplate(stack.deps, {
        tenantId: owner.tenantId,
        pdf: sample.pdf,
        definition: {
          name: 'Initialled',
          roles: ['Party'],
          widgets: [
            { id: 'sig', type: 'signature', role: 'Party', page: 1, x: 50, y: 600, width: 200, height: 40 },
            { id: 'ini', type: 'initials', role: 'Party', page: 1, x: 300, y: 600, width: 40, height: 20 },
            { id: 'mail', type: 'email', role: 'Party', page: 1, x: 50, y: 650, width: 200, height: 20 },
            { id: 'agree', type: 'checkbox', role: 'Party', page: 1, x: 300, y: 650, width: 12, height: 12, required: true },
          ],
        },
        createdBy: 'test',
      });
      const email = `zoe-${Date.now()}@example.test`;
      const created = await createDocument(stack, owner, {
        template_id: initialled.id,
        name: 'Initialled',
        signers: [{ name: 'zoë  van šimůnek', email }],
        send: true,
      });
      assert.equal(created.status, 201, created.text);
      const party = await new SignerSession(stack, created.body.signers[0].sign_url, email).verify();
      const state = (await party.request('GET', '/state')).body;
      assert.equal(state.signer.initials, 'ZVŠ');
      const fields = fieldsOf(state);
      assert.deepEqual(fields.ini, { mine: true, auto_filled: true, text: 'ZVŠ', unfilled: false });
      assert.deepEqual(fields.mail, { mine: true, auto_filled: true, text: email, unfilled: false });
      assert.deepEqual(fields.agree, { mine: true, auto_filled: false, text: null, unfilled: true });
    });

    it('under strict order, lets the next signer sign once the earlier one has', async () => {
      const { first, second } = await sentNda({ strict: true });
      await Promise.all([first.verify(), second.verify()]);
      assert.equal((await first.request('GET', '/state')).body.can_sign, true);
      const waiting = (await second.request('GET', '/state')).body;
      assert.deepEqual([waiting.can_sign, waiting.blocked_reason], [false, 'Waiting for Ann Able to sign first.']);
      assert.equal((await first.request('POST', '/sign', { consent: true, signature, values: {} })).status, 200);
      const done = (await first.request('GET', '/state')).body;
      assert.deepEqual([done.can_sign, done.blocked_reason, done.signer.status], [false, null, 'signed']);
      const turn = (await second.request('GET', '/state')).body;
      assert.deepEqual([turn.can_sign, turn.blocked_reason], [true, null]);
    });
  });

  describe('the apply procedure’s refusals', () => {
    it('a double click: two simultaneous submissions by one signer make one apply', async () => {
      const { id, first } = await sentNda();
      await first.verify();
      const replies = await Promise.all([0, 1, 2].map(() => first.request('POST', '/sign', { consent: true, signature, values: {} })));
      for (const reply of replies)
        assert.ok(reply.status === 200 || (reply.status === 409 && reply.body.error.code === 'already_signed'), reply.text);
      assert.ok(replies.some((reply) => reply.status === 200));
      const applies = await stack.deps.db('applies').where({ document_id: id });
      assert.equal(applies.length, 1, 'one apply row');
      assert.equal(applies[0].status, 'applied');
      const signed = await Event.query(stack.deps.db).where({ event: 'document.signed' }).whereRaw(`data->>'document_id' = ?`, [id]);
      assert.equal(signed.length, 1);
    });

    it('strict_order: a later signer cannot sign before an earlier one', async () => {
      const { id, first, second } = await sentNda({ strict: true });
      await second.verify();
      const state = await second.request('GET', '/state');
      assert.equal(state.body.can_sign, false);
      assert.match(state.body.blocked_reason, /Ann Able/);
      assertErrorCode(
        await second.request('POST', '/sign', { consent: true, signature, values: { [titleId]: 'CTO' } }),
        409,
        'strict_order',
      );
      await first.verify();
      assert.equal((await first.request('POST', '/sign', { consent: true, signature, values: {} })).status, 200);
      const signed = await second.request('POST', '/sign', { consent: true, signature, values: { [titleId]: 'CTO' } });
      assert.equal(signed.status, 200, signed.text);
      await waitForStatus(id, 'completed');
    });

    it('unfilled_fields: a required text the appearance cannot fill blocks the apply, naming it', async () => {
      const { second } = await sentNda();
      await second.verify();
      const reply = await second.request('POST', '/sign', { consent: true, signature, values: {} });
      assertErrorCode(reply, 422, 'unfilled_fields');
      assert.deepEqual(
        reply.body.error.details.map((d: { path: string }) => d.path),
        [`values.${titleId}`],
      );
    });

    it('already_signed: a second signature by the same signer is refused', async () => {
      const { first } = await sentNda();
      await first.verify();
      assert.equal((await first.request('POST', '/sign', { consent: true, signature, values: {} })).status, 200);
      assertErrorCode(await first.request('POST', '/sign', { consent: true, signature, values: {} }), 409, 'already_signed');
    });

    it('missing_signature_fields: a role without a signature widget cannot sign', async () => {
      const sample = await buildSampleNda();
      const witness = await createTemplate(stack.deps, {
        tenantId: owner.tenantId,
        pdf: sample.pdf,
        definition: {
          name: 'Witnessed',
          roles: ['Party', 'Witness'],
          widgets: [
            { id: 'party-signature', type: 'signature', role: 'Party', page: 1, x: 50, y: 600, width: 200, height: 40 },
            { id: 'witness-name', type: 'name', role: 'Witness', page: 1, x: 300, y: 600, width: 200, height: 20 },
          ],
        },
        createdBy: 'test',
      });
      const created = await createDocument(stack, owner, {
        template_id: witness.id,
        name: 'Witnessed',
        signers: [
          { name: 'P', email: 'p@example.test' },
          { name: 'W', email: 'w@example.test' },
        ],
        send: true,
      });
      const witnessSession = await new SignerSession(stack, created.body.signers[1].sign_url, 'w@example.test').verify();
      assertErrorCode(
        await witnessSession.request('POST', '/sign', { consent: true, signature, values: {} }),
        422,
        'missing_signature_fields',
      );
    });

    it('cross_origin: another site’s page cannot decline, sign or ask for codes with the signer’s cookie; an empty decline declines nothing', async () => {
      const { id, first } = await sentNda();
      await first.verify();
      const post = (suffix: string, headers: Record<string, string>, body = '{"reason":"forged"}') =>
        fetch(`${stack.url}${first.path}${suffix}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: first.cookie, ...headers },
          body,
        });
      const foreign: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        // A sibling subdomain is same-site: SameSite=Lax sends the cookie, Sec-Fetch-Site tells it apart.
        { origin: 'https://pages.example.test', 'sec-fetch-site': 'same-site' },
        { 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of foreign) {
        for (const suffix of ['/decline', '/sign', '/code', '/verify']) {
          const refused = await post(suffix, headers);
          assert.equal(refused.status, 403, `${suffix} ${JSON.stringify(headers)}`);
          assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'cross_origin');
        }
      }
      const empty = await post('/decline', {}, '');
      assert.equal(empty.status, 400);
      assert.equal((await documentOf(id)).status, 'sent', 'nothing was declined');
      // The page's own post (same origin) goes through.
      const own = await post('/decline', { origin: new URL(stack.config.appUrl).origin, 'sec-fetch-site': 'same-origin' }, '{}');
      assert.equal(own.status, 200);
      assert.equal((await documentOf(id)).status, 'declined');
    });

    it('invalid_state: nobody can sign a declined document', async () => {
      const { id, first, second } = await sentNda();
      await first.verify();
      const declined = await first.request('POST', '/decline', { reason: 'Wrong counterparty' });
      assert.equal(declined.status, 200, declined.text);
      assert.equal((await documentOf(id)).status, 'declined');
      await second.verify();
      assertErrorCode(
        await second.request('POST', '/sign', { consent: true, signature, values: { [titleId]: 'CTO' } }),
        409,
        'invalid_state',
      );
      const event = await Event.query(stack.deps.db)
        .where({ event: 'document.declined' })
        .whereRaw(`data->>'document_id' = ?`, [id])
        .first();
      assert.equal((event?.data as { reason: string } | undefined)?.reason, 'Wrong counterparty');
    });

    it('refuses values for fields that are not the signer’s, a bad image and no consent', async () => {
      const { first } = await sentNda();
      await first.verify();
      const foreign = await first.request('POST', '/sign', { consent: true, signature, values: { [titleId]: 'CTO' } });
      assertErrorCode(foreign, 400, 'invalid_request');
      assert.equal(foreign.body.error.details[0].path, `values.${titleId}`);
      assertErrorCode(
        await first.request('POST', '/sign', {
          consent: true,
          signature: { method: 'drawn', image: 'data:image/gif;base64,R0lGOD' },
          values: {},
        }),
        400,
        'invalid_request',
      );
      const corrupt = dataUrl(signaturePng().subarray(0, 60));
      assertErrorCode(
        await first.request('POST', '/sign', { consent: true, signature: { method: 'uploaded', image: corrupt }, values: {} }),
        422,
        'missing_appearance',
      );
      assertErrorCode(await first.request('POST', '/sign', { consent: false, signature, values: {} }), 400, 'invalid_request');
    });

    it('refuses a body of many thousand values or fields at once, naming at most 20 of them', async () => {
      const { first } = await sentNda();
      await first.verify();
      const many = (count: number, prefix: string) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, 'x']));
      // 150,000 values (about 3 MB) for a signer with a few fields: refused whole, nothing echoed.
      const values = await first.request('POST', '/sign', { consent: true, signature, values: many(150_000, 'w') });
      assertErrorCode(values, 400, 'invalid_request');
      assert.deepEqual(
        values.body.error.details.map((detail: { path: string }) => detail.path),
        ['values'],
      );
      assert.match(values.body.error.message, /Too many field values: 150000 given/);
      assert.ok(JSON.stringify(values.body).length < 2000, `the refusal is short, not ${JSON.stringify(values.body).length} characters`);
      // 100,000 unknown fields: 20 named, the rest counted.
      const fields = await first.request('POST', '/sign', { consent: true, signature, values: {}, ...many(100_000, 'f') });
      assertErrorCode(fields, 400, 'invalid_request');
      const details = fields.body.error.details as { path: string; message: string }[];
      assert.equal(details.length, 21);
      assert.deepEqual(details[0], { path: 'f0', message: 'Unknown field' });
      assert.deepEqual(details[20], { path: '', message: 'and 99980 more' });
      assert.ok(JSON.stringify(fields.body).length < 4000, `the refusal is short, not ${JSON.stringify(fields.body).length} characters`);
      // Nothing was signed: the signer can still sign.
      assert.equal((await first.request('POST', '/sign', { consent: true, signature, values: {} })).status, 200);
    });
  });

  describe('a completed signing', () => {
    it('lands two concurrent applies on one document, each once, with events and an audit trail', async () => {
      const { id, first, second } = await sentNda();
      await Promise.all([first.verify(), second.verify()]);
      const [a, b] = await Promise.all([
        first.request('POST', '/sign', { consent: true, signature, values: {} }),
        second.request('POST', '/sign', {
          consent: true,
          signature: { method: 'typed', image: dataUrl(signaturePng(90, 30)) },
          values: { [titleId]: 'General Counsel' },
        }),
      ]);
      assert.equal(a.status, 200, a.text);
      assert.equal(b.status, 200, b.text);
      await waitForStatus(id, 'completed');

      const document = await documentOf(id);
      assert.ok(document.signers.every((s: { status: string }) => s.status === 'signed'));
      const revisions = await DocumentRevision.query(stack.deps.db).where({ document_id: id }).orderBy('revision');
      assert.deepEqual(
        revisions.map((r) => r.kind),
        ['original', 'apply', 'apply', 'completion'],
      );
      assert.equal(revisions[3].sealed_sha256, document.document_hash);

      const events = await Event.query(stack.deps.db).whereRaw(`data->>'document_id' = ?`, [id]).orderBy('created_at');
      assert.deepEqual(
        events.map((e) => e.event),
        ['document.signed', 'document.signed', 'document.completed'],
      );
      const signed = events.filter((e) => e.event === 'document.signed').map((e) => e.data as Record<string, any>);
      assert.deepEqual(signed.map((d) => d.principal.email).sort(), document.signers.map((s: { email: string }) => s.email).sort());
      // The chain of hashes: each apply's pre_sign_hash is the PDF the previous step left, its document_hash the next.
      const sealed = revisions.map((r) => r.sealed_sha256);
      assert.deepEqual(signed.map((d) => d.pre_sign_hash).sort(), [sealed[0], sealed[1]].sort());
      assert.deepEqual(signed.map((d) => d.document_hash).sort(), [sealed[1], sealed[2]].sort());
      for (const data of signed) {
        assert.equal(data.agent, null);
        assert.equal(data.mandate_id, null);
      }
      const completed = events[2].data as Record<string, any>;
      assert.equal(completed.final_sha256, document.document_hash);
      assert.equal(completed.original_sha256, document.original_sha256);
      assert.equal(completed.signers.length, 2);

      const actions = (await AuditEvent.query(stack.deps.db).where({ document_id: id }).orderBy('created_at')).map((a) => a.action);
      for (const action of [
        'document.created',
        'document.sent',
        'sign.code_sent',
        'sign.email_verified',
        'signature.submitted',
        'document.signed',
        'document.completed',
      ]) {
        assert.ok(actions.includes(action), `audit trail lacks ${action}: ${actions.join(', ')}`);
      }
      assertErrorCode(await first.request('POST', '/sign', { consent: true, signature, values: {} }), 409, 'already_signed');
    });
  });
});
