import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKey } from '../../activities/accounts/accounts';
import { startGrant } from '../../activities/mandates/mandates';
import { mandateDeps } from '../../api/app/pages/common';
import { ApiKey, Contact, Document, DriveFile, Mandate, Offer, SignRequest, Template, Transfer, Webhook } from '../../db/models';
import { connect } from '../contacts';
import { seedSamples, sentNda } from '../documents';
import type { Account } from '../factories';
import { driveSamples } from '../files';
import { call, type Reply } from '../http';
import { AppClient, grantMandate, mandatedAccount, principalOf } from '../principal';
import { Receiver, selfSignedCertificate } from '../receiver';
import { type Stack, startStack } from '../stack';
import { figure } from './replica-helpers';

const SCENARIO = 'tenant isolation';
/**
 * Reserved operations of the offer protocol (DESIGN: 501 not_implemented): no handler reads the id,
 * so they answer 501 for any id, A's or none, and tell nothing about existence.
 */
const RESERVED = new Set(['POST /v1/offers/:id/counter', 'POST /v1/offers/:id/revoke_mandate']);

/** An id of the same kind that exists nowhere: its prefix kept, its random part replaced. */
const ghost = (id: string) => id.replace(/_([0-9A-Za-z]+)/, (_, random: string) => `_${'Z'.repeat(random.length)}`);

/** One call of the matrix: a route template, the concrete request tenant B makes, and how. */
interface Probe {
  /** `METHOD /path/:id` as the router names it (the app's pages under /app). */
  route: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  /** A JSON body (API) or form fields (app pages), valid for the route. */
  body?: Record<string, unknown>;
  surface: 'api' | 'app';
}

/**
 * Every route that takes an id (in its path or its body), called by tenant B for an object that
 * exists in tenant A, with B's API key or B's principal session and a body that is otherwise
 * valid: each answers 404 not_found (existence does not leak), and A's objects are unchanged.
 */
// The MCP tools (clients/mcp) call these same REST routes with the caller's key, so this matrix covers them too.
describe('reliability: tenant isolation: another tenant’s id answers 404 on every id-bearing route', () => {
  let stack: Stack;
  let receiver: Receiver;
  /** Tenant A: owns every object probed. */
  let a: Account;
  /** A second key of A's principal, with an L1 mandate (for a sign request). */
  let aL1: Account;
  /** Tenant B: probes, with an L2 mandate and a stored appearance, so no scope or appearance check refuses first. */
  let b: Account;
  /** Tenant C: the counterparty of A's offer and contact. */
  let c: Account;
  /** The ids of A's objects (and of B's own, which bodies name beside them). */
  const known: Record<string, string> = {};
  const ids = known;

  before(async () => {
    const tls = selfSignedCertificate();
    receiver = await new Receiver(tls).start();
    stack = await startStack({
      env: {
        SVC_APPLY_WAIT_MS: '30000',
        SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        SVC_WEBHOOK_CA_FILE: tls.caFile,
        SVC_OUTBOX_POLL_MS: '200',
      },
    });
    const { account: accountA, mandate: mandateA } = await mandatedAccount(stack, { name: 'Anna Alpha', label: 'alpha agent' });
    a = accountA;
    ({ account: b } = await mandatedAccount(stack, { name: 'Bruno Beta', label: 'beta agent' }));
    ({ account: c } = await mandatedAccount(stack, { name: 'Carla Gamma', label: 'gamma agent' }));
    const principalA = await principalOf(stack, a);
    const principalB = await principalOf(stack, b);
    const principalC = await principalOf(stack, c);

    // A second key of A's principal with an L1 mandate, and a grant begun and not confirmed.
    const second = await createKey(stack.deps.db, { principalId: a.principalId, label: 'alpha l1 agent' });
    aL1 = { ...a, keyId: second.apiKey.id, key: second.secret };
    await grantMandate(stack, aL1, { level: 'L1' });
    const pending = await startGrant(
      mandateDeps(stack.deps),
      principalA,
      { apiKeyId: a.keyId, name: 'pending grant', level: 'L2', mode: 'both', consentAccepted: true },
      { type: 'principal', id: principalA.id, ip: '127.0.0.1' },
    );
    Object.assign(ids, { mandate: mandateA.id, pendingMandate: pending.id, key: a.keyId });

    const { nda } = await seedSamples(stack, a);
    ids.template = nda.id;
    const sent = await sentNda(stack, a, nda, principalA, { name: 'Alpha NDA', other: { name: principalC.name, email: principalC.email } });
    const draft = await sentNda(stack, a, nda, principalA, { name: 'Alpha draft', send: false });
    Object.assign(ids, { document: sent.document_id, draft: draft.document_id });

    const request = await call(stack.url, 'POST', `/v1/documents/${sent.document_id}/sign-requests`, {
      key: aL1.key,
      body: { reason: 'Alpha asks' },
    });
    assert.equal(request.status, 201, request.text);
    Object.assign(ids, { signRequest: request.body.sign_request_id, confirmPath: new URL(request.body.confirm_url).pathname });

    const { fromContact } = await connect(stack, a, c);
    ids.contact = fromContact;
    // An invitation to A still open: A's inbound contact, which A could accept.
    const d = await mandatedAccount(stack, { level: null, name: 'Dora Delta' });
    const invited = await call(stack.url, 'POST', '/v1/contacts', { key: d.account.key, body: { email: a.email, name: 'Anna' } });
    assert.equal(invited.status, 201, invited.text);
    const inbound = await call(stack.url, 'GET', '/v1/contacts', { key: a.key });
    ids.inboundContact = inbound.body.data.find(
      (contact: any) => contact.direction === 'inbound' && contact.status === 'invited',
    ).contact_id;

    const offer = await call(stack.url, 'POST', `/v1/documents/${sent.document_id}/offers`, {
      key: a.key,
      body: { contact_id: fromContact, terms: 'Alpha terms' },
    });
    assert.equal(offer.status, 201, offer.text);
    ids.offer = offer.body.offer_id;

    const hook = await call(stack.url, 'POST', '/v1/webhooks', { key: a.key, body: { url: receiver.url } });
    assert.equal(hook.status, 201, hook.text);
    ids.webhook = hook.body.webhook_id;

    const sample = (await driveSamples())[0];
    const upload = async (account: Account) => {
      const reply = await call(stack.url, 'POST', `/v1/assets?filename=${sample.name}`, {
        key: account.key,
        raw: sample.bytes,
        headers: { 'content-type': 'application/octet-stream' },
      });
      assert.equal(reply.status, 201, reply.text);
      return reply.body.drive_file_id as string;
    };
    ids.driveFile = await upload(a);
    ids.driveFileOfB = await upload(b);
    const transfer = await call(stack.url, 'POST', '/v1/transfers', {
      key: a.key,
      body: { name: 'Alpha pack', drive_file_ids: [ids.driveFile], recipients: [{ email: 'rita@example.test', name: 'Rita' }] },
    });
    assert.equal(transfer.status, 201, transfer.text);
    ids.transfer = transfer.body.transfer_id;
    const bulk = await call(stack.url, 'POST', '/v1/documents/bulk', {
      key: a.key,
      body: { template_id: ids.template, name: 'Alpha bulk', items: [{ signers: [{ name: 'Rita', email: 'rita@example.test' }] }] },
    });
    assert.equal(bulk.status, 202, bulk.text);
    ids.bulk = bulk.body.bulk_id;

    // B's own objects, so that a body naming one of A's ids is otherwise valid.
    const { toContact } = await connect(stack, c, b);
    ids.contactOfB = toContact;
    const documentOfB = await sentNda(stack, b, (await seedSamples(stack, b)).nda, principalB, {
      name: 'Beta NDA',
      other: { name: principalC.name, email: principalC.email },
    });
    ids.documentOfB = documentOfB.document_id;
  });
  after(async () => {
    await stack?.close();
    await receiver?.stop();
  });

  function probes(ids: Record<string, string>): Probe[] {
    const api = (method: Probe['method'], route: string, path: string, body?: Record<string, unknown>): Probe => ({
      route: `${method} /v1${route}`,
      method,
      path: `/v1${path}`,
      body,
      surface: 'api',
    });
    const app = (method: Probe['method'], route: string, path: string, body?: Record<string, string>): Probe => ({
      route: `${method} ${route}`,
      method,
      path,
      body,
      surface: 'app',
    });
    const { document, draft, signRequest, mandate, template, contact, inboundContact, offer, webhook, driveFile, transfer } = ids;
    // B's own objects stay real in both matrices: only A's ids are replaced by ghosts.
    const mine = { contactOfB: known.contactOfB, documentOfB: known.documentOfB, driveFileOfB: known.driveFileOfB };
    return [
      api('GET', '/mandates/:id', `/mandates/${mandate}`),
      api('POST', '/documents/:id/sign', `/documents/${document}/sign`, { reason: 'not mine' }),
      api('POST', '/documents/:id/sign-requests', `/documents/${document}/sign-requests`, { reason: 'not mine' }),
      api('GET', '/documents/:id/sign-requests', `/documents/${document}/sign-requests`),
      api('GET', '/sign-requests/:id', `/sign-requests/${signRequest}`),
      api('GET', '/documents/:id', `/documents/${document}`),
      api('POST', '/documents/:id/signers', `/documents/${draft}/signers`, { signers: [{ name: 'Eve', email: 'eve@example.test' }] }),
      api('POST', '/documents/:id/send', `/documents/${draft}/send`, { confirm: true }),
      api('POST', '/documents/:id/void', `/documents/${document}/void`, { reason: 'not mine' }),
      api('POST', '/documents/:id/remind', `/documents/${document}/remind`),
      api('GET', '/documents/:id/download', `/documents/${document}/download`),
      api('GET', '/documents/:id/audit', `/documents/${document}/audit`),
      api('POST', '/documents (template_id)', '/documents', {
        template_id: template,
        name: 'Stolen template',
        signers: [{ name: 'Eve', email: 'eve@example.test' }],
      }),
      api('POST', '/documents/bulk (template_id)', '/documents/bulk', {
        template_id: template,
        name: 'Stolen bulk',
        items: [{ signers: [{ name: 'Eve', email: 'eve@example.test' }] }],
      }),
      api('GET', '/bulk/:id', `/bulk/${ids.bulk}`),
      api('GET', '/templates/:id', `/templates/${template}`),
      api('PATCH', '/templates/:id', `/templates/${template}`, { name: 'Stolen template' }),
      api('DELETE', '/templates/:id', `/templates/${template}`),
      api('POST', '/templates (drive_file_id)', '/templates', {
        drive_file_id: driveFile,
        name: 'Stolen PDF',
        widgets: [{ id: 'sign', type: 'signature', role: 'Eve', page: 1, x: 10, y: 10, width: 100, height: 30 }],
      }),
      api('GET', '/contacts/:id', `/contacts/${contact}`),
      api('POST', '/contacts/:id/accept', `/contacts/${inboundContact}/accept`, {}),
      api('POST', '/contacts/:id/revoke', `/contacts/${contact}/revoke`, {}),
      api('GET', '/offers/:id', `/offers/${offer}`),
      api('POST', '/documents/:id/offers', `/documents/${document}/offers`, { contact_id: mine.contactOfB, terms: 'not mine' }),
      api('POST', '/documents/:id/offers (contact_id)', `/documents/${mine.documentOfB}/offers`, {
        contact_id: contact,
        terms: 'not mine',
      }),
      ...['ack', 'accept', 'decline', 'escalate', 'counter', 'revoke_mandate'].map((verb) =>
        api('POST', `/offers/:id/${verb}`, `/offers/${offer}/${verb}`, {}),
      ),
      api('DELETE', '/webhooks/:id', `/webhooks/${webhook}`),
      api('POST', '/webhooks/:id/rotate-secret', `/webhooks/${webhook}/rotate-secret`, {}),
      api('GET', '/webhooks/:id/deliveries', `/webhooks/${webhook}/deliveries`),
      api('GET', '/drive/:id', `/drive/${driveFile}`),
      api('DELETE', '/drive/:id', `/drive/${driveFile}`),
      api('POST', '/transfers (drive_file_ids)', '/transfers', {
        name: 'Stolen pack',
        drive_file_ids: [driveFile],
        recipients: [{ email: 'eve@example.test', name: 'Eve' }],
      }),
      api('POST', '/transfers (document_id)', '/transfers', {
        name: 'Stolen unlock',
        drive_file_ids: [mine.driveFileOfB],
        recipients: [{ email: 'eve@example.test', name: 'Eve' }],
        document_id: document,
      }),
      api('GET', '/transfers/:id', `/transfers/${transfer}`),
      api('POST', '/transfers/:id/offer', `/transfers/${transfer}/offer`, { confirm: true }),
      api('POST', '/transfers/:id/downloads', `/transfers/${transfer}/downloads`, {}),
      api('POST', '/transfers/:id/cancel', `/transfers/${transfer}/cancel`, {}),
      app('GET', '/app/templates/:id/edit', `/app/templates/${template}/edit`),
      app('GET', '/app/templates/:id/template.pdf', `/app/templates/${template}/template.pdf`),
      app('POST', '/app/templates/:id/edit', `/app/templates/${template}/edit`, { name: 'Stolen template', roles: '', widgets: '[]' }),
      app('POST', '/app/templates/:id/delete', `/app/templates/${template}/delete`, {}),
      app('GET', '/app/keys/:id/revoke', `/app/keys/${ids.key}/revoke`),
      app('POST', '/app/keys/:id/revoke', `/app/keys/${ids.key}/revoke`, {}),
      app('GET', '/app/mandates/:id/revoke', `/app/mandates/${mandate}/revoke`),
      app('POST', '/app/mandates/:id/revoke', `/app/mandates/${mandate}/revoke`, {}),
      app('POST', '/app/documents/:id/void', `/app/documents/${document}/void`, { reason: 'not mine' }),
      app('GET', '/app/mandates/:id/confirm', `/app/mandates/${ids.pendingMandate}/confirm`),
      app('POST', '/app/mandates/:id/confirm', `/app/mandates/${ids.pendingMandate}/confirm`, { code: '000000' }),
      app('POST', '/app/agent-contacts/:id/accept', `/app/agent-contacts/${inboundContact}/accept`, {}),
      app('POST', '/app/agent-contacts/:id/revoke', `/app/agent-contacts/${contact}/revoke`, {}),
      app('GET', '/app/documents/:id', `/app/documents/${document}`),
      app('GET', '/app/documents/:id/download', `/app/documents/${document}/download`),
      app('GET', '/app/sign-request/:token', ids.confirmPath),
      app('GET', '/app/sign-request/:token/document.pdf', `${ids.confirmPath}/document.pdf`),
      app('POST', '/app/sign-request/:token/confirm', `${ids.confirmPath}/confirm`, {}),
      app('POST', '/app/sign-request/:token/decline', `${ids.confirmPath}/decline`, {}),
    ];
  }

  it('answers 404 to tenant B for each of tenant A’s objects, as for an id that exists nowhere, and leaves them as they were', async () => {
    const session = await new AppClient(stack, b.email).login();
    const csrfPage = `${session.appPath}/keys`;
    const send = async (probe: Probe): Promise<{ status: number; code: string }> => {
      if (probe.surface === 'api') {
        const reply: Reply = await call(stack.url, probe.method, probe.path, { key: b.key, body: probe.body });
        return { status: reply.status, code: reply.body?.error?.code ?? '' };
      }
      const path = probe.path.replace(/^\/app/, session.appPath);
      const response =
        probe.method === 'GET' ? await session.get(path) : await session.post(path, probe.body as Record<string, string>, csrfPage);
      // Pages show a refusal as a notice, not a code.
      return { status: response.status, code: /class="notice error"[^>]*>([^<]*)/.exec(await response.text())?.[1]?.slice(0, 40) ?? '' };
    };
    const ghosts = Object.fromEntries(
      Object.entries(known).map(([name, id]) => [name, name === 'confirmPath' ? id.replace(/[^/]+$/, (token) => ghost(token)) : ghost(id)]),
    );
    const rows = [];
    const unknown = probes(ghosts);
    for (const [i, probe] of probes(known).entries()) rows.push({ probe, foreign: await send(probe), none: await send(unknown[i]) });

    const width = Math.max(...rows.map((row) => row.probe.route.length));
    const cell = (answer: { status: number; code: string }) => `${answer.status} ${answer.code}`.padEnd(48);
    const table = rows.map((row) => `${row.probe.route.padEnd(width)}  ${cell(row.foreign)}  ${cell(row.none).trimEnd()}`).join('\n');
    figure(
      SCENARIO,
      `${rows.length} routes called by tenant B with tenant A's ids, and with ids that exist nowhere:\n${'route'.padEnd(width)}  ${"A's id".padEnd(48)}  unknown id\n${table}`,
    );
    const wrong = rows.filter((row) => row.foreign.status !== (RESERVED.has(row.probe.route) ? 501 : 404));
    assert.deepEqual(
      wrong.map((row) => `${row.probe.route}: ${row.foreign.status} ${row.foreign.code}`),
      [],
      'every route answers 404 (the reserved operations 501)',
    );
    const telling = rows.filter(
      (row) => row.foreign.status !== row.none.status || (row.probe.surface === 'api' && row.foreign.code !== row.none.code),
    );
    assert.deepEqual(
      telling.map((row) => `${row.probe.route}: ${cell(row.foreign)} / ${cell(row.none)}`),
      [],
      'A’s id answers as an unknown id does',
    );

    // Nothing of A's changed.
    const { db } = stack.deps;
    assert.equal((await Mandate.query(db).findById(ids.mandate))?.status, 'active');
    assert.equal((await Mandate.query(db).findById(ids.pendingMandate))?.status, 'pending');
    assert.equal((await ApiKey.query(db).findById(ids.key))?.revoked_at, null);
    assert.equal((await Document.query(db).findById(ids.draft))?.status, 'draft');
    assert.equal((await Document.query(db).findById(ids.document))?.status, 'sent');
    assert.equal((await SignRequest.query(db).findById(ids.signRequest))?.status, 'open');
    assert.equal((await Contact.query(db).findById(ids.contact))?.status, 'active');
    assert.equal((await Contact.query(db).findById(ids.inboundContact))?.status, 'invited');
    assert.equal((await Offer.query(db).findById(ids.offer))?.status, 'pending');
    assert.ok(await Webhook.query(db).findById(ids.webhook), 'the webhook is still there');
    assert.ok(await DriveFile.query(db).findById(ids.driveFile), 'the Drive file is still there');
    const template = await Template.query(db).findById(ids.template);
    assert.equal(template?.deleted_at, null, 'the template is not deleted');
    assert.notEqual(template?.name, 'Stolen template');
    assert.equal((await Transfer.query(db).findById(ids.transfer))?.status, 'created');
  });

  it('covers every API route with an id in its path (from the OpenAPI document)', async () => {
    const openapi = await call(stack.url, 'GET', '/v1/openapi.json');
    const withId = Object.entries(openapi.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => ['get', 'post', 'patch', 'delete'].includes(method) && path.includes('{id}'))
        .map((method) => `${method.toUpperCase()} ${path.replace('{id}', ':id')}`),
    );
    const probed = new Set(probes(known).map((probe) => probe.route));
    // Public by design, for anyone (a counterparty checking a mandate credential): a Token Status List
    // is shared by every tenant's credentials and holds one revocation bit per credential, nothing else.
    const publicRoutes = new Set(['GET /v1/status-lists/:id']);
    const list = await call(stack.url, 'GET', '/v1/status-lists/sl_unknown');
    assert.equal(list.status, 404, 'an unknown status list is 404 (without a key too)');
    assert.ok(withId.length >= 25, `routes with an id: ${withId.length}`);
    assert.deepEqual(
      withId.filter((route) => !probed.has(route) && !publicRoutes.has(route)),
      [],
      'routes with an id that the matrix does not call',
    );
  });
});
