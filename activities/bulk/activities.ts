import { ApplicationFailure } from '@temporalio/activity';
import { BulkSend } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { type BulkDeps, failItem, finishBulk, makeBulkItem } from './bulk';

/** The bulk send workflow's activities: the rules of activities/bulk, each safe to retry. */
export function createBulkActivities(deps: BulkDeps) {
  return {
    /**
     * The workflow starts after the transaction that records the bulk committed (activities/workflow-starts.ts);
     * a row missing (a run started from inside that transaction by an earlier release) is retried,
     * within its budget: a POST that never committed ends the workflow.
     */
    async bulkStarted(bulkId: string): Promise<void> {
      if (!(await BulkSend.query(deps.db).findById(bulkId)))
        throw ApplicationFailure.retryable(`Bulk send ${bulkId} is not committed (yet).`, 'not_started');
    },
    makeBulkItem: (bulkId: string, position: number) => makeBulkItem(deps, bulkId, position),
    /** The item's activity kept failing within its budget: the item ends refused, and the bulk goes on. */
    async failBulkItem(bulkId: string, position: number): Promise<void> {
      await failItem(deps.db, bulkId, position, errors.serviceUnavailable(t('errors.bulk.item_failed')));
    },
    finishBulk: (bulkId: string) => finishBulk(deps.db, bulkId),
  };
}
export type BulkActivities = ReturnType<typeof createBulkActivities>;
