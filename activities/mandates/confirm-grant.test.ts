import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mandateDeps } from '../../api/app/pages/common';
import { ApiKey, Mandate } from '../../db/models';
import { ServiceError } from '../../lib/errors';
import { latestMail } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { SIGN_SCOPE } from '../accounts/accounts';
import { confirmGrant, startGrant } from './mandates';

let stack: Stack;

before(async () => {
  stack = await startStack({ worker: false });
});
after(() => stack?.close());

describe('confirmGrant', () => {
  it('activates only a mandate still pending: a revoke that commits while it waits for the row wins', async () => {
    const account = await createAccount(stack.deps.db);
    const principal = await principalOf(stack, account);
    const deps = mandateDeps(stack.deps);
    const actor = { type: 'principal' as const, id: principal.id, ip: '127.0.0.1' };
    const pending = await startGrant(
      deps,
      principal,
      { apiKeyId: account.keyId, name: 'Raced', level: 'L1', mode: 'both', consentAccepted: true },
      actor,
    );
    const code = /\b(\d{10}|\d{6})\b/.exec((await latestMail(stack, principal.email, 'mandate-code'))!.text)![1];

    const trx = await stack.deps.db.transaction();
    await trx('mandates').where({ id: pending.id }).forUpdate().first();
    const confirming = confirmGrant(deps, principal, pending.id, code, actor).then(
      () => undefined,
      (error: unknown) => error,
    );
    // Long enough for the code check to pass and the grant to reach its write, which waits for the row.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await trx('mandates').where({ id: pending.id }).update({ status: 'revoked', revoked_at: new Date() });
    await trx.commit();

    const refused = await confirming;
    assert.ok(refused instanceof ServiceError, `refused, not ${String(refused)}`);
    assert.equal(refused.code, 'invalid_state');
    assert.equal(refused.status, 409);
    assert.equal((await Mandate.query(stack.deps.db).findById(pending.id))!.status, 'revoked');
    assert.ok(!(await ApiKey.query(stack.deps.db).findById(account.keyId))!.scopes.includes(SIGN_SCOPE), 'the key has no documents:sign');
  });
});
