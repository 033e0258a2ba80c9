import assert from 'node:assert/strict';
import type { Account } from './factories';
import { call } from './http';
import type { Stack } from './stack';

/** The token of an accept_url (`…/agent-contacts?accept=<token>`). */
export function acceptToken(acceptUrl: string): string {
  const token = new URL(acceptUrl).searchParams.get('accept');
  assert.ok(token, `an accept token in ${acceptUrl}`);
  return token;
}

/**
 * An active contact between two accounts' principals, made as their agents make it: `from` invites
 * `to` by e-mail, `to` accepts by token. Answers each side's contact id.
 */
export async function connect(
  stack: Stack,
  from: Account,
  to: Account,
  options: { name?: string; fromInbox?: string; toInbox?: string } = {},
): Promise<{ fromContact: string; toContact: string; pairId: string; fromSecret?: string; toSecret?: string }> {
  const invited = await call(stack.url, 'POST', '/v1/contacts', {
    key: from.key,
    body: { email: to.email, name: options.name ?? 'Counterparty', ...(options.fromInbox ? { inbox_url: options.fromInbox } : {}) },
  });
  assert.equal(invited.status, 201, invited.text);
  const accepted = await call(stack.url, 'POST', '/v1/contacts/accept', {
    key: to.key,
    body: { token: acceptToken(invited.body.accept_url), ...(options.toInbox ? { inbox_url: options.toInbox } : {}) },
  });
  assert.equal(accepted.status, 200, accepted.text);
  assert.equal(accepted.body.status, 'active');
  return {
    fromContact: invited.body.contact_id,
    toContact: accepted.body.contact_id,
    pairId: invited.body.pair_id,
    fromSecret: invited.body.inbox_secret,
    toSecret: accepted.body.inbox_secret,
  };
}
