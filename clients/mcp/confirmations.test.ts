import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type ElicitRequestURLParams,
} from '@modelcontextprotocol/sdk/types.js';
import { connect } from '../../test/contacts';
import { seedSamples, sentNda } from '../../test/documents';
import type { Account } from '../../test/factories';
import { inboundNda, linkPath, principalWithL1, stack, useL1Stack } from '../../test/fixtures/signing-l1';
import { call } from '../../test/http';
import { AppClient, mandatedAccount, principalOf } from '../../test/principal';
import { waitFor } from '../../test/wait';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };
const json = (result: unknown) => JSON.parse((result as ToolResult).content[0].text ?? 'null');
const sentence = (result: unknown) => (result as ToolResult).content[1]?.text ?? '';

/** The official SDK client over the service's HTTP mount (stateless), with neither elicitation nor tasks declared. */
async function overHttp(account: Account, base = stack.url): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${account.key}` } },
    }),
  );
  return client;
}

/** The official SDK client running svc-mcp over stdio, with URL elicitation: what it was shown, and what it was told ended. */
async function overStdio(account: Account) {
  const client = new Client({ name: 'test', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  const shown: ElicitRequestURLParams[] = [];
  const completed: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    shown.push(request.params as ElicitRequestURLParams);
    return { action: 'accept' };
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (notification) => {
    completed.push(notification.params.elicitationId);
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'clients/mcp/bin/svc-mcp.js')],
      env: {
        ...(process.env as Record<string, string>),
        SVC_API_KEY: account.key,
        SVC_BASE_URL: stack.url,
        SVC_APP_URL: stack.config.appUrl,
      },
      stderr: 'pipe',
    }),
  );
  return { client, shown, completed };
}

/** A tools/call that asks for a task (the MCP 2025-11-25 task augmentation). */
const callAsTask = (client: Client, name: string, args: Record<string, unknown>) =>
  client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);

/** The principal decides in the app, through its real form posts (signed in by the e-mailed code). */
async function decide(account: Account, confirmUrl: string, decision: 'confirm' | 'decline') {
  const link = linkPath(confirmUrl);
  const app = await new AppClient(stack, (await principalOf(stack, account)).email).login();
  const decided = await app.post(`${link}/${decision}`, {}, link);
  assert.equal(decided.status, 200, `${decision} in the app`);
}

describe('MCP: confirmations the agent’s client can show (URL elicitation, tasks, the URL in the result)', () => {
  useL1Stack();

  it('HTTP: request_sign asked as a task answers a task that completes with the signed state when the principal confirms in the app', async () => {
    const { account } = await principalWithL1();
    const document = await inboundNda(account);
    const client = await overHttp(account);
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.find((tool) => tool.name === 'request_sign')?.execution?.taskSupport, 'optional');
      assert.equal(tools.find((tool) => tool.name === 'accept_offer')?.execution?.taskSupport, 'optional');
      for (const signing of ['request_sign', 'accept_offer', 'sign_as_principal']) {
        const description = tools.find((tool) => tool.name === signing)?.description ?? '';
        assert.match(description, /An API key or an access token is never intent to sign/, signing);
        assert.match(description, /only the principal, signed in to the app, confirms/, signing);
      }
      assert.match(tools.find((tool) => tool.name === 'request_sign')?.description ?? '', /URL elicitation.*ask for a task/);
      assert.equal(client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined, true);

      const created = await callAsTask(client, 'request_sign', { document_id: document.document_id, reason: 'Confirm the NDA' });
      const { task } = created;
      assert.match(task.taskId, /^sr_/);
      assert.equal(task.status, 'working');
      const request = await call(stack.url, 'GET', `/v1/sign-requests/${task.taskId}`, { key: account.key });
      assert.equal(request.status, 200);
      const confirmUrl: string = request.body.confirm_url;
      assert.match(task.statusMessage ?? '', new RegExp(`open ${confirmUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

      // Another replica of the service (its own API process on the same database) answers for the same task.
      const replica = await stack.withEnv({});
      try {
        const again = await overHttp(account, replica.url);
        assert.equal((await again.experimental.tasks.getTask(task.taskId)).status, 'working');
        await again.close();
      } finally {
        await replica.close();
      }

      await decide(account, confirmUrl, 'confirm');
      const done = await waitFor('the task to complete', async () => {
        const current = await client.experimental.tasks.getTask(task.taskId);
        return current.status === 'completed' ? current : undefined;
      });
      assert.equal(done.status, 'completed');
      const result = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as ToolResult;
      assert.ok(!result.isError, JSON.stringify(result));
      assert.equal(json(result).status, 'applied');
      assert.equal(json(result).sign_request_id, task.taskId);
      const signed = await call(stack.url, 'GET', `/v1/documents/${document.document_id}`, { key: account.key });
      assert.equal(signed.body.signers[0].status, 'signed');

      // A task is the key's own: another principal's key does not see it.
      const { account: stranger } = await principalWithL1();
      const theirs = await overHttp(stranger);
      await assert.rejects(theirs.experimental.tasks.getTask(task.taskId), /not found/i);
      await theirs.close();
    } finally {
      await client.close();
    }
  });

  it('HTTP: the task ends failed when the principal declines, and tasks/result says nothing was signed', async () => {
    const { account } = await principalWithL1();
    const document = await inboundNda(account);
    const client = await overHttp(account);
    try {
      const { task } = await callAsTask(client, 'request_sign', { document_id: document.document_id, reason: 'Confirm the NDA' });
      const request = await call(stack.url, 'GET', `/v1/sign-requests/${task.taskId}`, { key: account.key });
      await decide(account, request.body.confirm_url, 'decline');
      const ended = await waitFor('the task to end', async () => {
        const current = await client.experimental.tasks.getTask(task.taskId);
        return current.status !== 'working' ? current : undefined;
      });
      assert.equal(ended.status, 'failed');
      assert.match(ended.statusMessage ?? '', /declined: nothing was signed/);
      const result = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as ToolResult;
      assert.equal(result.isError, true);
      assert.equal(json(result).status, 'declined');
      await assert.rejects(client.experimental.tasks.cancelTask(task.taskId), /cannot/i);
    } finally {
      await client.close();
    }
  });

  it('HTTP: a client without elicitation or tasks gets the confirm URL and the sentence to open it in the plain result, at once', async () => {
    const { account } = await principalWithL1();
    const document = await inboundNda(account);
    const client = await overHttp(account);
    try {
      const result = (await client.callTool({
        name: 'request_sign',
        arguments: { document_id: document.document_id, reason: 'Confirm the NDA' },
      })) as ToolResult;
      assert.ok(!result.isError, JSON.stringify(result));
      const request = json(result);
      assert.equal(request.status, 'open');
      assert.ok(request.confirm_url.startsWith(`${stack.config.appUrl}/sign-request/`));
      assert.ok(sentence(result).includes(`must open ${request.confirm_url} and confirm`), sentence(result));
    } finally {
      await client.close();
    }
  });

  it('stdio: a client with URL elicitation is shown the confirm URL, told when the principal confirmed, and its task completes', async () => {
    const { account } = await principalWithL1();
    const { client, shown, completed } = await overStdio(account);
    try {
      const first = await inboundNda(account);
      const result = (await client.callTool({
        name: 'request_sign',
        arguments: { document_id: first.document_id, reason: 'Confirm the NDA' },
      })) as ToolResult;
      const request = json(result);
      assert.ok(sentence(result).includes(request.confirm_url));
      const elicitation = await waitFor('the elicitation', () => shown[0]);
      assert.equal(elicitation.mode, 'url');
      assert.equal(elicitation.url, request.confirm_url);
      assert.equal(elicitation.elicitationId, request.sign_request_id);
      assert.match(elicitation.message, /principal must open/);
      assert.equal(completed.length, 0, 'not complete before the principal decides');
      await decide(account, request.confirm_url, 'confirm');
      await waitFor('notifications/elicitation/complete', () => completed.includes(request.sign_request_id));

      const second = await inboundNda(account);
      const { task } = await callAsTask(client, 'request_sign', { document_id: second.document_id, reason: 'And this one' });
      const asked = await waitFor('the second elicitation', () => shown.find((shownOne) => shownOne.elicitationId === task.taskId));
      await decide(account, asked.url, 'confirm');
      await waitFor(
        'the stdio task to complete',
        async () => (await client.experimental.tasks.getTask(task.taskId)).status === 'completed',
      );
      const taskResult = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as ToolResult;
      assert.equal(json(taskResult).status, 'applied');
    } finally {
      await client.close();
    }
  });

  it('an escalated offer: accept_offer answers the confirm URL (and elicits it over stdio); as a task it completes when the principal confirms', async () => {
    const { account: offeror } = await mandatedAccount(stack, { level: 'L2', name: 'Otto Offeror' });
    const { account } = await principalWithL1();
    const { fromContact } = await connect(stack, offeror, account);
    const { nda: offerorsNda } = await seedSamples(stack, offeror);
    const offerOn = async (name: string) => {
      const document = await sentNda(stack, offeror, offerorsNda, await principalOf(stack, account), {
        name,
        other: { name: 'Otto Offeror', email: offeror.email },
      });
      const proposed = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/offers`, {
        key: offeror.key,
        body: { contact_id: fromContact, terms: 'Net 30' },
      });
      assert.equal(proposed.status, 201, proposed.text);
      return proposed.body.offer_id as string;
    };
    const plainOffer = await offerOn('Offer plain');
    const { client, shown } = await overStdio(account);
    try {
      const result = (await client.callTool({ name: 'accept_offer', arguments: { offer_id: plainOffer } })) as ToolResult;
      const offer = json(result);
      assert.equal(offer.status, 'escalated');
      assert.ok(sentence(result).includes(offer.confirm_url), sentence(result));
      const elicitation = await waitFor('the offer’s elicitation', () => shown[0]);
      assert.deepEqual([elicitation.mode, elicitation.url], ['url', offer.confirm_url]);
    } finally {
      await client.close();
    }

    const taskOffer = await offerOn('Offer task');
    const http = await overHttp(account);
    try {
      const { task } = await callAsTask(http, 'accept_offer', { offer_id: taskOffer });
      assert.equal(task.taskId, taskOffer);
      assert.equal(task.status, 'working');
      const escalated = await call(stack.url, 'GET', `/v1/offers/${taskOffer}`, { key: account.key });
      await decide(account, escalated.body.confirm_url, 'confirm');
      await waitFor('the offer task to complete', async () => (await http.experimental.tasks.getTask(taskOffer)).status === 'completed');
      const accepted = json(await http.experimental.tasks.getTaskResult(taskOffer, CallToolResultSchema));
      assert.equal(accepted.status, 'accepted');
    } finally {
      await http.close();
    }
  });

  it('a missing mandate: sign_as_principal is refused with the app’s grant page for this key, in the result and elicited over stdio', async () => {
    const { account } = await mandatedAccount(stack, { level: null, name: 'Nora Nomandate' });
    const document = await inboundNda(account);
    const me = await call(stack.url, 'GET', '/v1/me', { key: account.key });
    const grantUrl = `${stack.config.appUrl}/mandates/new?key=${me.body.key.id}`;
    const client = await overHttp(account);
    try {
      const refused = (await client.callTool({
        name: 'sign_as_principal',
        arguments: { document_id: document.document_id, reason: 'agreed' },
      })) as ToolResult;
      assert.equal(refused.isError, true);
      assert.equal(json(refused).error.code, 'mandate_required');
      assert.ok(sentence(refused).includes(`open ${grantUrl} and grant one`), sentence(refused));
    } finally {
      await client.close();
    }
    const { client: local, shown } = await overStdio(account);
    try {
      const refused = (await local.callTool({
        name: 'sign_as_principal',
        arguments: { document_id: document.document_id, reason: 'agreed' },
      })) as ToolResult;
      assert.equal(json(refused).error.code, 'mandate_required');
      const elicitation = await waitFor('the grant elicitation', () => shown[0]);
      assert.deepEqual([elicitation.mode, elicitation.url], ['url', grantUrl]);
    } finally {
      await local.close();
    }
    // The grant page the URL opens preselects this key.
    const app = await new AppClient(stack, (await principalOf(stack, account)).email).login();
    const page = await (await app.get(new URL(grantUrl).pathname + new URL(grantUrl).search)).text();
    assert.match(page, new RegExp(`<option value="${me.body.key.id}" selected`));
  });
});
