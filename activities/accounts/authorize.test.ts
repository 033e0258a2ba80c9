import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../db/models';
import { FLAG_NAMES, type FlagSnapshot } from '../../lib/config/flags';
import { ServiceError } from '../../lib/errors';
import { authorize, type GateCaller, permits, refusalOf } from './authorize';

const ALL_ON = Object.fromEntries(FLAG_NAMES.map((name) => [name, true])) as FlagSnapshot;
const key = (plan: Plan, scopes: string[] = ['documents:read']): GateCaller => ({ tenant: { plan }, apiKey: { scopes } });
const principal = (plan: Plan): GateCaller => ({ tenant: { plan } });

function refused(run: () => void, code: string, message: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, code);
    assert.equal(error.status, 403);
    assert.equal(error.message, message);
    return true;
  });
}

describe('authorize: the one gate of every surface', () => {
  it('lets a Business+ key with the scope through while the flag is on', () => {
    for (const plan of ['business', 'enterprise'] as const) {
      assert.doesNotThrow(() => authorize(key(plan), { plan: 'api', scope: 'documents:read', flag: 'l1_signing' }, ALL_ON));
    }
    assert.doesNotThrow(() => authorize(principal('business'), { plan: 'keys' }));
    assert.doesNotThrow(() => authorize(null, {}, ALL_ON), 'an open operation with no requirement');
  });

  it('refuses a plan below Business with plan_required, worded for the surface and the caller', () => {
    for (const plan of ['free', 'pro'] as const) {
      refused(
        () => authorize(key(plan), { plan: 'api' }, ALL_ON),
        'plan_required',
        `API access needs the Business plan or higher; this account is on ${plan}.`,
      );
      refused(
        () => authorize(principal(plan), { plan: 'keys' }),
        'plan_required',
        `API keys need the Business plan or higher; your account is on ${plan}.`,
      );
      refused(
        () => authorize(principal(plan), { plan: 'signing' }),
        'plan_required',
        `Signing by API needs the Business plan or higher; your account is on ${plan}.`,
      );
    }
  });

  it('refuses a key without the scope with insufficient_scope, and a principal with no key at all', () => {
    refused(
      () => authorize(key('business', ['documents:read']), { plan: 'api', scope: 'documents:sign' }, ALL_ON),
      'insufficient_scope',
      'This key lacks the scope documents:sign.',
    );
    refused(
      () => authorize(principal('business'), { scope: 'documents:sign' }),
      'insufficient_scope',
      'This needs an API key with the scope documents:sign.',
    );
  });

  it('refuses an operation whose flag is off with feature_disabled, for a key, a principal or nobody', () => {
    for (const name of FLAG_NAMES) {
      const off = { ...ALL_ON, [name]: false };
      const words =
        name === 'l1_signing'
          ? 'L1 signing is disabled for this deployment.'
          : name === 'l2_signing'
            ? 'L2 signing is disabled for this deployment.'
            : `The feature ${name} is disabled for this deployment.`;
      for (const caller of [key('business'), principal('business'), null]) {
        refused(() => authorize(caller, { flag: name }, off), 'feature_disabled', words);
      }
      assert.doesNotThrow(() => authorize(key('business'), { flag: name }, ALL_ON));
    }
  });

  it('checks plan, then scope, then flag: the order REST always answered in', () => {
    const off = { ...ALL_ON, l2_signing: false };
    const needs = { plan: 'api', scope: 'documents:sign', flag: 'l2_signing' } as const;
    assert.equal(refusalOf(key('free', []), needs, off)?.code, 'plan_required');
    assert.equal(refusalOf(key('business', []), needs, off)?.code, 'insufficient_scope');
    assert.equal(refusalOf(key('business', ['documents:sign']), needs, off)?.code, 'feature_disabled');
    assert.equal(refusalOf(key('business', ['documents:sign']), needs, ALL_ON), undefined);
  });

  it('answers without throwing for pages that only show or hide what it guards', () => {
    assert.equal(permits(principal('free'), { plan: 'keys' }), false);
    assert.equal(permits(principal('enterprise'), { plan: 'keys' }), true);
  });

  it('needs a caller for a plan or scope, and the flag snapshot for a flag', () => {
    assert.equal(refusalOf(null, { plan: 'api' })?.code, 'unauthorized');
    assert.throws(() => authorize(key('business'), { flag: 'agent_editor' }), /flag snapshot/);
  });
});
