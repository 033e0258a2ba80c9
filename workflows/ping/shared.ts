export const PING_WORKFLOW = 'ping';

export interface PingInput {
  message: string;
}

export interface PingResult {
  message: string;
  /** The database's clock, read by an activity on the worker. */
  database_time: string;
}

export function pingWorkflowId(id: string): string {
  return `ping-${id}`;
}
