import type { Db } from '../../db/connect';
import type { Config } from '../../lib/config/config';
import type { Logger } from '../../lib/log';
import type { Workflows } from '../workflows';
import type { OutboxWakeUp } from './wake-up';

/** What the outbox relay (relay.ts) and its first attempts (first-attempts.ts) both run on. */
export interface RelayDeps {
  db: Db;
  workflows: Workflows;
  config: Config;
  /** Where each round's timing line goes (debug). */
  log?: Logger;
  /** Cuts the rests between looks short when events commit; without it, each rest is the whole poll. */
  wakeUp?: OutboxWakeUp;
}
