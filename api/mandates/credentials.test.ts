// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inflateSync } from 'node:zlib';
import { digest } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, type JWTPayload, jwtVerify } from 'jose';
import { reserveIndex, STATUS_LIST_SIZE, statusListUrl } from '../../activities/mandates/credentials';
import { confirmGrant, revokeMandate, startGrant } from '../../activities/mandates/mandates';
import { Mandate, StatusList, type Template } from '../../db/models';
import { newId } from '../../lib/ids';
import { latestMail, SignerSession, seedSamples, sentNda, waitForDocument } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { freePort } from '../../test/ports';
import { AppClient, mandatedAccount, principalOf } from '../../test/principal';
import { documentedVerifier, Receiver, selfSignedCertificate, type Verify } from '../../test/receiver';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';
import { mandateDeps } from '../app/pages/common';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

type VerifyMandateSignature = (
  receiptJws: string,
  email: string,
  issuer: string,
) => Promise<{ credential: JWTPayload & { mandate_id?: string }; revoked: boolean }>;

/** The verifier a counterparty would copy from docs/receipts.md: the test runs the documented snippet itself. */
async function documentedMandateVerifier(): Promise<VerifyMandateSignature> {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/receipts.md'), 'utf8');
  const snippet = /<!-- credential-snippet:start -->\s*```ts\n([\s\S]*?)```\s*<!-- credential-snippet:end -->/.exec(doc)?.[1];
  assert.ok(snippet, 'docs/receipts.md has the mandate verification snippet');
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-credential-'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(directory, 'node_modules'), 'dir');
  const file = path.join(directory, 'verify-mandate.ts');
  fs.writeFileSync(file, snippet);
  return ((await import(file)) as { verifyMandateSignature: VerifyMandateSignature }).verifyMandateSignature;
}

interface Credential extends JWTPayload {
  mandate_id: string;
  tenant_id: string;
  principal: { email: string; name: string };
  api_key_id: string;
  confirmation_level: string;
  mode: string;
  limits: { daily_l2_applies: number };
  consent_version: string;
  status: { status_list: { idx: number; uri: string } };
}

describe('mandate credentials and their status list', () => {
  let stack: Stack;
  let tls: ReturnType<typeof selfSignedCertificate>;
  let verifyHook: Verify;
  const receivers: Receiver[] = [];

  before(async () => {
    tls = selfSignedCertificate();
    verifyHook = await documentedVerifier();
    // On a port of its own, so SVC_PUBLIC_URL (the issuer, the status list's URL) is this server.
    stack = await startStack({
      port: await freePort(),
      env: {
        SVC_APPLY_WAIT_MS: '60000',
        SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        SVC_WEBHOOK_CA_FILE: tls.caFile,
        SVC_OUTBOX_POLL_MS: '100',
      },
    });
  });
  after(async () => {
    for (const receiver of receivers) await receiver.stop();
    await stack?.close();
  });

  /** The served JWKS, as a counterparty fetches it (no key). */
  async function keys() {
    const served = await fetch(`${stack.url}/.well-known/jwks.json`);
    assert.equal(served.status, 200);
    return createLocalJWKSet((await served.json()) as JSONWebKeySet);
  }

  /** The credential (an SD-JWT VC): its JWT verified against the JWKS, its claims with the disclosures read by an SD-JWT library. */
  async function verifyCredential(credential: string): Promise<Credential> {
    const [jwt, ...disclosures] = credential.split('~');
    assert.equal(decodeProtectedHeader(jwt).typ, 'dc+sd-jwt');
    assert.equal(disclosures.filter(Boolean).length, 2, 'the principal’s e-mail and name, disclosed');
    const { payload } = await jwtVerify(jwt, await keys(), {
      issuer: stack.config.publicUrl,
      typ: 'dc+sd-jwt',
      algorithms: ['ES256'],
      requiredClaims: ['jti', 'sub', 'iat', 'nbf', 'status', 'vct'],
    });
    assert.equal((payload as { principal: { email?: string } }).principal.email, undefined, 'not in the JWT itself');
    return (await new SDJwtVcInstance({ hasher: digest }).getClaims(credential)) as Credential;
  }

  /** @sd-jwt/sd-jwt-vc as a relying party sets it up: a verifier over the served JWKS, the status list fetched from this stack. */
  async function sdJwtLibrary() {
    const { keys: published } = (await (await fetch(`${stack.url}/.well-known/jwks.json`)).json()) as { keys: object[] };
    const verifier = async (data: string, signature: string) => {
      for (const jwk of published) {
        const key = await crypto.subtle.importKey('jwk', jwk as never, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
        const bytes = Buffer.from(signature, 'base64url');
        if (await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, bytes, new TextEncoder().encode(data))) return true;
      }
      return false;
    };
    const statusListFetcher = async (uri: string) => (await fetch(`${stack.url}${new URL(uri).pathname}`)).text();
    return new SDJwtVcInstance({ hasher: digest, verifier, statusListFetcher, statusVerifier: verifier });
  }

  /** The bit at `idx` of the status list at `uri`, fetched without a key (the URL carries SVC_PUBLIC_URL's host). */
  async function statusBit(uri: string, idx: number): Promise<number> {
    const served = await fetch(`${stack.url}${new URL(uri).pathname}`);
    assert.equal(served.status, 200, await served.clone().text());
    assert.equal(served.headers.get('content-type'), 'application/statuslist+jwt');
    assert.match(served.headers.get('cache-control') ?? '', /max-age=60\b/);
    const { payload, protectedHeader } = await jwtVerify(await served.text(), await keys(), {
      issuer: stack.config.publicUrl,
      typ: 'statuslist+jwt',
      algorithms: ['ES256'],
      subject: uri,
      requiredClaims: ['iat', 'exp'],
    });
    assert.equal(protectedHeader.typ, 'statuslist+jwt');
    assert.equal(payload.ttl, 60);
    const list = payload.status_list as { bits: number; lst: string };
    assert.equal(list.bits, 1);
    const bytes = inflateSync(Buffer.from(list.lst, 'base64url'));
    return (bytes[idx >> 3] >> (idx & 7)) & 1;
  }

  it('a grant in the app issues a credential that verifies against the JWKS; revoking the mandate, or its key, sets its bit', async () => {
    const account = await createAccount(stack.deps.db, { name: 'Cora Credential' });
    const app = await new AppClient(stack, account.email).login();
    const path = (suffix: string) => `${app.appPath}${suffix}`;
    const grant = async (name: string, level: 'L1' | 'L2', mode: string, expiresOn?: string): Promise<string> => {
      const started = await app.post(
        path('/mandates/new'),
        {
          api_key_id: account.keyId,
          name,
          level,
          mode,
          ...(expiresOn ? { expires_on: expiresOn } : {}),
          consent: 'accepted',
          consent_version: 'mandate-consent-v2',
        },
        path('/mandates/new'),
      );
      assert.equal(started.status, 302);
      const confirmPath = started.headers.get('location')!;
      const code = /\b(\d{10}|\d{6})\b/.exec((await latestMail(stack, account.email, 'mandate-code'))!.text)![1];
      assert.equal((await app.post(confirmPath, { code }, confirmPath)).status, 302);
      return confirmPath.split('/').at(-2)!;
    };

    const firstId = await grant('Supplier NDAs', 'L1', 'outbound', '2999-12-31');
    const first = (await Mandate.query(stack.deps.db).findById(firstId))!;
    // The API's mandate and the app's download carry the same credential.
    const api = await call(stack.url, 'GET', `/v1/mandates/${firstId}`, { key: account.key });
    assert.equal(api.status, 200);
    const jws: string = api.body.credential;
    assert.ok(jws);
    const listed = await (await app.get(path('/mandates'))).text();
    assert.match(listed, new RegExp(`href="${path(`/mandates/${firstId}/credential`)}" data-testid="mandate-credential"`));
    const download = await app.get(path(`/mandates/${firstId}/credential`));
    assert.equal(download.status, 200);
    assert.equal(await download.text(), jws);

    const claims = await verifyCredential(jws);
    // A public SD-JWT library verifies it whole (signature over the JWKS key, disclosures, status),
    // and as its holder presents it without the principal: then only the e-mail and name are gone.
    const library = await sdJwtLibrary();
    const whole = await library.verify(jws);
    assert.deepEqual(whole.payload.principal, { email: account.email, name: 'Cora Credential' });
    const presented = await library.present(jws, {});
    assert.equal(presented.split('~').filter(Boolean).length, 1, 'no disclosure left');
    const hidden = await library.verify(presented);
    assert.equal((hidden.payload.principal as { email?: string }).email, undefined);
    assert.equal((hidden.payload.principal as { name?: string }).name, undefined);
    assert.deepEqual(
      [hidden.payload.mandate_id, hidden.payload.confirmation_level, hidden.payload.api_key_id],
      [firstId, 'L1', account.keyId],
    );
    assert.equal(claims.sub, account.principalId);
    assert.equal(claims.jti, first.credential_id);
    assert.equal(claims.mandate_id, firstId);
    assert.equal(claims.tenant_id, account.tenantId);
    assert.equal(claims.api_key_id, account.keyId);
    assert.deepEqual(claims.principal, { email: account.email, name: 'Cora Credential' });
    assert.equal(claims.confirmation_level, 'L1');
    assert.equal(claims.mode, 'outbound');
    assert.deepEqual(claims.limits, { daily_l2_applies: 25 });
    assert.equal(claims.consent_version, 'mandate-consent-v2');
    assert.equal(claims.exp, Math.floor(first.expires_at!.getTime() / 1000));
    assert.equal(claims.nbf, Math.floor(first.confirmed_at!.getTime() / 1000));
    const { idx, uri } = claims.status.status_list;
    assert.match(uri, new RegExp(`^${stack.config.publicUrl}/v1/status-lists/sl_[0-9A-Za-z]{20}$`));
    assert.equal(await statusBit(uri, idx), 0, 'in force: the bit is 0');

    // A second mandate (no expiry: no exp) gets another index.
    const second = await verifyCredential(
      (await call(stack.url, 'GET', `/v1/mandates/${await grant('Automatic', 'L2', 'both')}`, { key: account.key })).body.credential,
    );
    assert.equal(second.exp, undefined);
    assert.equal(second.confirmation_level, 'L2');
    assert.notEqual(second.status.status_list.idx, idx);
    assert.equal(await statusBit(second.status.status_list.uri, second.status.status_list.idx), 0);

    // Revoking the first in the app sets its bit, and only its bit.
    assert.equal((await app.post(path(`/mandates/${firstId}/revoke`), {}, path('/mandates'))).status, 302);
    assert.equal(await statusBit(uri, idx), 1, 'revoked: the bit is 1');
    assert.equal(await statusBit(second.status.status_list.uri, second.status.status_list.idx), 0);

    // Revoking the key revokes the second mandate: its bit is set too.
    assert.equal((await app.post(path(`/keys/${account.keyId}/revoke`), {}, path('/keys'))).status, 302);
    assert.equal(await statusBit(second.status.status_list.uri, second.status.status_list.idx), 1);

    // An unknown list is a 404, with no key asked for.
    const unknown = await fetch(`${stack.url}/v1/status-lists/sl_doesnotexist`);
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: { code: string } }).error.code, 'not_found');
  });

  it('an L2 apply: the receipt and the delivered document.signed event carry the mandate credential', async () => {
    const owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    const { nda }: { nda: Template } = await seedSamples(stack, owner);
    const { account, principal, mandate } = await mandatedAccount(stack, { level: 'L2', name: 'Lena Level' });
    const receiver = await new Receiver(tls).start();
    receivers.push(receiver);
    const hook = await call(stack.url, 'POST', '/v1/webhooks', { key: account.key, body: { url: receiver.url } });
    assert.equal(hook.status, 201, hook.text);

    // The counterparty signs first in the browser; the agent's L2 apply is the last signature, so it makes the receipt.
    const document = await sentNda(stack, owner, nda, principal, { name: 'Credential NDA' });
    const other = await new SignerSession(stack, document.signers[1].sign_url, document.signers[1].email).verify();
    const titleId = nda.widgets.find((w) => w.role === 'Receiving Party' && w.type === 'text')!.id;
    const signedInBrowser = await other.request('POST', '/sign', {
      consent: true,
      signature: { method: 'drawn', image: dataUrl(signaturePng()) },
      values: { [titleId]: 'Director' },
    });
    assert.equal(signedInBrowser.status, 200, signedInBrowser.text);
    const applied = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
      key: account.key,
      body: { reason: 'Countersign the agreed NDA' },
    });
    assert.equal(applied.status, 200, applied.text);
    const completed = await waitForDocument(stack, owner.key, document.document_id, (d) => d.status === 'completed', 'completion');

    const credential = (await Mandate.query(stack.deps.db).findById(mandate.id))!.credential_jws!;
    assert.ok(credential);
    const { payload: receipt } = await jwtVerify(completed.receipt_jws, await keys(), { issuer: stack.config.publicUrl, typ: 'JWT' });
    const signers = receipt.signers as Array<{ method: string; mandate_id: string | null; mandate_credential: string | null }>;
    const byMandate = signers.find((signer) => signer.method === 'mandate:l2')!;
    assert.equal(byMandate.mandate_id, mandate.id);
    assert.equal(byMandate.mandate_credential, credential, 'the receipt carries the credential it was signed under');
    assert.equal(signers.find((signer) => signer.method?.startsWith('browser:'))!.mandate_credential, null);
    const claims = await verifyCredential(byMandate.mandate_credential!);
    assert.equal(claims.mandate_id, mandate.id);
    assert.equal(claims.confirmation_level, 'L2');
    assert.ok(claims.nbf! <= (receipt.iat as number), 'in force when the receipt was signed');
    assert.equal(await statusBit(claims.status.status_list.uri, claims.status.status_list.idx), 0);

    const event = await waitFor('document.signed at the receiver', () => {
      const found = receiver.received.find((entry) => {
        const body = JSON.parse(entry.body);
        return body.event === 'document.signed' && body.data.document_id === document.document_id && body.data.mandate_id;
      });
      return found && { body: JSON.parse(found.body), raw: found };
    });
    assert.ok(verifyHook(hook.body.secret, String(event.raw.headers['x-webhook-signature']), event.raw.body), 'a valid signature');
    assert.equal(event.body.data.mandate_id, mandate.id);
    assert.equal(event.body.data.mandate_credential, credential);

    // The counterparty's check, as docs/receipts.md shows it: in force at the signature, not revoked;
    // after a revoke the signature still verifies and the list says revoked.
    const verifyMandateSignature = await documentedMandateVerifier();
    const checked = await verifyMandateSignature(completed.receipt_jws, principal.email, stack.config.publicUrl);
    assert.equal(checked.credential.mandate_id, mandate.id);
    assert.equal(checked.revoked, false);
    await assert.rejects(
      verifyMandateSignature(completed.receipt_jws, document.signers[1].email, stack.config.publicUrl),
      /did not sign under a mandate credential/,
    );
    await revokeMandate(stack.deps.db, principal, mandate.id, { type: 'principal', id: principal.id });
    assert.equal((await verifyMandateSignature(completed.receipt_jws, principal.email, stack.config.publicUrl)).revoked, true);
  });

  it('grants confirmed at once each get an index of their own, drawn at random', async () => {
    const deps = mandateDeps(stack.deps);
    const pending = await Promise.all(
      [0, 1, 2, 3, 4].map(async (n) => {
        const account = await createAccount(stack.deps.db);
        const principal = await principalOf(stack, account);
        const actor = { type: 'principal' as const, id: principal.id, ip: '127.0.0.1' };
        const started = await startGrant(
          deps,
          principal,
          { apiKeyId: account.keyId, name: `Race ${n}`, level: 'L1', mode: 'both', consentAccepted: true },
          actor,
        );
        const code = /\b(\d{10}|\d{6})\b/.exec((await latestMail(stack, principal.email, 'mandate-code'))!.text)![1];
        return { principal, started, code, actor };
      }),
    );
    const granted = await Promise.all(pending.map((p) => confirmGrant(deps, p.principal, p.started.id, p.code, p.actor)));
    const slots = granted.map((mandate) => `${mandate.status_list_id}/${mandate.status_idx}`);
    assert.equal(new Set(slots).size, granted.length, slots.join(', '));
    // Not handed out in order: five indexes drawn from 131,072 are not a run of five neighbours.
    const indexes = granted.map((mandate) => mandate.status_idx!).sort((a, b) => a - b);
    assert.ok(indexes.at(-1)! - indexes[0] > granted.length, `indexes in order: ${indexes.join(', ')}`);
    for (const mandate of granted) {
      const claims = await verifyCredential(mandate.credential_jws!);
      assert.equal(claims.status.status_list.idx, mandate.status_idx);
      assert.equal(claims.jti, mandate.credential_id);
    }
  });

  it('a list whose draws keep finding taken indexes is followed by a new one, and no index is given twice', async () => {
    const mandates = await Promise.all([0, 1, 2, 3, 4, 5].map(() => mandatedAccount(stack, { level: 'L1' })));
    const small = await StatusList.query(stack.deps.db).insertAndFetch({ id: newId('sl'), size: 4 });
    const slots: Array<{ listId: string; idx: number }> = [];
    for (const { mandate } of mandates) slots.push(await stack.deps.db.transaction((trx) => reserveIndex(trx, mandate.id)));
    const inSmall = slots.filter((slot) => slot.listId === small.id);
    assert.ok(inSmall.length >= 1 && inSmall.length <= 4, JSON.stringify(slots));
    assert.ok(inSmall.every((slot) => slot.idx >= 0 && slot.idx < 4));
    const next = slots.filter((slot) => slot.listId !== small.id);
    assert.ok(next.length >= 2, 'a new list was started once the small one was full');
    assert.equal(new Set(slots.map((slot) => `${slot.listId}/${slot.idx}`)).size, slots.length);
    const newest = await StatusList.query(stack.deps.db).orderBy('created_at', 'desc').orderBy('id', 'desc').first();
    assert.notEqual(newest!.id, small.id);
    assert.equal(newest!.size, STATUS_LIST_SIZE);
    // The small list is served like any other: its revoked bits are those of its mandates.
    const revokedSlot = inSmall[0];
    const owner = mandates[slots.indexOf(revokedSlot)];
    const principal = await principalOf(stack, owner.account);
    await revokeMandate(stack.deps.db, principal, owner.mandate.id, { type: 'principal', id: principal.id });
    assert.equal(await statusBit(statusListUrl(stack.config.publicUrl, small.id), revokedSlot.idx), 1);
  });

  it('a mandate granted before credentials has none: null in the API', async () => {
    const { account, mandate } = await mandatedAccount(stack, { level: 'L1', name: 'Old Timer' });
    await Mandate.query(stack.deps.db)
      .findById(mandate.id)
      .patch({ credential_id: null, credential_jws: null, status_list_id: null, status_idx: null });
    const api = await call(stack.url, 'GET', `/v1/mandates/${mandate.id}`, { key: account.key });
    assert.equal(api.status, 200);
    assert.equal(api.body.credential, null);
  });
});
