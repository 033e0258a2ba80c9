import { defineQuery, patched, setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { SvcDeadline, SvcKind, SvcState } from './search-attributes';

/** What a long-lived workflow answers to its `status` query: what it waits for, since when, until when. */
export interface WorkStatus {
  /** The resource's state in SPEC's words. */
  state: string;
  /** What the workflow waits for now, in words. */
  waiting_for: string;
  /** Since when it waits for that (ISO 8601). */
  since: string;
  /** The next expiry (ISO 8601), or null. */
  deadline: string | null;
}

export const workStatusQuery = defineQuery<WorkStatus>('status');

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/**
 * What an operator sees of a running workflow: its `SvcState` and `SvcDeadline` search attributes
 * (upserted when they change), the UI's "current details" line and the `status` query. Upserts only
 * in executions started with the service's search attributes (so a cluster where they are not
 * registered never fails a workflow task over them) and after the `operator-view` patch (executions
 * from before it replay without upserts).
 */
export class OperatorView {
  private current: WorkStatus;
  private readonly upserts: boolean;

  constructor(state: string, waitingFor: string, deadlineMs?: number | null) {
    this.upserts = patched('operator-view') && workflowInfo().typedSearchAttributes.get(SvcKind) !== undefined;
    this.current = { state, waiting_for: waitingFor, since: new Date().toISOString(), deadline: iso(deadlineMs) };
    this.show();
  }

  /** Answers the `status` query with `status()` (workflows with a status query of their own call `status()` in it). */
  answerStatusQuery(): this {
    setHandler(workStatusQuery, () => this.status());
    return this;
  }

  status(): WorkStatus {
    return { ...this.current };
  }

  /** The work moved on: a new state, a new wait, a new deadline (undefined keeps the one there is). */
  set(state: string, waitingFor: string, deadlineMs?: number | null): void {
    const deadline = deadlineMs === undefined ? this.current.deadline : iso(deadlineMs);
    const changed: Parameters<typeof upsertSearchAttributes>[0] = [];
    if (state !== this.current.state) changed.push({ key: SvcState, value: state });
    if (deadline !== this.current.deadline) changed.push({ key: SvcDeadline, value: deadline === null ? null : new Date(deadline) });
    if (this.upserts && changed.length > 0) upsertSearchAttributes(changed);
    const since = waitingFor === this.current.waiting_for && state === this.current.state ? this.current.since : new Date().toISOString();
    this.current = { state, waiting_for: waitingFor, since, deadline };
    this.show();
  }

  private show(): void {
    const { state, waiting_for, since, deadline } = this.current;
    setCurrentDetails(`${state}: ${waiting_for} since ${since}${deadline ? `; deadline ${deadline}` : ''}`);
  }
}

/** A duration in words for summaries: "90 s", "15 min", "24 h", "2 d". */
export function inWords(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 2 * 86_400_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} d`;
}
