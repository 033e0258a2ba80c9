import type { Knex } from 'knex';
import { onCommit } from '../db/after-commit';
import { WorkflowStartRow } from '../db/models';
import type { Workflows } from './workflows';

type Args<K extends keyof Workflows> = Workflows[K] extends (...args: infer A) => Promise<void> ? A : never;

/**
 * A start of the `Workflows` port, as recorded with the change that needs it: the port call's name and
 * arguments (only the fields the port reads, so a model's other columns never reach the row).
 */
export type WorkflowStart =
  | { kind: 'startDocument'; args: Args<'startDocument'> }
  | { kind: 'startSignRequest'; args: Args<'startSignRequest'> }
  | { kind: 'startOffer'; args: Args<'startOffer'> }
  | { kind: 'startMail'; args: Args<'startMail'> }
  | { kind: 'startTransfer'; args: Args<'startTransfer'> }
  | { kind: 'startBulk'; args: Args<'startBulk'> };

/** Whom a start is made by: the port, and where a start Temporal could not take is logged (its own log). */
export type StartDeps = { workflows: Workflows };

const pick = <T extends object, K extends keyof T>(row: T, keys: K[]): Pick<T, K> =>
  Object.fromEntries(keys.map((key) => [key, row[key]])) as Pick<T, K>;

/** The starts, built from the rows the rules have at hand. */
export const starts = {
  document: (
    document: Args<'startDocument'>[0],
    signers: number,
    waits?: Args<'startDocument'>[2],
    lane?: Args<'startDocument'>[3],
  ): WorkflowStart => ({
    kind: 'startDocument',
    args: [pick(document, ['id', 'tenant_id', 'owner_principal_id', 'name']), signers, waits, lane],
  }),
  signRequest: (request: Args<'startSignRequest'>[0]): WorkflowStart => ({
    kind: 'startSignRequest',
    args: [pick(request, ['id', 'tenant_id', 'principal_id', 'document_id', 'expires_at'])],
  }),
  offer: (offer: Args<'startOffer'>[0]): WorkflowStart => ({
    kind: 'startOffer',
    args: [pick(offer, ['id', 'from_tenant_id', 'to_tenant_id', 'from_principal_id', 'to_principal_id', 'document_id', 'expires_at'])],
  }),
  mail: (mail: Args<'startMail'>[0], lane?: Args<'startMail'>[1]): WorkflowStart => ({
    kind: 'startMail',
    args: [pick(mail, ['id', 'tenant_id', 'document_id', 'purpose']), lane],
  }),
  transfer: (transfer: Args<'startTransfer'>[0]): WorkflowStart => ({
    kind: 'startTransfer',
    args: [pick(transfer, ['id', 'tenant_id', 'principal_id', 'mode', 'document_id'])],
  }),
  bulk: (bulk: Args<'startBulk'>[0]): WorkflowStart => ({
    kind: 'startBulk',
    args: [pick(bulk, ['id', 'tenant_id', 'principal_id', 'name', 'total'])],
  }),
};

/** The workflow's business key (the row's id): one row however often the same start is recorded. */
function keyOf(start: WorkflowStart): string {
  return `${start.kind}:${start.args[0].id}`;
}

function tenantOf(start: WorkflowStart): string | null {
  const [row] = start.args;
  return 'tenant_id' in row ? (row.tenant_id ?? null) : row.from_tenant_id;
}

/** Dates as `{ $date: iso }` in the row, so they come back as Dates (an offer's expires_at …), not strings. */
export function recordedArgs(args: WorkflowStart['args']): unknown {
  return JSON.parse(
    JSON.stringify(args, function (this: Record<string, unknown>, key, value) {
      const raw = this[key];
      return raw instanceof Date ? { $date: raw.toISOString() } : value;
    }),
  );
}

function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 1 && entries[0]![0] === '$date') return new Date(entries[0]![1] as string);
    return Object.fromEntries(entries.map(([key, inner]) => [key, revive(inner)]));
  }
  return value;
}

/** The start a row records, its arguments as the port takes them (nulls for what was left out). */
export function startOf(row: Pick<WorkflowStartRow, 'kind' | 'args'>): WorkflowStart {
  const args = (revive(row.args) as unknown[]).map((arg) => (arg === null ? undefined : arg));
  return { kind: row.kind, args } as WorkflowStart;
}

/** How long a start is its recording request's to make before the sweep may: past SVC_TEMPORAL_CALL_TIMEOUT_MS's 10 s ceiling. */
const REQUEST_MS = 15_000;

/**
 * Records `start` in `trx`, with the change that needs the workflow; once the transaction committed it
 * is made (recordedStarts below) before the transaction's promise resolves, so the workflow never
 * starts before its rows are visible, and a start Temporal cannot take then is left to the sweep.
 */
export async function startAfterCommit(deps: StartDeps, trx: Knex.Transaction, start: WorkflowStart): Promise<void> {
  const id = keyOf(start);
  await WorkflowStartRow.query(trx)
    .insert({
      id,
      kind: start.kind,
      tenant_id: tenantOf(start),
      args: recordedArgs(start.args),
      next_attempt_at: new Date(Date.now() + REQUEST_MS),
    })
    .onConflict('id')
    .ignore();
  onCommit(trx, async (db) => void (await makeStarts(deps, db, [id])));
}

/** The port call a start is (starts join a workflow already running or made: a repeat is done, not an error). */
async function make(workflows: Workflows, start: WorkflowStart): Promise<void> {
  try {
    await (workflows[start.kind] as (...args: unknown[]) => Promise<void>)(...start.args);
  } catch (error) {
    if ((error as Error)?.name !== 'WorkflowExecutionAlreadyStartedError') throw error;
  }
}

/** Back-off of a start Temporal did not take: 2 s doubling to 30 s (an outage's starts are made soon after it ends). */
export function retryDelayMs(attempts: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.min(attempts, 5));
}

/**
 * Makes the recorded starts `ids` that are still there (a start recorded in a savepoint that rolled
 * back is not): each deleted once Temporal took it; one it did not take stays for the sweep, its next
 * attempt after a back-off, and is logged at warn. Never throws for a start: the change that recorded
 * it committed and stands.
 */
export async function makeStarts(deps: StartDeps, db: Knex, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await WorkflowStartRow.query(db).whereIn('id', ids);
  let made = 0;
  await Promise.all(
    rows.map(async (row) => {
      try {
        await make(deps.workflows, startOf(row));
        await WorkflowStartRow.query(db).deleteById(row.id);
        made += 1;
      } catch (error) {
        const attempts = row.attempts + 1;
        await WorkflowStartRow.query(db)
          .findById(row.id)
          .patch({ attempts, next_attempt_at: new Date(Date.now() + retryDelayMs(attempts)) });
        deps.workflows.log?.warn('workflow start deferred to the sweep', {
          start: row.id,
          attempts,
          error: (error as Error)?.message ?? String(error),
        });
      }
    }),
  );
  return made;
}

/**
 * The sweep (run by the outbox relay, activities/webhooks/relay.ts): makes up to `limit` recorded starts
 * whose time came (their request could not make them, or ended before it did). Claimed in a short
 * transaction that moves their next attempt on (`skip locked`: two relays share the rows), then made
 * outside it. Returns how many were made.
 */
export async function sweepStarts(deps: StartDeps & { db: Knex }, limit: number): Promise<number> {
  const ids = await deps.db.transaction(async (trx) => {
    const due = await WorkflowStartRow.query(trx)
      .select('id')
      .where('next_attempt_at', '<=', new Date())
      .orderBy('next_attempt_at')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    if (due.length === 0) return [];
    const claimed = due.map((row) => row.id);
    await WorkflowStartRow.query(trx)
      .whereIn('id', claimed)
      .patch({ next_attempt_at: new Date(Date.now() + REQUEST_MS) });
    return claimed;
  });
  return makeStarts(deps, deps.db, ids);
}
