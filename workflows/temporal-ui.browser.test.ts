import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { Browser } from 'playwright-core';
import { type DevServer, startDevServer } from '../runtime/dev-server';
import { launchBrowser } from '../test/browser';
import { ROOT } from '../test/cli';
import { freePort } from '../test/ports';
import { workLabels } from './labels';

/**
 * What an operator sees in the Temporal Web UI, in a real Chromium against a dev server of its own
 * (with its UI, which the suite's shared server does not serve): one tenant's work, found by
 * SvcTenantId, each run with its summary. SAVE_UI_SCREENSHOT=1 keeps the picture in docs/images/.
 */
describe('the Temporal UI lists one tenant’s work by its search attribute, with summaries', { timeout: 180_000 }, () => {
  let server: DevServer;
  let connection: Connection;
  let browser: Browser;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-'));

  before(async () => {
    server = await startDevServer({
      binary: process.env.TEMPORAL_CLI!,
      port: await freePort(),
      uiPort: await freePort(),
      logFile: path.join(scratch, 'temporal.log'),
    });
    connection = await Connection.connect({ address: server.address });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await connection?.close();
    await server?.stop();
  });

  it('filtered by SvcTenantId, the list shows that tenant’s document, sign request and offer and nothing of another tenant', async () => {
    const client = new Client({ connection, namespace: 'default' });
    const tenant = 'ten_uiOperatorView01';
    const other = 'ten_uiSomeoneElse001';
    const inAnHour = new Date(Date.now() + 3_600_000);
    const starts = [
      {
        id: 'document-doc_uiNda000000000001',
        type: 'documentWorkflow',
        labels: workLabels.document(
          { id: 'doc_uiNda000000000001', tenant_id: tenant, owner_principal_id: 'prn_uiOlga00000001', name: 'Mutual NDA' },
          2,
        ),
      },
      {
        id: 'sign-request-sr_uiConfirm00000001',
        type: 'signRequestWorkflow',
        labels: workLabels.signRequest({
          id: 'sr_uiConfirm00000001',
          tenant_id: tenant,
          principal_id: 'prn_uiOlga00000001',
          document_id: 'doc_uiNda000000000001',
          expires_at: inAnHour,
        }),
      },
      {
        id: 'offer-ofr_uiOffer0000000001',
        type: 'offerWorkflow',
        labels: workLabels.offer({
          id: 'ofr_uiOffer0000000001',
          from_tenant_id: tenant,
          to_tenant_id: other,
          from_principal_id: 'prn_uiOlga00000001',
          to_principal_id: 'prn_uiCyrus0000001',
          document_id: 'doc_uiNda000000000001',
          expires_at: inAnHour,
        }),
      },
      {
        id: 'document-doc_uiElsewhere00000001',
        type: 'documentWorkflow',
        labels: workLabels.document({ id: 'doc_uiElsewhere00000001', tenant_id: other, name: 'Their NDA' }, 1),
      },
    ];
    // Nobody polls this task queue: the runs wait, as work waiting for its signers does.
    for (const { id, type, labels } of starts)
      await client.workflow.start(type, { taskQueue: 'operator-view', workflowId: id, args: [{}], ...labels });

    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const query = encodeURIComponent(`SvcTenantId = '${tenant}'`);
    await page.goto(`${server.uiUrl}/namespaces/default/workflows?query=${query}`);
    for (const id of starts.slice(0, 3).map((start) => start.id))
      await page.getByText(id, { exact: false }).first().waitFor({ timeout: 60_000 });
    // The offer belongs to both tenants; the other tenant's own document is not in this list.
    assert.equal(await page.getByText('document-doc_uiElsewhere00000001').count(), 0);
    const shot = await page.screenshot({ fullPage: false });
    assert.ok(shot.length > 10_000, 'a picture of the list');
    if (process.env.SAVE_UI_SCREENSHOT) fs.writeFileSync(path.join(ROOT, 'docs/images/temporal-ui-tenant.png'), shot);

    // A run's page shows its summary.
    await page.goto(`${server.uiUrl}/namespaces/default/workflows/document-doc_uiNda000000000001`);
    await page
      .getByText(`Document "Mutual NDA" (doc_uiNda000000000001) of tenant ${tenant}: 2 signers`)
      .first()
      .waitFor({ timeout: 60_000 });
    await page.close();
    for (const { id } of starts) await client.workflow.getHandle(id).terminate('test over');
  });
});
