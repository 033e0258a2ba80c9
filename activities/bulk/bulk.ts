import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { ApiKey, type BulkItemInput, BulkSend, BulkSendItem, type Document, Tenant } from '../../db/models';
import type { Config, Faults } from '../../lib/config/config';
import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId } from '../../lib/ids';
import type { Logger } from '../../lib/log';
import type { Caller } from '../accounts/accounts';
import { agentActor, createDocument, type DocumentDeps } from '../documents/documents';
import { prefilledWidgets } from '../documents/prefill';
import { findTemplate } from '../templates/templates';
import { startAfterCommit, starts } from '../workflow-starts';
import type { Workflows } from '../workflows';

/** The most items one bulk send takes (documented in docs/api.md); more is refused as a whole (400). */
export const BULK_MAX_ITEMS = 500;

export interface BulkInput {
  templateId: string;
  name: string;
  send: boolean;
  items: BulkItemInput[];
}

const INSERT_CHUNK = 100;

/** The wait a bulk send refused for the tenant's bound suggests (Retry-After): a bulk's items take at least seconds. */
export const BULK_RETRY_AFTER_S = 30;

/**
 * One tenant's fair share of bulk work: at most `running` of its bulk sends at once (SVC_BULK_TENANT_RUNNING),
 * counted under a lock of its tenant row so two posts at once cannot both take the last place.
 */
async function claimBulkPlace(trx: Knex.Transaction, tenantId: string, running: number): Promise<void> {
  await Tenant.query(trx).findById(tenantId).forUpdate();
  const [{ count }] = (await BulkSend.query(trx)
    .where({ tenant_id: tenantId, status: 'running' })
    .count('* as count')) as unknown as Array<{
    count: string | number;
  }>;
  if (Number(count) < running) return;
  throw errors.rateLimited(
    t('errors.bulk.too_many_running', { running }),
    [{ path: 'bulk_sends_running', message: `at most ${running}` }],
    { 'Retry-After': String(BULK_RETRY_AFTER_S) },
  );
}

/**
 * Records a bulk send and its items and the start of its workflow in the same transaction, so a bulk
 * is never recorded without its workflow (made after the commit, or by the sweep when Temporal cannot
 * take it then). The template must be
 * the account's (404 otherwise); everything per item is checked when its document is made. Past the
 * tenant's bound of running bulk sends it is refused (429 `rate_limited`, Retry-After).
 */
export async function startBulk(
  deps: { db: Db; workflows: Workflows; config: Pick<Config, 'bulkTenantRunning'> },
  caller: Caller,
  input: BulkInput,
): Promise<BulkSend> {
  const template = await findTemplate(deps.db, caller.tenant.id, input.templateId);
  // A value that does not suit its field refuses the whole request, as a malformed item does.
  for (const [position, item] of input.items.entries()) prefilledWidgets(template.widgets, item.values, `items.${position}.values`);
  return deps.db.transaction(async (trx) => {
    await claimBulkPlace(trx, caller.tenant.id, deps.config.bulkTenantRunning);
    const bulk = await BulkSend.query(trx).insertAndFetch({
      id: newId('blk'),
      tenant_id: caller.tenant.id,
      principal_id: caller.principal.id,
      api_key_id: caller.apiKey.id,
      template_id: input.templateId,
      name: input.name.trim(),
      send: input.send,
      total: input.items.length,
      status: 'running',
    });
    const rows = input.items.map((item, position) => ({ bulk_id: bulk.id, position, input: item, status: 'pending' as const }));
    for (let at = 0; at < rows.length; at += INSERT_CHUNK) await BulkSendItem.query(trx).insert(rows.slice(at, at + INSERT_CHUNK));
    await startAfterCommit(deps, trx, starts.bulk(bulk));
    return bulk;
  });
}

export interface BulkCounts {
  created: number;
  failed: number;
  pending: number;
}

export interface BulkView {
  bulk: BulkSend;
  counts: BulkCounts;
  items: BulkSendItem[];
  next_cursor: string | null;
}

/** The item after which a page starts, as an opaque cursor. */
const encodeCursor = (position: number) => Buffer.from(JSON.stringify({ p: position })).toString('base64url');

function decodeCursor(cursor: string): number {
  try {
    const { p } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { p?: unknown };
    if (typeof p === 'number' && Number.isInteger(p) && p >= 0 && p < BULK_MAX_ITEMS) return p;
  } catch {
    // fall through
  }
  throw errors.invalidRequest(t('errors.paging.unknown_cursor'), [{ path: 'query.cursor', message: 'invalid cursor' }]);
}

/** A bulk send of the caller's tenant with its counts and a page of its items in order; 404 for any other id. */
export async function readBulk(db: Db, caller: Caller, id: string, options: { limit: number; cursor?: string }): Promise<BulkView> {
  const after = options.cursor === undefined ? -1 : decodeCursor(options.cursor);
  const bulk = await BulkSend.query(db).findById(id).where({ tenant_id: caller.tenant.id });
  if (!bulk) throw errors.notFound(t('errors.bulk.no_such_bulk_send'));
  const grouped = (await BulkSendItem.query(db)
    .where({ bulk_id: id })
    .groupBy('status')
    .select('status')
    .count('* as count')) as unknown as Array<{ status: keyof BulkCounts; count: string | number }>;
  const counts: BulkCounts = { created: 0, failed: 0, pending: 0 };
  for (const row of grouped) counts[row.status] = Number(row.count);
  const rows = await BulkSendItem.query(db)
    .where({ bulk_id: id })
    .where('position', '>', after)
    .orderBy('position')
    .limit(options.limit + 1);
  const items = rows.slice(0, options.limit);
  return { bulk, counts, items, next_cursor: rows.length > options.limit ? encodeCursor(items[items.length - 1].position) : null };
}

/** What making a bulk item needs: the document rules' dependencies and the workflows that send. */
export type BulkDeps = DocumentDeps & { workflows: Workflows; faults?: Faults; log?: Logger };

/** Raised inside an item's document transaction when another attempt already settled the item: undoes this one. */
class AlreadySettled extends Error {}

/** The key that started the bulk, as the caller its documents are made by; undefined once it was revoked. */
async function callerOfBulk(db: Db, bulk: BulkSend): Promise<Caller | undefined> {
  const apiKey = await ApiKey.query(db).withGraphJoined('[principal, tenant]').findById(bulk.api_key_id).whereNull('api_keys.revoked_at');
  const { principal, tenant } = apiKey ?? {};
  if (!apiKey || !principal || !tenant) return undefined;
  delete apiKey.principal;
  delete apiKey.tenant;
  return { apiKey, principal, tenant };
}

/** A still pending item ends refused with this error (an item settled already stays as it is). */
export async function failItem(db: Db | Knex.Transaction, bulkId: string, position: number, error: ServiceError): Promise<void> {
  await BulkSendItem.query(db)
    .where({ bulk_id: bulkId, position, status: 'pending' })
    .patch({ status: 'failed', error_code: error.code, error_message: error.message, finished_at: new Date() });
}

/**
 * Makes one item's document (and sends it, for a bulk with `send`) through the same rule as POST
 * /v1/documents, so every check, limit and event of a single document holds. The item is marked
 * `created` with its document id in the document's own transaction, under the item's row lock: an
 * attempt that finds the item settled undoes its document, so each item makes one document at most
 * whatever retried it. A refusal of the rule (signers that do not fit the roles …) is the item's
 * result; anything else is thrown for the activity to retry.
 */
export async function makeBulkItem(deps: BulkDeps, bulkId: string, position: number): Promise<BulkSendItem['status']> {
  const bulk = await BulkSend.query(deps.db).findById(bulkId);
  const item = await BulkSendItem.query(deps.db).findById([bulkId, position]);
  if (!bulk || !item) throw new Error(`bulk item ${bulkId}/${position} does not exist`);
  if (item.status !== 'pending') return item.status;
  await BulkSendItem.query(deps.db).findById([bulkId, position]).where({ status: 'pending' }).patch({ started_at: new Date() });
  const caller = await callerOfBulk(deps.db, bulk);
  if (!caller) {
    await failItem(deps.db, bulkId, position, errors.unauthorized(t('errors.bulk.key_revoked')));
    return 'failed';
  }
  const made = async (trx: Knex.Transaction, document: Document) => {
    const locked = await BulkSendItem.query(trx).findById([bulkId, position]).forUpdate();
    if (locked?.status !== 'pending') throw new AlreadySettled();
    await locked.$query(trx).patch({ status: 'created', document_id: document.id, finished_at: new Date() });
  };
  // Its invitations go out on the bulk lane: 2,400 of them do not hold up another tenant's mail.
  const start = (trx: Knex.Transaction, document: Document, signers: number) =>
    startAfterCommit(deps, trx, starts.document(document, signers, undefined, 'bulk'));
  try {
    await createDocument(
      deps,
      caller,
      {
        source: { templateId: bulk.template_id },
        name: item.input.name ?? bulk.name,
        signers: item.input.signers,
        strictOrder: item.input.strict_order,
        values: item.input.values,
      },
      agentActor(caller),
      bulk.send ? start : undefined,
      made,
    );
    // Tests kill a worker here: the document is committed, its activity has not reported.
    if (deps.faults?.bulkItemPauseAfterCommitMs) {
      deps.log?.warn('bulk item paused by a test fault', { bulkId, position });
      await new Promise((resolve) => setTimeout(resolve, deps.faults!.bulkItemPauseAfterCommitMs));
    }
    return 'created';
  } catch (error) {
    if (error instanceof AlreadySettled) return (await BulkSendItem.query(deps.db).findById([bulkId, position]))!.status;
    if (error instanceof ServiceError && error.status < 500) {
      await failItem(deps.db, bulkId, position, error);
      return 'failed';
    }
    throw error;
  }
}

/** The workflow's last step: every item is settled. */
export async function finishBulk(db: Db, bulkId: string): Promise<void> {
  await BulkSend.query(db).findById(bulkId).where({ status: 'running' }).patch({ status: 'completed', completed_at: new Date() });
}
