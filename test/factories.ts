import { createKey, createPrincipal } from '../activities/accounts/accounts';
import type { Db } from '../db/connect';
import type { Plan } from '../db/models';
import { randomBase62 } from '../lib/ids';

export interface Account {
  tenantId: string;
  principalId: string;
  email: string;
  keyId: string;
  /** The raw API key. */
  key: string;
}

/** A fresh tenant with one principal and one API key. */
export async function createAccount(db: Db, options: { plan?: Plan; name?: string; label?: string } = {}): Promise<Account> {
  const email = `p-${randomBase62(10).toLowerCase()}@example.test`;
  const { tenant, principal } = await createPrincipal(db, { email, name: options.name ?? 'Test Principal', plan: options.plan });
  const { apiKey, secret } = await createKey(db, { principalId: principal.id, label: options.label ?? 'test agent' });
  return { tenantId: tenant.id, principalId: principal.id, email, keyId: apiKey.id, key: secret };
}
