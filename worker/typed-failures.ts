import { ApplicationFailure } from '@temporalio/common';
import { isDatabaseUnavailable } from '../db/errors';
import { ServiceError } from '../lib/errors';

// biome-ignore lint/suspicious/noExplicitAny: any activity, whatever its parameters (unknown[] would refuse narrower ones)
type AnyActivity = (...args: any[]) => Promise<unknown>;

/** The failure type of an infrastructure failure that names its dependency (never an error code of the catalogue). */
export const DEPENDENCY_FAILURE = 'dependency_unavailable';
export const DATABASE_FAILURE = 'database_unavailable';
export const BLOB_STORE_FAILURE = 'blob_store_failed';

/** A file system error under the blob store's directory (the file blob store reads and writes there). */
function blobStoreFileError(error: unknown): { code: string; syscall?: string } | undefined {
  const { code, syscall, path } = (error ?? {}) as { code?: unknown; syscall?: unknown; path?: unknown };
  if (typeof code !== 'string' || typeof path !== 'string' || !/[/\\]blobs[/\\]/.test(path)) return undefined;
  return { code, syscall: typeof syscall === 'string' ? syscall : undefined };
}

/**
 * A rule's rejection (ServiceError) reaches Temporal as a non-retryable failure whose type is the
 * error code, so retry policies and workflows can tell it apart. Infrastructure failures stay
 * retryable and say which dependency failed in which activity, so the history explains itself (the
 * database, the blob store, or the dependency a `service_unavailable` names: object store, SMTP,
 * timestamp authority …); any other error is left as it is (its type may drive a retry policy).
 */
export function toFailure(error: unknown, activity = 'the activity'): unknown {
  if (error instanceof ServiceError && error.code !== 'service_unavailable')
    return ApplicationFailure.create({
      message: error.message,
      type: error.code,
      nonRetryable: true,
      details: error.details ? [error.details] : [],
    });
  const cause = error instanceof Error ? error : undefined;
  if (error instanceof ServiceError)
    return ApplicationFailure.create({ message: `${activity}: ${error.message}`, type: DEPENDENCY_FAILURE, cause });
  if (isDatabaseUnavailable(error))
    return ApplicationFailure.create({
      message: `${activity}: the database is unreachable (${(error as Error).message})`,
      type: DATABASE_FAILURE,
      cause,
    });
  const file = blobStoreFileError(error);
  if (file)
    return ApplicationFailure.create({
      message: `${activity}: the blob store failed (${file.syscall ?? 'file'} ${file.code})`,
      type: BLOB_STORE_FAILURE,
      cause,
    });
  return error;
}

/** Every activity of the map, rethrowing its failures typed (see toFailure). */
export function withTypedFailures<T extends Record<string, AnyActivity>>(activities: T): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, activity]) => [
      name,
      async (...args: unknown[]) => {
        try {
          return await activity(...args);
        } catch (error) {
          throw toFailure(error, name);
        }
      },
    ]),
  ) as T;
}
