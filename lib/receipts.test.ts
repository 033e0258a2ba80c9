import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { parseCommand, runCommand } from '../api/admin/commands';
import { ReceiptKey } from '../db/models';
import { type Stack, startStack } from '../test/stack';
import { createReceiptIssuer } from './receipts';

type VerifyReceipt = (jws: string, jwksUrl: string, issuer: string) => Promise<Record<string, unknown>>;

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/**
 * The verifier a counterparty would copy from docs/receipts.md: the test runs the documented snippet
 * itself, importing jose as the counterparty's own project would (its node_modules).
 */
async function documentedReceiptVerifier(directory: string): Promise<VerifyReceipt> {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/receipts.md'), 'utf8');
  const snippet = /<!-- receipt-snippet:start -->\s*```ts\n([\s\S]*?)```\s*<!-- receipt-snippet:end -->/.exec(doc)?.[1];
  assert.ok(snippet, 'docs/receipts.md has the verification snippet');
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(directory, 'node_modules'), 'dir');
  const file = path.join(directory, 'verify-receipt.ts');
  fs.writeFileSync(file, snippet);
  return ((await import(file)) as { verifyReceipt: VerifyReceipt }).verifyReceipt;
}

const CLAIMS = {
  receipt_type: 'offer.accepted',
  protocol: 'agent-signing/0.1',
  offer_id: 'ofr_receipttest',
  pre_sign_hash: 'a'.repeat(64),
  document_hash: 'b'.repeat(64),
  confirmation_level: 'l2',
};

describe('receipts: signed with the receipt key, verified with the documented snippet against the served JWKS', () => {
  let stack: Stack;
  let scratch: string;
  let verifyReceipt: VerifyReceipt;
  let jwksUrl: string;
  let issuer: string;
  /** A receipt signed before the rotation, and the key that signed it. */
  let earlier: { jws: string; kid: string };

  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-receipts-'));
    verifyReceipt = await documentedReceiptVerifier(scratch);
    stack = await startStack({ worker: false });
    jwksUrl = `${stack.url}/.well-known/jwks.json`;
    issuer = stack.config.publicUrl;
  });
  after(async () => {
    await stack.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const sign = (subject = CLAIMS.offer_id) => stack.deps.receipts.sign(stack.deps.db, CLAIMS, subject);
  const refusal = (code: string) => (error: unknown) => {
    assert.equal((error as { code?: string }).code, code, String(error));
    return true;
  };

  async function servedKeys(): Promise<Array<Record<string, unknown>>> {
    const reply = await fetch(jwksUrl);
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^application\/jwk-set\+json/);
    return ((await reply.json()) as { keys: Array<Record<string, unknown>> }).keys;
  }

  it('verifies a receipt with the documented snippet: ES256, its kid, typ JWT, issuer SVC_PUBLIC_URL, subject and claims', async () => {
    assert.deepEqual(await servedKeys(), [], 'no key before the first receipt');
    const jws = await sign();
    const header = decodeProtectedHeader(jws);
    assert.equal(header.alg, 'ES256');
    assert.equal(header.typ, 'JWT');
    assert.match(String(header.kid), /^rk_/);
    assert.deepEqual(
      (await servedKeys()).map((key) => key.kid),
      [header.kid],
      'the first receipt made the first key',
    );

    const payload = await verifyReceipt(jws, jwksUrl, issuer);
    assert.equal(payload.iss, issuer);
    assert.equal(payload.sub, CLAIMS.offer_id);
    assert.equal(typeof payload.iat, 'number');
    for (const [claim, value] of Object.entries(CLAIMS)) assert.equal(payload[claim], value, claim);
    await assert.rejects(verifyReceipt(jws, jwksUrl, 'https://another.example'), refusal('ERR_JWT_CLAIM_VALIDATION_FAILED'));
    earlier = { jws, kid: String(header.kid) };
  });

  it('rotate-receipt-key: receipts signed before still verify (the old kid stays published); new ones carry the new kid', async () => {
    const rotated = (await runCommand(stack.deps, parseCommand(['rotate-receipt-key']))) as {
      kid: string;
      jwks: string[];
    };
    assert.match(rotated.kid, /^rk_/);
    assert.notEqual(rotated.kid, earlier.kid);
    assert.deepEqual(rotated.jwks, [rotated.kid, earlier.kid], 'the new key first, the retired one kept');
    assert.deepEqual(
      (await servedKeys()).map((key) => key.kid),
      [rotated.kid, earlier.kid],
    );

    assert.equal((await verifyReceipt(earlier.jws, jwksUrl, issuer)).offer_id, CLAIMS.offer_id, 'an old receipt still verifies');
    const later = await sign('ofr_afterrotation');
    assert.equal(decodeProtectedHeader(later).kid, rotated.kid);
    assert.equal((await verifyReceipt(later, jwksUrl, issuer)).sub, 'ofr_afterrotation');
  });

  it('refuses a tampered payload, a foreign ES256 key under a published kid, and an unknown kid', async () => {
    const jws = await sign();
    const [head, payload, signature] = jws.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const tampered = Buffer.from(JSON.stringify({ ...claims, document_hash: 'c'.repeat(64) })).toString('base64url');
    await assert.rejects(
      verifyReceipt(`${head}.${tampered}.${signature}`, jwksUrl, issuer),
      refusal('ERR_JWS_SIGNATURE_VERIFICATION_FAILED'),
    );

    const foreign = await generateKeyPair('ES256');
    const forge = (kid: string) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setSubject(CLAIMS.offer_id)
        .setIssuedAt()
        .sign(foreign.privateKey);
    const kid = String(decodeProtectedHeader(jws).kid);
    await assert.rejects(verifyReceipt(await forge(kid), jwksUrl, issuer), refusal('ERR_JWS_SIGNATURE_VERIFICATION_FAILED'));
    await assert.rejects(verifyReceipt(await forge('rk_notours'), jwksUrl, issuer), refusal('ERR_JWKS_NO_MATCHING_KEY'));
  });

  it('serves public keys only: no private member in any key, retired ones included', async () => {
    const keys = await servedKeys();
    assert.ok(keys.length >= 2);
    for (const key of keys) {
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) assert.ok(!(member in key), `${key.kid} has no ${member}`);
      assert.deepEqual({ kty: key.kty, crv: key.crv, alg: key.alg, use: key.use }, { kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      assert.deepEqual(Object.keys(key).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    }
  });

  it('keeps signing after SVC_SECRET_KEY changed: the key it can no longer open is retired, a new one signs, old receipts still verify', async () => {
    const before = await sign('ofr_beforesecret');
    const oldKid = String(decodeProtectedHeader(before).kid);
    const elsewhere = createReceiptIssuer({ db: stack.deps.db, secret: randomBytes(32), issuer });
    const after = await elsewhere.sign(stack.deps.db, CLAIMS, 'ofr_aftersecret');
    const newKid = String(decodeProtectedHeader(after).kid);
    assert.notEqual(newKid, oldKid);
    assert.equal((await verifyReceipt(after, jwksUrl, issuer)).sub, 'ofr_aftersecret');
    assert.equal((await verifyReceipt(before, jwksUrl, issuer)).sub, 'ofr_beforesecret', 'the retired key stays published');
    assert.ok((await ReceiptKey.query(stack.deps.db).findById(oldKid))?.retired_at, 'the unreadable key is retired');
  });
});
