import { type CryptoKey, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type JWK, SignJWT } from 'jose';
import type { Knex } from 'knex';
import type { Db } from '../db/connect';
import { isUniqueViolation } from '../db/errors';
import { ReceiptKey } from '../db/models';
import { randomBase62 } from './ids';
import { decryptSecret, encryptSecret } from './secrets/encrypt';

const ALG = 'ES256';
const PURPOSE = 'receipt-key';

/** Signs receipts (compact JWS, ES256, with `kid`) and publishes the keys that verify them. */
export interface ReceiptIssuer {
  /**
   * A compact JWS of the claims, signed by the active key (created on first use), `iss` and `iat`
   * set. `db` is the connection it reads the key through: the caller's transaction when it has one
   * open (a completion, an offer's acceptance), so it never waits for a second connection. `typ` is
   * the protected header's type: `JWT` for a receipt,
   * `statuslist+jwt` for a status list token.
   */
  sign(db: Knex, claims: Record<string, unknown>, subject: string, typ?: string): Promise<string>;
  /**
   * The active key as a bare signer, for a token a library assembles (the mandate credential, an
   * SD-JWT VC): its `kid`, the issuer, and `sign`, which answers the ES256 signature (base64url, JOSE's
   * r||s) of the signing input it is given.
   */
  signer(db: Knex): Promise<{ kid: string; issuer: string; sign(input: string): Promise<string> }>;
  /** Every key ever used, the retired ones included, as a JWKS (`GET /.well-known/jwks.json`). */
  jwks(): Promise<{ keys: JWK[] }>;
  /** A new active key; the old one is retired but stays in the JWKS. Answers the new kid. */
  rotate(): Promise<string>;
}

/** A fresh key pair as a row: the public JWK published, the private key sealed under SVC_SECRET_KEY. */
async function keyRow(secret: Buffer) {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
  const kid = `rk_${randomBase62(16)}`;
  return {
    kid,
    alg: ALG,
    public_jwk: { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' } as JWK,
    private_ciphertext: encryptSecret(secret, PURPOSE, await exportPKCS8(privateKey)),
  };
}

/**
 * Receipt keys live in the database, their private half encrypted under SVC_SECRET_KEY, so every
 * API and worker replica signs with the same key and a rotation reaches them all.
 */
export function createReceiptIssuer(options: { db: Db; secret: Buffer; issuer: string }): ReceiptIssuer {
  const { db, secret } = options;
  const imported = new Map<string, Promise<CryptoKey>>();

  async function activeKey(runner: Knex): Promise<ReceiptKey> {
    const active = await ReceiptKey.query(runner).whereNull('retired_at').first();
    if (active) return active;
    const row = await keyRow(secret);
    try {
      // In its own (sub)transaction: a unique violation rolls back only this insert, not the caller's transaction.
      return await runner.transaction(async (inner) => await ReceiptKey.query(inner).insertAndFetch(row));
    } catch (error) {
      // Two processes created the first key at once: the unique index kept one; use it.
      if (!isUniqueViolation(error)) throw error;
      return (await ReceiptKey.query(runner).whereNull('retired_at').first())!;
    }
  }

  function privateKeyOf(key: ReceiptKey): Promise<CryptoKey> {
    let found = imported.get(key.kid);
    if (!found) {
      found = importPKCS8(decryptSecret(secret, PURPOSE, key.private_ciphertext), ALG);
      imported.set(key.kid, found);
    }
    return found;
  }

  /** The active key and its private half, which this process can read. */
  async function usableKey(runner: Knex): Promise<{ key: ReceiptKey; privateKey: CryptoKey }> {
    const key = await activeKey(runner);
    try {
      return { key, privateKey: await privateKeyOf(key) };
    } catch {
      // Sealed under another SVC_SECRET_KEY (rotated): that key can no longer sign. It is retired
      // (its public half stays published, so its receipts still verify) and a new one signs.
      imported.delete(key.kid);
      await ReceiptKey.query(runner).findById(key.kid).whereNull('retired_at').patch({ retired_at: new Date() });
      const next = await activeKey(runner);
      return { key: next, privateKey: await privateKeyOf(next) };
    }
  }

  return {
    async signer(runner) {
      const { key, privateKey } = await usableKey(runner);
      return {
        kid: key.kid,
        issuer: options.issuer,
        async sign(input: string) {
          const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, new TextEncoder().encode(input));
          return Buffer.from(signature).toString('base64url');
        },
      };
    },

    async sign(runner, claims, subject, typ = 'JWT') {
      const { key, privateKey } = await usableKey(runner);
      return new SignJWT(claims)
        .setProtectedHeader({ alg: ALG, kid: key.kid, typ })
        .setIssuer(options.issuer)
        .setSubject(subject)
        .setIssuedAt()
        .sign(privateKey);
    },

    async jwks() {
      const keys = await ReceiptKey.query(db).orderBy('created_at', 'desc');
      return { keys: keys.map((key) => key.public_jwk as JWK) };
    },

    async rotate() {
      return db.transaction(async (trx) => {
        await ReceiptKey.query(trx).whereNull('retired_at').patch({ retired_at: new Date() });
        const { kid } = await ReceiptKey.query(trx).insertAndFetch(await keyRow(secret));
        return kid;
      });
    },
  };
}
