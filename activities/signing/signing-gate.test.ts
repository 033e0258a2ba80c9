import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Apply, SignRequest, type Template } from '../../db/models';
import type { FlagSnapshot } from '../../lib/config/flags';
import { ServiceError } from '../../lib/errors';
import { seedSamples, sentNda } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { mandatedAccount, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { authenticateKey, type Caller } from '../accounts/accounts';
import { agentActor } from '../documents/documents';
import type { Services } from '../services';
import { requestSign, signAsPrincipal } from './signing';

// The L1 and L2 rules called as an MCP tool or the CLI would call them, with no route spec in front:
// the gate inside each rule still refuses a flag that is off, and a plan without API access.
describe('the signing rules authorize through the gate themselves', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    stack = await startStack({ worker: false });
    owner = await createAccount(stack.deps.db, { name: 'Olga Owner' });
    ({ nda } = await seedSamples(stack, owner));
  });
  after(() => stack.close());

  const withFlags = (flags: Partial<FlagSnapshot>): Services => {
    const { config } = stack.deps;
    return { ...stack.deps, config: { ...config, flags: { ...config.flags, values: { ...config.flags.values, ...flags } } } };
  };

  async function agent(level: 'L1' | 'L2', plan: 'business' | 'free' = 'business'): Promise<{ account: Account; caller: Caller }> {
    const { account } = await mandatedAccount(stack, { level, name: 'Gina Gate', label: 'gate agent' });
    if (plan !== 'business') await stack.deps.db('tenants').where({ id: account.tenantId }).update({ plan });
    return { account, caller: (await authenticateKey(stack.deps.db, account.key))! };
  }

  const sentTo = async (account: Account): Promise<string> =>
    (await sentNda(stack, owner, nda, await principalOf(stack, account), { name: 'Gate NDA', other: { name: 'Other' } })).document_id;

  const rejectsWith = (promise: Promise<unknown>, code: string) =>
    assert.rejects(promise, (error: unknown) => error instanceof ServiceError && error.code === code);

  it('L1 (requestSign) answers feature_disabled with l1_signing off, and creates a request with it on', async () => {
    const { account, caller } = await agent('L1');
    const documentId = await sentTo(account);
    let started = 0;
    const start = async () => {
      started += 1;
    };
    const actor = agentActor(caller);
    await rejectsWith(
      requestSign(withFlags({ l1_signing: false }), caller, documentId, 'Please confirm', actor, start),
      'feature_disabled',
    );
    assert.equal(started, 0);
    assert.equal(await SignRequest.query(stack.deps.db).where({ document_id: documentId }).resultSize(), 0);

    const request = await requestSign(withFlags({ l1_signing: true }), caller, documentId, 'Please confirm', actor, start);
    assert.equal(request.status, 'open');
    assert.equal(started, 1);
  });

  it('L2 (signAsPrincipal) answers feature_disabled with l2_signing off, before any apply is recorded', async () => {
    const { account, caller } = await agent('L2');
    const documentId = await sentTo(account);
    await rejectsWith(
      signAsPrincipal(withFlags({ l2_signing: false }), caller, documentId, 'Countersign', agentActor(caller)),
      'feature_disabled',
    );
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: documentId }).resultSize(), 0);
    // With the flag on the gate lets it through: an L1 key is then refused by the mandate check, not the gate.
    const l1 = await agent('L1');
    await rejectsWith(
      signAsPrincipal(withFlags({ l2_signing: true }), l1.caller, await sentTo(l1.account), 'Countersign', agentActor(l1.caller)),
      'confirmation_required',
    );
  });

  it('both answer plan_required to a key of a plan without API access', async () => {
    const { account, caller } = await agent('L2', 'free');
    const documentId = await sentTo(account);
    await rejectsWith(signAsPrincipal(stack.deps, caller, documentId, 'Countersign', agentActor(caller)), 'plan_required');
    await rejectsWith(
      requestSign(stack.deps, caller, documentId, 'Please confirm', agentActor(caller), async () => undefined),
      'plan_required',
    );
  });
});
