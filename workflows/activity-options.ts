import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/** The activity durations a workflow's input carries, from the deployment's settings (workflows/client.ts). */
export interface ActivityDurations {
  activityTimeoutMs: number;
  /** Absent for workflows whose activities do not heartbeat. */
  heartbeatMs?: number;
  retryInitialMs: number;
  retryMaxMs: number;
  activityAttempts: number;
}

/**
 * The options of a workflow's activities from its input: the timeout, the heartbeat, and exponential
 * backoff within the attempts budget (`maximumAttempts` for a proxy with a budget of its own).
 */
export function activityOptions(input: ActivityDurations, budget: { maximumAttempts?: number } = {}): ActivityOptions {
  return {
    startToCloseTimeout: input.activityTimeoutMs,
    ...(input.heartbeatMs === undefined ? {} : { heartbeatTimeout: input.heartbeatMs }),
    retry: {
      initialInterval: input.retryInitialMs,
      maximumInterval: input.retryMaxMs,
      backoffCoefficient: 2,
      maximumAttempts: budget.maximumAttempts ?? input.activityAttempts,
    },
  };
}

/**
 * The same budget for a local activity, which runs inside the workflow task that scheduled it and
 * cannot heartbeat: a worker that dies is noticed by the workflow task's timeout instead.
 */
export function localActivityOptions(input: ActivityDurations, budget: { maximumAttempts?: number } = {}): LocalActivityOptions {
  const { heartbeatTimeout: _none, ...options } = activityOptions(input, budget);
  return options;
}
