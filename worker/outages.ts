import { Context } from '@temporalio/activity';
import { heartbeatDoing } from '../activities/progress';
import type { Db } from '../db/connect';
import { isDatabaseUnavailable } from '../db/errors';

// biome-ignore lint/suspicious/noExplicitAny: any activity, whatever its parameters (unknown[] would refuse narrower ones)
type AnyActivity = (...args: any[]) => Promise<unknown>;

/** How often an activity that lost the database looks whether it answers again. */
const PING_MS = 500;
/** What the attempt keeps of its start-to-close timeout, to fail in once it has waited. */
const MARGIN_MS = 5000;

/**
 * Waits, heartbeating, until the database answers again, for at most what is left of the attempt's
 * start-to-close timeout (less a margin); a cancelled activity stops waiting.
 */
async function untilDatabaseAnswers(db: Db, attemptStarted: number): Promise<void> {
  const context = Context.current();
  const deadline = attemptStarted + context.info.startToCloseTimeoutMs - MARGIN_MS;
  while (Date.now() < deadline) {
    heartbeatDoing('waiting for the database to answer again (it was unreachable)');
    try {
      await context.sleep(PING_MS);
    } catch {
      return;
    }
    try {
      await db.raw('select 1');
      return;
    } catch {
      // still down
    }
  }
}

/**
 * Every activity of the map, so that one failing because the database cannot be reached waits in its
 * attempt until the database is back and only then fails: the retry that follows finds it back. A
 * database restart then costs an activity one attempt, not its whole retry budget (an apply has 5,
 * at the retry intervals a 15 s outage would otherwise end it rejected as sign_failed); an outage
 * longer than every attempt's timeout still ends it, so every retry keeps its budget.
 */
export function waitingOutDatabaseOutages<T extends Record<string, AnyActivity>>(activities: T, db: Db): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, activity]) => [
      name,
      async (...args: unknown[]) => {
        const started = Date.now();
        try {
          return await activity(...args);
        } catch (error) {
          if (isDatabaseUnavailable(error)) await untilDatabaseAnswers(db, started);
          throw error;
        }
      },
    ]),
  ) as T;
}
