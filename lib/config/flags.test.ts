import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from './errors';
import { resolveFlags } from './flags';

describe('feature flag resolution', () => {
  it('defaults every flag on outside production', () => {
    const { values, sources } = resolveFlags({}, 'development');
    assert.deepEqual(values, { l1_signing: true, l2_signing: true, agent_contacts: true, agent_offers: true, agent_editor: true });
    assert.ok(Object.values(sources).every((source) => source === 'default'));
  });

  it('defaults l2_signing off in production, and only that flag', () => {
    const { values } = resolveFlags({}, 'production');
    assert.equal(values.l2_signing, false);
    assert.equal(values.l1_signing, true);
    assert.equal(values.agent_offers, true);
  });

  it('takes SVC_FF_<NAME> first, over the legacy alias and the blob', () => {
    const env = { SVC_FF_L2_SIGNING: 'false', SVC_ALLOW_L2: 'true', SVC_FF: '{"l2_signing": true}' };
    const { values, sources } = resolveFlags(env, 'development');
    assert.equal(values.l2_signing, false);
    assert.equal(sources.l2_signing, 'env');
  });

  it('takes the legacy SVC_ALLOW_L2 over the blob and the production default', () => {
    const { values, sources } = resolveFlags({ SVC_ALLOW_L2: '1', SVC_FF: '{"l2_signing": false}' }, 'production');
    assert.equal(values.l2_signing, true);
    assert.equal(sources.l2_signing, 'legacy');
  });

  it('takes the SVC_FF blob over the registry default', () => {
    const { values, sources } = resolveFlags({ SVC_FF: '{"l2_signing": true, "agent_editor": false}' }, 'production');
    assert.equal(values.l2_signing, true);
    assert.equal(values.agent_editor, false);
    assert.equal(sources.agent_editor, 'blob');
  });

  it('turns agent_offers off when agent_contacts is off, whatever its own setting', () => {
    for (const env of [
      { SVC_FF_AGENT_CONTACTS: 'off', SVC_FF_AGENT_OFFERS: 'on' },
      { SVC_FF: '{"agent_contacts": false, "agent_offers": true}' },
    ]) {
      const { values, sources } = resolveFlags(env, 'development');
      assert.equal(values.agent_contacts, false);
      assert.equal(values.agent_offers, false);
      assert.equal(sources.agent_offers, 'requires');
    }
  });

  it('reads true/false, on/off, yes/no and 1/0 in any case, and an empty value as unset', () => {
    for (const [raw, expected] of [
      ['TRUE', true],
      ['Off', false],
      ['yes', true],
      ['no', false],
      ['1', true],
      ['0', false],
    ] as const) {
      assert.equal(resolveFlags({ SVC_FF_AGENT_EDITOR: raw }, 'development').values.agent_editor, expected, raw);
    }
    const empty = resolveFlags({ SVC_FF_L2_SIGNING: '', SVC_ALLOW_L2: 'false' }, 'development');
    assert.equal(empty.values.l2_signing, false);
    assert.equal(empty.sources.l2_signing, 'legacy');
  });

  it('refuses values it cannot read, naming the variable', () => {
    assert.throws(
      () => resolveFlags({ SVC_FF_L1_SIGNING: 'maybe' }, 'development'),
      (error: Error) => error instanceof ConfigError && error.message.includes('SVC_FF_L1_SIGNING'),
    );
    assert.throws(() => resolveFlags({ SVC_ALLOW_L2: 'sometimes' }, 'development'), /SVC_ALLOW_L2/);
    assert.throws(() => resolveFlags({ SVC_FF: '{not json' }, 'development'), /SVC_FF must be a JSON object/);
    assert.throws(() => resolveFlags({ SVC_FF: '[true]' }, 'development'), /SVC_FF must be a JSON object/);
    assert.throws(() => resolveFlags({ SVC_FF: '{"l3_signing": true}' }, 'development'), /unknown flag "l3_signing"/);
    assert.throws(() => resolveFlags({ SVC_FF: '{"l2_signing": "yes"}' }, 'development'), /SVC_FF.l2_signing must be true or false/);
  });
});
