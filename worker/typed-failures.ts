import { ApplicationFailure } from '@temporalio/common';
import { ServiceError } from '../lib/errors';

// biome-ignore lint/suspicious/noExplicitAny: any activity, whatever its parameters (unknown[] would refuse narrower ones)
type AnyActivity = (...args: any[]) => Promise<unknown>;

/**
 * A rule's rejection (ServiceError) reaches Temporal as a non-retryable failure whose type is the
 * error code, so retry policies and workflows can tell it apart; only other (infrastructure)
 * failures are retried, `service_unavailable` among them (a dependency that is down comes back).
 */
export function toFailure(error: unknown): unknown {
  if (!(error instanceof ServiceError) || error.code === 'service_unavailable') return error;
  return ApplicationFailure.create({
    message: error.message,
    type: error.code,
    nonRetryable: true,
    details: error.details ? [error.details] : [],
  });
}

/** Every activity of the map, rethrowing rejections as typed non-retryable failures (see toFailure). */
export function withTypedFailures<T extends Record<string, AnyActivity>>(activities: T): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, activity]) => [
      name,
      async (...args: unknown[]) => {
        try {
          return await activity(...args);
        } catch (error) {
          throw toFailure(error);
        }
      },
    ]),
  ) as T;
}
