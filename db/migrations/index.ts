import type { Knex } from 'knex';
import * as accounts from './20261122000001_accounts';
import * as events from './20261122000002_events';
import * as documents from './20261122000003_documents';
import * as mandates from './20261122000004_mandates';
import * as webhooks from './20261122000005_webhooks';
import * as codeLimits from './20261123000006_code_limits';
import * as signing from './20261123000007_signing';
import * as mail from './20261123000008_mail';
import * as contactsOffers from './20261124000009_contacts_offers';
import * as driveTransfers from './20261125000010_drive_transfers';
import * as idempotency from './20261126000011_idempotency';
import * as paging from './20261127000012_paging';
import * as requestLimits from './20261128000013_request_limits';
import * as applyState from './20261129000014_apply_state';
import * as revokedKeys from './20261130000015_revoked_keys';
import * as keyChanges from './20261201000016_key_changes';
import * as outboxNotices from './20261202000017_outbox_notices';
import * as documentWaits from './20261203000018_document_waits';
import * as templateEdits from './20261205000020_template_edits';
import * as bulkSends from './20261206000021_bulk_sends';
import * as oauth from './20261207000022_oauth';
import * as mandateCredentials from './20261208000023_mandate_credentials';
import * as statusListRandomIndexes from './20261209000024_status_list_random_indexes';
import * as codeLinks from './20261211000026_code_links';
import * as workflowStarts from './20261212000027_workflow_starts';
import * as redundantIndexes from './20261213000028_redundant_indexes';
import * as mandatePolicy from './20261214000029_mandate_policy';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Migrations in order, listed in code so the same list runs under tsx, in tests and in bundles. */
const MIGRATIONS: Array<[name: string, migration: Migration]> = [
  ['20261122000001_accounts', accounts],
  ['20261122000002_events', events],
  ['20261122000003_documents', documents],
  ['20261122000004_mandates', mandates],
  ['20261122000005_webhooks', webhooks],
  ['20261123000006_code_limits', codeLimits],
  ['20261123000007_signing', signing],
  ['20261123000008_mail', mail],
  ['20261124000009_contacts_offers', contactsOffers],
  ['20261125000010_drive_transfers', driveTransfers],
  ['20261126000011_idempotency', idempotency],
  ['20261127000012_paging', paging],
  ['20261128000013_request_limits', requestLimits],
  ['20261129000014_apply_state', applyState],
  ['20261130000015_revoked_keys', revokedKeys],
  ['20261201000016_key_changes', keyChanges],
  ['20261202000017_outbox_notices', outboxNotices],
  ['20261203000018_document_waits', documentWaits],
  ['20261205000020_template_edits', templateEdits],
  ['20261206000021_bulk_sends', bulkSends],
  ['20261207000022_oauth', oauth],
  ['20261208000023_mandate_credentials', mandateCredentials],
  ['20261209000024_status_list_random_indexes', statusListRandomIndexes],
  ['20261211000026_code_links', codeLinks],
  ['20261212000027_workflow_starts', workflowStarts],
  ['20261213000028_redundant_indexes', redundantIndexes],
  ['20261214000029_mandate_policy', mandatePolicy],
];

export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};
