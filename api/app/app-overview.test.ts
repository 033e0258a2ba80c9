import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setPlan } from '../../activities/accounts/accounts';
import { createDocument, seedSamples } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { path, stack, useAppStack } from '../../test/fixtures/app';
import { call } from '../../test/http';
import { AppClient, grantMandate } from '../../test/principal';

useAppStack();

describe('overview', () => {
  it('shows the signature status, keys, mandates, the plan, and open sign requests with their confirm links', async () => {
    const other = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    const { nda } = await seedSamples(stack, other);
    const agent = await createAccount(stack.deps.db, { name: 'Sam Signer' });
    const agentApp = await new AppClient(stack, agent.email).login();
    let html = await (await agentApp.get(path('/'))).text();
    assert.match(html, /data-testid="signature-status"><strong>Not stored yet/);
    assert.match(html, /Nothing is waiting for you/);
    assert.match(html, /data-testid="plan">Your account is on the <strong>business<\/strong> plan/);

    await grantMandate(stack, agent, { level: 'L1', mode: 'inbound', name: 'Inbound NDAs' });
    const created = await createDocument(stack, other, {
      template_id: nda.id,
      name: 'Overview NDA',
      send: true,
      signers: [
        { name: 'Sam Signer', email: agent.email },
        { name: 'Rey', email: `rey-${Date.now()}@example.test` },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const request = await call(stack.url, 'POST', `/v1/documents/${created.body.document_id}/sign-requests`, {
      key: agent.key,
      body: { reason: 'Quarterly NDA' },
    });
    assert.equal(request.status, 201, request.text);

    html = await (await agentApp.get(path('/'))).text();
    const link = new URL(request.body.confirm_url).pathname;
    assert.ok(html.includes(`href="${link}" data-testid="sign-request-link"><strong>Overview NDA</strong>`), html);
    assert.match(html, /Quarterly NDA/);
    assert.match(html, /Inbound NDAs · L1 · test agent · <span class="badge active">active/);
    assert.equal((await agentApp.get(link)).status, 200);

    await setPlan(stack.deps.db, { tenantId: agent.tenantId, plan: 'pro' });
    assert.match(await (await agentApp.get(path('/'))).text(), /<strong>pro<\/strong> plan\. API access .* needs the Business plan/);
  });
});
