import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mandateStatus } from '../../activities/mandates/mandates';
import { Mandate, type MandateStatus } from './mandate';

const now = new Date('2026-11-26T12:00:00Z');
function mandate(status: MandateStatus, expiresAt: Date | null): Mandate {
  return Object.assign(new Mandate(), { status, expires_at: expiresAt });
}

describe('a mandate’s state: one rule (statusAt) behind isInForce, the pages and the API', () => {
  it('is in force only while active and before its expiry; past it, it reads expired everywhere', () => {
    const cases: Array<[Mandate, string, boolean]> = [
      [mandate('active', null), 'active', true],
      [mandate('active', new Date(now.getTime() + 1)), 'active', true],
      [mandate('active', now), 'expired', false],
      [mandate('active', new Date(now.getTime() - 1)), 'expired', false],
      [mandate('pending', null), 'pending', false],
      [mandate('revoked', new Date(now.getTime() + 86_400_000)), 'revoked', false],
      [mandate('revoked', new Date(now.getTime() - 86_400_000)), 'revoked', false],
    ];
    for (const [one, state, inForce] of cases) {
      assert.equal(one.statusAt(now), state);
      assert.equal(mandateStatus(one, now), state, 'the presenters’ word is the model’s');
      assert.equal(one.isInForce(now), inForce, `${state} ${one.expires_at?.toISOString() ?? 'no expiry'}`);
    }
  });
});
