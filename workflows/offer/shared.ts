export const OFFER_WORKFLOW = 'offerWorkflow';

export function offerWorkflowId(offerId: string): string {
  return `offer-${offerId}`;
}

/** Durations are inputs (an offer lives 7 days by default, seconds in tests). */
export interface OfferWorkflowInput {
  offerId: string;
  /** The offer's expires_at, in epoch milliseconds. */
  expiresAtMs: number;
  /** After expires_at, how often an offer kept open by work in flight (an apply, a confirmation) is looked at again. */
  recheckMs: number;
  activityTimeoutMs: number;
  heartbeatMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
  activityAttempts: number;
}

export { wakeSignal } from '../wake';
