import { proxyActivities } from '@temporalio/workflow';
import type { HealthActivities } from '../../activities/health/health';
import type { PingInput, PingResult } from './shared';

const { pingDatabase } = proxyActivities<HealthActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3, initialInterval: '200 milliseconds' },
});

/** Round trip through the worker and its database: used by tests and by operators to check a deployment. */
export async function ping(input: PingInput): Promise<PingResult> {
  const databaseTime = await pingDatabase();
  return { message: input.message, database_time: databaseTime };
}
