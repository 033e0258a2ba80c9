import { Context } from '@temporalio/activity';

/**
 * Says what the running activity does now, as its heartbeat's detail (an operator reads it in the
 * pending activity). A local activity (an apply, run inside its workflow task) cannot heartbeat: the
 * worker's core refuses it, so it says nothing; the workflow's `status` query names its apply instead.
 */
export function heartbeatDoing(doing: string): void {
  const context = Context.current();
  if (!context.info.isLocal) context.heartbeat({ doing });
}
