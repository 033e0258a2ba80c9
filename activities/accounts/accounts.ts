import type { Db } from '../../db/connect';
import { isUniqueViolation } from '../../db/errors';
import { ApiKey, PLANS, type Plan, Principal, Tenant } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId, randomBase62, sha256Hex } from '../../lib/ids';
import type { KeyCache } from '../../lib/key-cache';
import { type Actor, recordAudit } from '../audit/audit';
import { authorize } from './authorize';
import { DEFAULT_SCOPES } from './scopes';
import { revokeKeyWithMandates, type Stopped } from './stop';

export { DEFAULT_SCOPES, SIGN_SCOPE } from './scopes';

const KEY_PREFIX = 'svc_';
const KEY_RANDOM_LENGTH = 32;
/** The visible start of a key kept for people to recognise it: `svc_` and four characters. */
const KEY_DISPLAY_LENGTH = 8;
const KEY_PATTERN = /^svc_[0-9A-Za-z]{32}$/;

export { isBusinessPlus } from './authorize';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface CreatePrincipalInput {
  email: string;
  name: string;
  plan?: Plan;
  tenantId?: string;
}

export async function createPrincipal(db: Db, input: CreatePrincipalInput) {
  const email = normalizeEmail(input.email);
  const taken = () => errors.conflict(t('errors.accounts.principal_e_mail_already_exists', { email }));
  return db
    .transaction(async (trx) => {
      if (await Principal.query(trx).whereRaw('lower(email) = ?', [email]).first()) throw taken();
      let tenant: Tenant;
      if (input.tenantId) {
        const existing = await Tenant.query(trx).findById(input.tenantId);
        if (!existing) throw errors.notFound(t('errors.accounts.no_tenant', { tenantId: input.tenantId }));
        if (input.plan && input.plan !== existing.plan) {
          throw errors.invalidRequest(t('errors.accounts.tenant_change_set_plan_not', { id: existing.id, plan: existing.plan }));
        }
        tenant = existing;
      } else {
        tenant = await Tenant.query(trx).insertAndFetch({ id: newId('ten'), name: input.name, plan: input.plan ?? 'business' });
      }
      const principal = await Principal.query(trx).insertAndFetch({
        id: newId('prn'),
        tenant_id: tenant.id,
        email,
        name: input.name.trim(),
      });
      return { tenant, principal };
    })
    .catch((error) => {
      // Two creations of one e-mail at once: the unique index decides, the loser gets the same answer.
      throw isUniqueViolation(error) ? taken() : error;
    });
}

export interface CreatedKey {
  apiKey: ApiKey;
  /** The raw key: returned once, never stored. */
  secret: string;
}

export async function createKey(db: Db, input: { email?: string; principalId?: string; label: string }): Promise<CreatedKey> {
  const query = Principal.query(db);
  const principal = input.principalId
    ? await query.findById(input.principalId)
    : await query.whereRaw('lower(email) = ?', [normalizeEmail(input.email ?? '')]).first();
  if (!principal)
    throw errors.notFound(t('errors.accounts.no_principal', { principal: input.principalId ?? normalizeEmail(input.email ?? '') }));
  const secret = `${KEY_PREFIX}${randomBase62(KEY_RANDOM_LENGTH)}`;
  const apiKey = await ApiKey.query(db).insertAndFetch({
    id: newId('key'),
    tenant_id: principal.tenant_id,
    principal_id: principal.id,
    label: input.label.trim(),
    prefix: secret.slice(0, KEY_DISPLAY_LENGTH),
    key_hash: sha256Hex(secret),
    scopes: [...DEFAULT_SCOPES],
  });
  return { apiKey, secret };
}

/** An operator revokes a key (admin revoke-key): its mandates with it, as the principal's revocation does. */
export async function revokeKey(db: Db, keyId: string): Promise<ApiKey> {
  return (await revokeKeyWithMandates(db, keyId, { type: 'operator' }, 'operator')).key!;
}

export async function setPlan(db: Db, input: { tenantId: string; plan: Plan }): Promise<Tenant> {
  if (!PLANS.includes(input.plan)) throw errors.invalidRequest(t('errors.accounts.plan_must_one', { plans: PLANS.join(', ') }));
  const tenant = await Tenant.query(db).patchAndFetchById(input.tenantId, { plan: input.plan, updated_at: new Date() });
  if (!tenant) throw errors.notFound(t('errors.accounts.no_tenant', { tenantId: input.tenantId }));
  return tenant;
}

export interface Caller {
  apiKey: ApiKey;
  principal: Principal;
  tenant: Tenant;
}

export interface AuthenticateOptions {
  /** Marks the key used (batched, see lib/key-usage.ts), so authenticating writes nothing on the request path. */
  touch?: (apiKey: ApiKey, now: Date) => void;
  /** Callers already looked up, by key hash (lib/key-cache.ts): a known key then reads nothing. */
  cache?: KeyCache<Caller>;
}

/**
 * The caller behind a raw API key, or undefined for a malformed, unknown or revoked one. The key is
 * looked up by its SHA-256, so no stored value can be compared against a guess character by character;
 * one query reads the key with its principal and tenant, unless the cache holds them. Unknown and
 * revoked keys are not cached: a key made a moment ago works at once.
 */
export async function authenticateKey(
  db: Db,
  raw: string,
  options: AuthenticateOptions = {},
  now = new Date(),
): Promise<Caller | undefined> {
  if (!KEY_PATTERN.test(raw)) return undefined;
  const hash = sha256Hex(raw);
  return lookUpCaller(db, { 'api_keys.key_hash': hash }, hash, options, now);
}

/**
 * The caller behind a connected app's key id (an OAuth access token names it, once verified):
 * the same lookup and cache as a raw key's, so a revoked app is refused at once on every replica.
 */
export async function authenticateKeyId(
  db: Db,
  keyId: string,
  options: AuthenticateOptions = {},
  now = new Date(),
): Promise<Caller | undefined> {
  return lookUpCaller(db, { 'api_keys.id': keyId, 'api_keys.kind': 'oauth' }, `id:${keyId}`, options, now);
}

async function lookUpCaller(
  db: Db,
  where: Record<string, string>,
  cacheKey: string,
  { cache, touch }: AuthenticateOptions,
  now: Date,
): Promise<Caller | undefined> {
  let caller = cache?.get(cacheKey, now.getTime());
  if (!caller) {
    const version = cache?.version ?? 0;
    const apiKey = await ApiKey.query(db).withGraphJoined('[principal, tenant]').where(where).whereNull('api_keys.revoked_at').first();
    const { principal, tenant } = apiKey ?? {};
    if (!apiKey || !principal || !tenant) return undefined;
    delete apiKey.principal;
    delete apiKey.tenant;
    caller = { apiKey, principal, tenant };
    cache?.set(cacheKey, caller, [`key:${apiKey.id}`, `principal:${principal.id}`, `tenant:${tenant.id}`], version, now.getTime());
  }
  touch?.(caller.apiKey, now);
  return caller;
}

/** The principal's own API keys, newest first (revoked ones included, marked by revoked_at). */
export async function keysOfPrincipal(db: Db, principalId: string): Promise<ApiKey[]> {
  return ApiKey.query(db).where({ principal_id: principalId }).orderBy('created_at', 'desc').orderBy('id', 'desc');
}

/** A key made by the principal in the app: API access needs Business+, as for the API itself. */
export async function createOwnKey(db: Db, principal: Principal, label: string, actor: Actor): Promise<CreatedKey> {
  const tenant = (await Tenant.query(db).findById(principal.tenant_id))!;
  authorize({ tenant }, { plan: 'keys' });
  if (!label.trim()) throw errors.invalidRequest(t('errors.accounts.give_key_label'), [{ path: 'label', message: 'required' }]);
  return db.transaction(async (trx) => {
    const created = await createKey(trx, { principalId: principal.id, label: label.slice(0, 200) });
    await recordAudit(trx, {
      tenantId: principal.tenant_id,
      actor,
      action: 'key.created',
      data: { api_key_id: created.apiKey.id, label: created.apiKey.label },
    });
    return created;
  });
}

/**
 * The principal revokes one of their own keys, and with it every mandate it holds, in one
 * transaction; another principal's key is 404.
 */
export async function revokeOwnKey(db: Db, principal: Principal, keyId: string, actor: Actor): Promise<Stopped> {
  const key = await ApiKey.query(db).findById(keyId).where({ principal_id: principal.id });
  if (!key) throw errors.notFound(t('errors.accounts.no_such_api_key_yours'));
  return revokeKeyWithMandates(db, key.id, actor, 'app');
}
