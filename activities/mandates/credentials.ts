// Verifiable mandate credentials (issue 27, an SD-JWT VC since issue 40): granting a mandate issues
// an SD-JWT VC (draft-ietf-oauth-sd-jwt-vc, @sd-jwt/sd-jwt-vc) signed by the receipt keys (the JWKS
// at /.well-known/jwks.json), that states who granted what to which key under which policy; the
// principal's e-mail and name are selectively disclosable, the rest always visible. Its revocation is
// published in an IETF Token Status List (draft-ietf-oauth-status-list) at a public URL. A
// counterparty holding a receipt checks, offline but for that list, that the signature was applied
// under a mandate in force (docs/receipts.md).
import { randomInt } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { isUniqueViolation } from '../../db/errors';
import { Mandate, type Principal, StatusList } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId } from '../../lib/ids';
import type { ReceiptIssuer } from '../../lib/receipts';
import { dailyCapOf } from './policy';

/** The protected header's `typ` of a mandate credential (an SD-JWT VC) and of a status list token. */
export const CREDENTIAL_TYP = 'dc+sd-jwt';
/** The credential's type (`vct`): a signing mandate of this service's kind. */
export const CREDENTIAL_VCT = 'urn:agents:credential:signing-mandate:1';
export const STATUS_LIST_TYP = 'statuslist+jwt';
/** Entries per status list (16 KiB of bits before compression); a list about 80 % used is followed by a new one. */
export const STATUS_LIST_SIZE = 131_072;
/** How long a status list token may be cached (its `ttl` and Cache-Control) and how long it is valid (`exp`). */
export const STATUS_LIST_TTL_S = 60;
const STATUS_LIST_VALID_S = 600;

export interface CredentialDeps {
  receipts: ReceiptIssuer;
  /** SVC_PUBLIC_URL: the status list's URL is under it. */
  publicUrl: string;
}

/** The public URL of a status list token: `GET /v1/status-lists/:id`, no key needed. */
export function statusListUrl(publicUrl: string, listId: string): string {
  return `${publicUrl}/v1/status-lists/${listId}`;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * Random indexes tried in one list before it counts as full and a new list is started: a list is
 * left at about 80 % use (at that fill 16 taken draws in a row happen to 3 % of grants).
 */
const DRAWS_PER_LIST = 16;

/**
 * Reserves the mandate a random free index of the newest status list, in the caller's transaction:
 * each draw claims the (list, index) pair on the mandate row under a savepoint, and the pair's unique
 * constraint refuses an index taken by another grant (committed, or waited for if still under way),
 * so concurrent grants never share an index and take no common lock. An index says nothing about
 * when, or after whom, a mandate was granted (the draft's privacy advice).
 */
export async function reserveIndex(trx: Knex.Transaction, mandateId: string): Promise<{ listId: string; idx: number }> {
  for (;;) {
    const list =
      (await StatusList.query(trx).orderBy('created_at', 'desc').orderBy('id', 'desc').first()) ??
      (await StatusList.query(trx).insertAndFetch({ id: newId('sl'), size: STATUS_LIST_SIZE }));
    for (let draw = 0; draw < DRAWS_PER_LIST; draw += 1) {
      const idx = randomInt(list.size);
      try {
        await trx.transaction(async (savepoint) => {
          await Mandate.query(savepoint).patch({ status_list_id: list.id, status_idx: idx }).where({ id: mandateId });
        });
        return { listId: list.id, idx };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
    await StatusList.query(trx).insert({ id: newId('sl'), size: STATUS_LIST_SIZE });
  }
}

/**
 * Issues the credential of a mandate being granted (in the grant's transaction, after its row became
 * active): a status list index, then the JWS, both kept on the mandate row. Answers the row as written.
 */
export async function issueCredential(
  deps: CredentialDeps,
  trx: Knex.Transaction,
  mandate: Mandate,
  principal: Principal,
): Promise<Mandate> {
  const { listId, idx } = await reserveIndex(trx, mandate.id);
  const jti = newId('mc');
  const grantedAt = mandate.confirmed_at ?? new Date();
  const signer = await deps.receipts.signer(trx);
  const claims = {
    iss: signer.issuer,
    sub: mandate.principal_id,
    iat: seconds(new Date()),
    vct: CREDENTIAL_VCT,
    jti,
    nbf: seconds(grantedAt),
    ...(mandate.expires_at ? { exp: seconds(mandate.expires_at) } : {}),
    credential_type: 'signing-mandate',
    mandate_id: mandate.id,
    tenant_id: mandate.tenant_id,
    principal: { email: principal.email, name: principal.name },
    api_key_id: mandate.api_key_id,
    confirmation_level: mandate.confirmation_level,
    mode: mandate.mode,
    limits: { daily_l2_applies: dailyCapOf(mandate) },
    // What every L2 apply by it was checked against (activities/mandates/policy.ts), as granted.
    ...(mandate.policy ? { policy: mandate.policy } : {}),
    consent_version: mandate.consent_version,
    consent_accepted_at: mandate.consent_accepted_at.toISOString(),
    granted_at: grantedAt.toISOString(),
    status: { status_list: { idx, uri: statusListUrl(deps.publicUrl, listId) } },
  };
  const issuer = new SDJwtVcInstance({
    signer: signer.sign,
    signAlg: 'ES256',
    hasher: digest,
    hashAlg: 'sha-256',
    saltGenerator: generateSalt,
  });
  // The holder may present it without the principal's e-mail and name; everything else is always visible.
  const credential = await issuer.issue(
    claims,
    { principal: { _sd: ['email', 'name'] } },
    { header: { kid: signer.kid, typ: CREDENTIAL_TYP } },
  );
  return mandate.$query(trx).patchAndFetch({ credential_id: jti, credential_jws: credential, status_list_id: listId, status_idx: idx });
}

/** The credentials of these mandates by mandate id (mandates granted before credentials have none). */
export async function credentialsOf(db: Knex, mandateIds: Array<string | null>): Promise<Map<string, string>> {
  const ids = [...new Set(mandateIds.filter((id): id is string => Boolean(id)))];
  if (ids.length === 0) return new Map();
  const rows = await Mandate.query(db).whereIn('id', ids).whereNotNull('credential_jws').select('id', 'credential_jws');
  return new Map(rows.map((row) => [row.id, row.credential_jws!]));
}

/**
 * The bits of a status list, one per index, least significant bit of byte 0 first (the draft's
 * order): 1 for a revoked mandate. An expired mandate keeps 0; its credential's `exp` says it.
 */
export function statusBits(size: number, revoked: number[]): Buffer {
  const bytes = Buffer.alloc(Math.ceil(size / 8));
  for (const idx of revoked) bytes[idx >> 3] |= 1 << (idx & 7);
  return bytes;
}

/**
 * The Status List Token of a list, signed now: `sub` its own URL, `ttl` and `exp`, and
 * `status_list: {bits: 1, lst}` with `lst` the base64url of the ZLIB-compressed bits. 404 for an unknown list.
 */
export async function statusListToken(deps: CredentialDeps & { db: Db }, listId: string): Promise<string> {
  const list = await StatusList.query(deps.db).findById(listId);
  if (!list) throw errors.notFound(t('errors.mandates.no_such_status_list'));
  const revoked = await Mandate.query(deps.db).where({ status_list_id: list.id, status: 'revoked' }).select('status_idx');
  const bits = statusBits(
    list.size,
    revoked.map((row) => row.status_idx!),
  );
  const claims = {
    exp: seconds(new Date()) + STATUS_LIST_VALID_S,
    ttl: STATUS_LIST_TTL_S,
    status_list: { bits: 1, lst: deflateSync(bits).toString('base64url') },
  };
  return deps.receipts.sign(deps.db, claims, statusListUrl(deps.publicUrl, list.id), STATUS_LIST_TYP);
}
