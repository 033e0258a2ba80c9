import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PSEUDO_LOCALE, withLocale } from '../../lib/i18n';
import { outsideCatalogue, PSEUDO_HEADERS } from '../../test/catalogue';
import { createDocument, seedSamples } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { type Stack, startStack } from '../../test/stack';
import { stopSection } from '../accounts/stop';
import { codeLockedMail, grantCodeMail, lockedWhat, loginCodeMail, signCodeMail } from '../codes/mails';
import { contactInviteMail } from '../contacts/mails';
import {
  appliedMail,
  completedMail,
  inviteMail,
  principalRejectedMail,
  rejectionReason,
  reminderMail,
  signerRejectedMail,
  voidedMail,
} from '../documents/mails';
import { confirmationFailedMail, signRequestMail } from '../signing/mails';
import { transferOfferMail } from '../transfers/mails';
import type { MailText } from './text';

// What the people and agents typed (names, titles, reasons, labels) and the values the mails show
// (a mandate's level, an error's message from the errors area): data, not catalogue strings.
const ANN = 'Ann Lee';
const OWNER = 'Zoë Šimůnek';
const DOCUMENT = 'Mutual NDA — Šimůnek & Lee';
const ROLE = 'Disclosing Party';
const MANDATE = 'Everyday signing';
const KEY = 'sales agent';
const REASON = 'Close the Q3 deal before Friday';
const ERROR = 'The mandate was revoked or expired before the confirmation.';
const DATA = [ANN, OWNER, DOCUMENT, ROLE, MANDATE, KEY, REASON, ERROR, 'L1', 'L2', 'Project Falcon files'];

const SIGN_URL = 'https://app.example.test/s/sgn_4kT9xQ2mZ8.abcdefabcdefabcdefabcdef';
const AT = new Date('2026-11-29T09:05:07.123Z');
const secret = Buffer.alloc(32, 7);

/** Every mail the service sends, with realistic values: a name for the failure message, and the mail. */
function everyMail(): Array<[string, MailText]> {
  const stopLines = stopSection('https://app.example.test', secret, 'mdt_4kT9xQ2mZ8aaaaaaaaaa').lines;
  const invite = {
    signerName: ANN,
    role: ROLE,
    ownerName: OWNER,
    ownerEmail: 'zoe@example.test',
    documentName: DOCUMENT,
    signUrl: SIGN_URL,
  };
  const applied = { principalName: OWNER, mandateName: MANDATE, mandateId: 'mdt_4kT9xQ2mZ8', keyLabel: KEY, keyPrefix: 'svc_live_3fA9' };
  const rejected = {
    principalName: OWNER,
    documentName: DOCUMENT,
    documentId: 'doc_4kT9xQ2mZ8',
    mandateName: MANDATE,
    mandateId: 'mdt_4kT9xQ2mZ8',
  };
  const completed = {
    name: ANN,
    documentName: DOCUMENT,
    documentId: 'doc_4kT9xQ2mZ8',
    completedAt: AT,
    signers: [
      { name: ANN, email: 'ann@example.test' },
      { name: OWNER, email: 'zoe@example.test' },
    ],
    link: { url: 'https://api.example.test/files/documents/doc_4kT9xQ2mZ8.pdf?token=eyJhbGciOiJIUzI1NiJ9', expiresAt: AT.toISOString() },
    sha256: '9c0d'.repeat(16),
  };
  const transfer = {
    recipientName: ANN,
    senderName: OWNER,
    senderEmail: 'zoe@example.test',
    transferName: 'Project Falcon files',
    claimUrl: 'https://app.example.test/claim/ct_abcdefabcdefabcdef',
  };
  return [
    ['invitation', inviteMail(invite)],
    ['reminder', reminderMail({ ...invite, expiresAt: null })],
    ['reminder before the expiry', reminderMail({ ...invite, expiresAt: AT })],
    ['voided', voidedMail({ signerName: ANN, documentName: DOCUMENT, reason: REASON })],
    [
      'rejected, to the signer',
      signerRejectedMail({ signerName: ANN, documentName: DOCUMENT, why: rejectionReason(ERROR, 'mandate_inactive'), signUrl: SIGN_URL }),
    ],
    [
      'rejected, no message',
      signerRejectedMail({ signerName: ANN, documentName: DOCUMENT, why: rejectionReason(null, null), signUrl: SIGN_URL }),
    ],
    [
      'rejected, to the principal',
      principalRejectedMail({ ...rejected, level: 'L1', why: rejectionReason(ERROR, 'mandate_inactive'), stopLines }),
    ],
    [
      'L2 notice',
      appliedMail({
        ...applied,
        documentName: DOCUMENT,
        documentId: 'doc_4kT9xQ2mZ8',
        appliedAt: AT,
        reason: REASON,
        hashBefore: 'a3f1'.repeat(16),
        hashAfter: '9c0d'.repeat(16),
        stopLines,
      }),
    ],
    ['completed, to a signer', completedMail({ ...completed, signLink: { url: SIGN_URL, until: AT } })],
    ['completed, to the sender', completedMail(completed)],
    [
      'sign request',
      signRequestMail({
        principalName: OWNER,
        documentName: DOCUMENT,
        reason: REASON,
        confirmUrl: `${SIGN_URL}/confirm`,
        expiresAt: AT,
        stopLines,
      }),
    ],
    ['confirmation failed', confirmationFailedMail({ ...rejected, error: { message: ERROR, code: 'mandate_inactive' } })],
    [
      'sign-in code',
      loginCodeMail({ code: '0123456789', minutes: 10, linkUrl: 'https://app.example.test/login/link?token=abcdefabcdefabcdefabcdef' }),
    ],
    ['sign link code', signCodeMail({ code: '012345', minutes: 1, documentName: DOCUMENT })],
    [
      'grant code',
      grantCodeMail({ code: '0123456789', level: 'L2', mandateName: MANDATE, keyLabel: KEY, keyPrefix: 'svc_live_3fA9', stopLines }),
    ],
    [
      'grant code with link',
      grantCodeMail({
        code: '0123456789',
        level: 'L1',
        mandateName: MANDATE,
        keyLabel: KEY,
        keyPrefix: 'svc_live_3fA9',
        linkUrl: `${SIGN_URL}?link=abc`,
        stopLines,
      }),
    ],
    ['wrong codes, sign-in', codeLockedMail({ what: lockedWhat.signIn(), client: '203.0.113.7' })],
    ['wrong codes, sign link', codeLockedMail({ what: lockedWhat.signLink(DOCUMENT), client: 'unknown' })],
    ['wrong codes, grant', codeLockedMail({ what: lockedWhat.grant(MANDATE), client: '2001:db8::/64' })],
    [
      'contact invitation',
      contactInviteMail({
        inviteeName: ANN,
        inviterName: OWNER,
        inviterEmail: 'zoe@example.test',
        to: 'ann@example.test',
        acceptUrl: `${SIGN_URL}/accept`,
      }),
    ],
    ['transfer, share', transferOfferMail({ ...transfer, mode: 'share' })],
    ['transfer, sign', transferOfferMail({ ...transfer, mode: 'sign' })],
    ['transfer, accept', transferOfferMail({ ...transfer, mode: 'accept' })],
  ];
}

describe('every mail takes its words from the catalogue', () => {
  it('each mail written in the pseudo-locale has no subject or body text outside the catalogue', () => {
    const mails = withLocale(PSEUDO_LOCALE, everyMail);
    for (const [name, mail] of mails) {
      assert.deepEqual(outsideCatalogue(mail.subject, DATA), [], `${name}: ${mail.subject}`);
      assert.deepEqual(outsideCatalogue(mail.text, DATA), [], `${name}:\n${mail.text}`);
      assert.match(mail.subject, /⟦/, `${name}: its subject is a catalogue message`);
    }
    // The words are the same in English, only unwrapped.
    const english = everyMail();
    for (const [index, [name, mail]] of mails.entries()) {
      const unwrapped = (text: string) => text.replace(/[⟦⟧]/g, '');
      assert.deepEqual({ subject: unwrapped(mail.subject), text: unwrapped(mail.text) }, english[index][1], name);
    }
  });
});

describe('the mails the flows send', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  it('a code asked for in the pseudo-locale (sign-in, sign link) comes in it: no word outside the catalogue', async () => {
    const account = await createAccount(stack.deps.db, { name: OWNER });
    const login = await fetch(`${stack.url}/app/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...PSEUDO_HEADERS },
      body: new URLSearchParams({ email: account.email }).toString(),
      redirect: 'manual',
    });
    assert.ok(login.status < 400, `login: ${login.status}`);
    const loginMail = await stack.smtp!.nextMail(account.email, { subject: /sign-in code/ });
    assert.equal(loginMail.purpose, 'login-code');
    assert.deepEqual(outsideCatalogue(loginMail.subject, DATA), [], loginMail.subject);
    assert.deepEqual(outsideCatalogue(loginMail.text, DATA), [], loginMail.text);

    const { nda } = await seedSamples(stack, account);
    const email = `ann-${Date.now()}@example.test`;
    const created = await createDocument(stack, account, {
      template_id: nda.id,
      name: DOCUMENT,
      send: true,
      signers: [
        { name: ANN, email },
        { name: 'Carl Counterparty', email: `carl-${Date.now()}@example.test` },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const path = new URL(created.body.signers[0].sign_url).pathname;
    const asked = await call(stack.url, 'POST', `${path}/code`, { headers: PSEUDO_HEADERS });
    assert.equal(asked.status, 200, asked.text);
    const codeMail = await stack.smtp!.nextMail(email, { subject: /code to open/ });
    assert.equal(codeMail.purpose, 'sign-code');
    assert.deepEqual(outsideCatalogue(codeMail.subject, DATA), [], codeMail.subject);
    assert.deepEqual(outsideCatalogue(codeMail.text, DATA), [], codeMail.text);
  });

  it('the invitation the document’s workflow sends is inviteMail’s text, in English', async () => {
    const account = await createAccount(stack.deps.db, { name: OWNER });
    const { nda } = await seedSamples(stack, account);
    const email = `ann-${Date.now()}@example.test`;
    const created = await createDocument(stack, account, {
      template_id: nda.id,
      name: DOCUMENT,
      send: true,
      signers: [
        { name: ANN, email },
        { name: 'Carl Counterparty', email: `carl-${Date.now()}@example.test` },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const signer = created.body.signers[0];
    const mail = await stack.smtp!.nextMail(email, { subject: /to sign/ });
    assert.equal(mail.purpose, 'sign-invite');
    const expected = inviteMail({
      signerName: ANN,
      role: signer.role,
      ownerName: OWNER,
      ownerEmail: account.email,
      documentName: DOCUMENT,
      signUrl: signer.sign_url,
    });
    assert.deepEqual({ subject: mail.subject, text: mail.text.replace(/\r\n/g, '\n').replace(/\n$/, '') }, expected);
    assert.doesNotMatch(mail.text, /[⟦⟧]/);
  });
});
