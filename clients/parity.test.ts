import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildSampleNda } from '../lib/pdf/samples';
import { connect } from '../test/contacts';
import { seedSamples, sentNda } from '../test/documents';
import { type Account, createAccount } from '../test/factories';
import { call } from '../test/http';
import { freePort } from '../test/ports';
import { mandatedAccount } from '../test/principal';
import { type Stack, startStack } from '../test/stack';
import { completedPdf } from '../test/verify';
import { SvcClient, SvcError } from './sdk/src/index';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const SURFACES = ['REST', 'SDK', 'CLI', 'MCP stdio', 'MCP HTTP'] as const;
type SurfaceName = (typeof SURFACES)[number];

/** What an operation came to on one surface: its value, or the error code SPEC gives the refusal. */
type Outcome = { ok: true; value: any } | { ok: false; code: string };

/** How to run one operation on each surface; every surface that offers it gets the same arguments. */
interface Operation {
  name: string;
  rest: (key: string) => Promise<Outcome>;
  sdk: (client: SvcClient) => Promise<unknown>;
  cli: string[];
  mcp: [tool: string, args: Record<string, unknown>];
}

/**
 * One operation, every surface, the same outcome. Each row of SPEC's surface table that a surface
 * offers is run through REST, the SDK, the CLI (`--json`), and the MCP server over stdio and over
 * streamable HTTP, on state prepared alike for each (a fresh document per surface where the
 * operation changes it); the outcome is compared after removing what differs by nature (ids, times).
 */
describe('every surface does the same for the same operation', () => {
  let stack: Stack;
  let agent: Account;
  let l1: Account;
  let stranger: Account;
  const table: string[][] = [];
  const pdf = { bytes: Buffer.alloc(0), file: '' };

  before(async () => {
    stack = await startStack({ port: await freePort(), env: { SVC_APPLY_WAIT_MS: '30000' } });
    ({ account: agent } = await mandatedAccount(stack, { level: 'L2', name: 'Pat Parity' }));
    ({ account: l1 } = await mandatedAccount(stack, { level: 'L1', name: 'Lou Levelone' }));
    stranger = await createAccount(stack.deps.db, { name: 'Stan Stranger' });
    pdf.bytes = Buffer.from((await buildSampleNda()).pdf);
    pdf.file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-parity-')), 'parity.pdf');
    fs.writeFileSync(pdf.file, pdf.bytes);
  });
  after(async () => {
    await stack?.close();
    if (table.length > 0) {
      const widths = ['operation', ...SURFACES].map((title, i) => Math.max(title.length, ...table.map((row) => row[i].length)));
      const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ');
      console.log(`\n${line(['operation', ...SURFACES])}\n${widths.map((width) => '-'.repeat(width)).join('-|-')}`);
      for (const row of table) console.log(line(row));
    }
  });

  async function mcpClients(key: string): Promise<[Client, Client]> {
    const viaStdio = new Client({ name: 'parity', version: '1.0.0' });
    await viaStdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(ROOT, 'clients/mcp/bin/svc-mcp.js')],
        env: { ...(process.env as Record<string, string>), SVC_API_KEY: key, SVC_BASE_URL: stack.url },
        stderr: 'pipe',
      }),
    );
    const viaHttp = new Client({ name: 'parity', version: '1.0.0' });
    await viaHttp.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    return [viaStdio, viaHttp];
  }

  const restOutcome = (reply: { status: number; body: any }): Outcome =>
    reply.status < 300 ? { ok: true, value: reply.body } : { ok: false, code: reply.body?.error?.code ?? `http_${reply.status}` };
  const rest = (method: string, route: string, body?: unknown) => async (key: string) =>
    restOutcome(await call(stack.url, method, `/v1${route}`, { key, body }));

  function cli(args: string[], key: string): Promise<Outcome> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [path.join(ROOT, 'clients/cli/bin/svc.js'), ...args, '--json'],
        { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), SVC_API_KEY: key, SVC_BASE_URL: stack.url }, timeout: 60_000 },
        (error, stdout, stderr) => {
          if (!error) return resolve({ ok: true, value: JSON.parse(stdout) });
          try {
            resolve({ ok: false, code: JSON.parse(stderr).error.code });
          } catch {
            resolve({ ok: false, code: `exit_${error.code}: ${stderr.trim()}` });
          }
        },
      );
    });
  }

  async function mcp(client: Client, [tool, args]: Operation['mcp']): Promise<Outcome> {
    const result = (await client.callTool({ name: tool, arguments: args })) as { isError?: boolean; content: Array<{ text?: string }> };
    const parsed = JSON.parse(result.content[0]?.text ?? 'null');
    return result.isError ? { ok: false, code: parsed?.error?.code ?? 'tool_error' } : { ok: true, value: parsed };
  }

  /** Runs `operation(surface)` on every surface with a key, clients built for that key; one table row. */
  async function row(
    label: string,
    key: Account,
    operationOf: (surface: SurfaceName) => Promise<Operation>,
    normalize: (value: any) => unknown,
  ): Promise<Record<SurfaceName, unknown>> {
    const sdk = new SvcClient({ baseUrl: stack.url, apiKey: key.key, retry: { initialDelayMs: 10, maxDelayMs: 50 } });
    const [viaStdio, viaHttp] = await mcpClients(key.key);
    const results = {} as Record<SurfaceName, unknown>;
    try {
      for (const surface of SURFACES) {
        const operation = await operationOf(surface);
        let outcome: Outcome;
        if (surface === 'REST') outcome = await operation.rest(key.key);
        else if (surface === 'SDK')
          outcome = await operation.sdk(sdk).then(
            (value) => ({ ok: true as const, value }),
            (error) => ({ ok: false as const, code: error instanceof SvcError ? error.code : String(error) }),
          );
        else if (surface === 'CLI') outcome = await cli(operation.cli, key.key);
        else outcome = await mcp(surface === 'MCP stdio' ? viaStdio : viaHttp, operation.mcp);
        results[surface] = outcome.ok ? normalize(outcome.value) : { refused: outcome.code };
      }
    } finally {
      await viaStdio.close();
      await viaHttp.close();
    }
    const cell = (value: unknown) =>
      typeof value === 'object' && value && 'refused' in value ? String((value as { refused: string }).refused) : 'ok';
    table.push([label, ...SURFACES.map((surface) => cell(results[surface]))]);
    for (const surface of SURFACES) assert.deepEqual(results[surface], results.REST, `${label}: ${surface} differs from REST`);
    return results;
  }

  const fixed = (operation: Operation) => async () => operation;

  it('reads: me, documents, a missing document, another principal’s document', async () => {
    const { nda } = await seedSamples(stack, agent);
    const mine = await sentNda(stack, agent, nda, { name: 'Pat Parity', email: agent.email }, { name: 'Parity read' });
    await row('me', agent, fixed({ name: 'me', rest: rest('GET', '/me'), sdk: (c) => c.me(), cli: ['me'], mcp: ['me', {}] }), (me) => ({
      email: me.principal.email,
      plan: me.plan,
      levels: me.allowed_confirmation_levels,
    }));
    await row(
      'get_document',
      agent,
      fixed({
        name: 'get_document',
        rest: rest('GET', `/documents/${mine.document_id}`),
        sdk: (c) => c.getDocument(mine.document_id),
        cli: ['docs', 'get', mine.document_id],
        mcp: ['get_document', { document_id: mine.document_id }],
      }),
      (document) => ({
        id: document.document_id,
        status: document.status,
        signers: document.signers.map((s: { email: string }) => s.email),
      }),
    );
    await row(
      'list_documents',
      agent,
      fixed({
        name: 'list_documents',
        rest: rest('GET', '/documents?limit=100'),
        sdk: (c) => c.listDocuments({ limit: 100 }),
        cli: ['docs', 'list', '--limit', '100'],
        mcp: ['list_documents', { limit: 100 }],
      }),
      (list) => list.data.map((document: { document_id: string }) => document.document_id).sort(),
    );
    await row(
      'get_document (missing)',
      agent,
      fixed({
        name: 'get_document',
        rest: rest('GET', '/documents/doc_doesnotexist'),
        sdk: (c) => c.getDocument('doc_doesnotexist'),
        cli: ['docs', 'get', 'doc_doesnotexist'],
        mcp: ['get_document', { document_id: 'doc_doesnotexist' }],
      }),
      (value) => value,
    );
    await row(
      'get_document (another principal’s)',
      stranger,
      fixed({
        name: 'get_document',
        rest: rest('GET', `/documents/${mine.document_id}`),
        sdk: (c) => c.getDocument(mine.document_id),
        cli: ['docs', 'get', mine.document_id],
        mcp: ['get_document', { document_id: mine.document_id }],
      }),
      (value) => value,
    );
  });

  it('signing: sign_as_principal (L2), again (already_signed), without a mandate; request_sign (L1) and list_sign_requests', async () => {
    const templates = new Map([
      [agent, (await seedSamples(stack, agent)).nda],
      [l1, (await seedSamples(stack, l1)).nda],
    ]);
    const fresh = async (account: Account, label: string) =>
      (await sentNda(stack, account, templates.get(account)!, { name: 'Signer', email: account.email }, { name: label }))
        .document_id as string;
    const documents = new Map<SurfaceName, string>();
    for (const surface of SURFACES) documents.set(surface, await fresh(agent, `Parity L2 ${surface}`));
    const sign = (surface: SurfaceName): Operation => {
      const id = documents.get(surface)!;
      return {
        name: 'sign_as_principal',
        rest: rest('POST', `/documents/${id}/sign`, { reason: 'parity' }),
        sdk: (c) => c.signAsPrincipal(id, 'parity'),
        cli: ['docs', 'sign', id, '--reason', 'parity'],
        mcp: ['sign_as_principal', { document_id: id, reason: 'parity' }],
      };
    };
    await row(
      'sign_as_principal (L2)',
      agent,
      async (surface) => sign(surface),
      (result) => ({
        status: result.status,
        level: result.confirmation_level,
        hashed: /^[0-9a-f]{64}$/.test(result.document_hash),
      }),
    );
    await row(
      'sign_as_principal (again)',
      agent,
      async (surface) => sign(surface),
      (value) => value,
    );

    const l1Docs = new Map<SurfaceName, string>();
    for (const surface of SURFACES) l1Docs.set(surface, await fresh(l1, `Parity L1 ${surface}`));
    await row(
      'sign_as_principal (L1 mandate only)',
      l1,
      async (surface) => {
        const id = l1Docs.get(surface)!;
        return {
          name: 'sign_as_principal',
          rest: rest('POST', `/documents/${id}/sign`, { reason: 'parity' }),
          sdk: (c) => c.signAsPrincipal(id, 'parity'),
          cli: ['docs', 'sign', id, '--reason', 'parity'],
          mcp: ['sign_as_principal', { document_id: id, reason: 'parity' }],
        };
      },
      (value) => value,
    );
    await row(
      'request_sign (L1)',
      l1,
      async (surface) => {
        const id = l1Docs.get(surface)!;
        return {
          name: 'request_sign',
          rest: rest('POST', `/documents/${id}/sign-requests`, { reason: 'parity' }),
          sdk: (c) => c.requestSign(id, 'parity'),
          cli: ['docs', 'request-sign', id, '--reason', 'parity'],
          mcp: ['request_sign', { document_id: id, reason: 'parity' }],
        };
      },
      (request) => ({ status: request.status, reason: request.reason }),
    );
    await row(
      'list_sign_requests',
      l1,
      async (surface) => {
        const id = l1Docs.get(surface)!;
        return {
          name: 'list_sign_requests',
          rest: rest('GET', `/documents/${id}/sign-requests`),
          sdk: (c) => c.listSignRequests(id),
          cli: ['docs', 'sign-requests', id],
          mcp: ['list_sign_requests', { document_id: id }],
        };
      },
      (list) => list.data.map((request: { status: string }) => request.status),
    );
  });

  it('contacts and offers: invite_contact; accept_offer and decline_offer of an offer that is not there', async () => {
    await row(
      'invite_contact',
      agent,
      async (surface) => {
        const email = `invitee-${surface.replace(/\W/g, '').toLowerCase()}@example.test`;
        return {
          name: 'invite_contact',
          rest: rest('POST', '/contacts', { email, name: 'Ivy Invitee' }),
          sdk: (c) => c.inviteContact({ email, name: 'Ivy Invitee' }),
          cli: ['contacts', 'invite', '--email', email, '--name', 'Ivy Invitee'],
          mcp: ['invite_contact', { email, name: 'Ivy Invitee' }],
        };
      },
      (contact) => ({
        status: contact.status,
        name: contact.counterparty_name ?? null,
        accept: /agent-contacts\?accept=/.test(contact.accept_url),
      }),
    );
    for (const [verb, tool, method] of [
      ['accept', 'accept_offer', 'acceptOffer'],
      ['decline', 'decline_offer', 'declineOffer'],
    ] as const)
      await row(
        `${tool} (missing)`,
        agent,
        fixed({
          name: tool,
          rest: rest('POST', `/offers/ofr_doesnotexist/${verb}`, {}),
          sdk: (c) => c[method]('ofr_doesnotexist'),
          cli: ['offers', verb, 'ofr_doesnotexist'],
          mcp: [tool, { offer_id: 'ofr_doesnotexist' }],
        }),
        (value) => value,
      );
  });

  it('Drive and transfers: upload_asset, list_drive, create, offer, get, list, claim, accept, and another principal’s transfer', async () => {
    const uploads = await row(
      'upload_asset',
      agent,
      fixed({
        name: 'upload_asset',
        rest: async (key) => {
          const reply = await fetch(`${stack.url}/v1/assets?filename=parity.pdf`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/pdf' },
            body: pdf.bytes,
          });
          return restOutcome({ status: reply.status, body: await reply.json() });
        },
        sdk: (c) => c.uploadAsset({ bytes: pdf.bytes, filename: 'parity.pdf' }),
        cli: ['assets', 'upload', pdf.file],
        mcp: ['upload_asset', { content_base64: pdf.bytes.toString('base64'), filename: 'parity.pdf' }],
      }),
      (value) => {
        const file = Array.isArray(value) ? value[0] : value; // the CLI answers the list of what it uploaded
        return { name: file.name, kind: file.kind, size: file.size, sha256: file.sha256 };
      },
    );
    assert.equal((uploads.REST as { size: number }).size, pdf.bytes.length);
    const driveId = (
      await call(stack.url, 'GET', '/v1/drive?limit=1', {
        key: agent.key,
      })
    ).body.data[0].drive_file_id as string;
    await row(
      'list_drive',
      agent,
      fixed({
        name: 'list_drive',
        rest: rest('GET', '/drive?limit=100'),
        sdk: (c) => c.listDrive({ limit: 100 }),
        cli: ['drive', 'list', '--limit', '100'],
        mcp: ['list_drive', { limit: 100 }],
      }),
      (list) => list.data.map((file: { drive_file_id: string }) => file.drive_file_id).sort(),
    );

    const created = new Map<SurfaceName, { transfer_id: string }>();
    const createOf = (mode: 'share' | 'accept') => async (surface: SurfaceName) => {
      const recipient = { name: 'Rae Recipient', email: `rae-${mode}-${surface.replace(/\W/g, '').toLowerCase()}@example.test` };
      const body = {
        name: `Parity ${mode}`,
        drive_file_ids: [driveId],
        recipients: [recipient],
        ...(mode === 'accept' ? { requires_acceptance: true } : {}),
      };
      const operation: Operation = {
        name: 'create_transfer',
        rest: async (key) => {
          const outcome = await rest('POST', '/transfers', body)(key);
          if (outcome.ok) created.set(surface, outcome.value);
          return outcome;
        },
        sdk: async (c) => {
          const transfer = await c.createTransfer(body);
          created.set(surface, transfer);
          return transfer;
        },
        cli: [
          'transfers',
          'create',
          '--name',
          body.name,
          '--file',
          driveId,
          '--recipient',
          `${recipient.name} <${recipient.email}>`,
          ...(mode === 'accept' ? ['--accept'] : []),
        ],
        mcp: ['create_transfer', body],
      };
      return operation;
    };
    const transferShape = (transfer: any) => ({
      mode: transfer.mode,
      status: transfer.status,
      files: transfer.files?.map((file: { sha256: string }) => file.sha256),
      recipients: transfer.recipients?.length,
    });
    // The CLI and MCP answers carry the created transfer too; their ids are picked from the answers below.
    const ids = async (mode: 'share' | 'accept') => {
      const list = await call(stack.url, 'GET', '/v1/transfers?direction=sent&limit=100', { key: agent.key });
      return (list.body.data as Array<{ transfer_id: string; name: string; status: string }>)
        .filter((transfer) => transfer.name === `Parity ${mode}` && transfer.status === 'created')
        .map((transfer) => transfer.transfer_id);
    };
    await row('create_transfer (share)', agent, createOf('share'), transferShape);
    const shareIds = await ids('share');
    assert.equal(shareIds.length, SURFACES.length, 'one transfer per surface');
    const perSurface = new Map(SURFACES.map((surface, i) => [surface, shareIds[i]]));

    const tokens = new Map<SurfaceName, string>();
    const offered = await row(
      'offer_transfer',
      agent,
      async (surface) => {
        const id = perSurface.get(surface)!;
        return {
          name: 'offer_transfer',
          rest: rest('POST', `/transfers/${id}/offer`, { confirm: true }),
          sdk: (c) => c.offerTransfer(id, true),
          cli: ['transfers', 'offer', id],
          mcp: ['offer_transfer', { transfer_id: id }],
        };
      },
      (value) => {
        tokens.set([...SURFACES][tokens.size], value.recipients[0].token);
        return { status: value.status, tokens: value.recipients.map((r: { token: string }) => /^svcxfer_/.test(r.token)) };
      },
    );
    assert.deepEqual(offered.REST, { status: 'released', tokens: [true] });
    await row(
      'get_transfer',
      agent,
      async (surface) => {
        const id = perSurface.get(surface)!;
        return {
          name: 'get_transfer',
          rest: rest('GET', `/transfers/${id}`),
          sdk: (c) => c.getTransfer(id),
          cli: ['transfers', 'get', id],
          mcp: ['get_transfer', { transfer_id: id }],
        };
      },
      (transfer) => ({ ...transferShape(transfer), can_release: transfer.can_release }),
    );
    await row(
      'list_transfers',
      agent,
      fixed({
        name: 'list_transfers',
        rest: rest('GET', '/transfers?limit=100'),
        sdk: (c) => c.listTransfers({ limit: 100 }),
        cli: ['transfers', 'list', '--limit', '100'],
        mcp: ['list_transfers', { limit: 100 }],
      }),
      (list) => list.data.map((transfer: { transfer_id: string }) => transfer.transfer_id).sort(),
    );
    await row(
      'get_transfer (another principal’s)',
      stranger,
      fixed({
        name: 'get_transfer',
        rest: rest('GET', `/transfers/${shareIds[0]}`),
        sdk: (c) => c.getTransfer(shareIds[0]),
        cli: ['transfers', 'get', shareIds[0]],
        mcp: ['get_transfer', { transfer_id: shareIds[0] }],
      }),
      (value) => value,
    );
    await row(
      'claim_transfer (guest)',
      stranger,
      async (surface) => {
        const token = tokens.get(surface)!;
        return {
          name: 'claim_transfer',
          rest: rest('POST', '/transfers/claim', { token }),
          sdk: (c) => c.claimTransfer(token),
          cli: ['transfers', 'claim', token],
          mcp: ['claim_transfer', { token }],
        };
      },
      (claim) => Object.keys(claim).sort(),
    );
    await row(
      'claim_transfer (unknown token)',
      stranger,
      fixed({
        name: 'claim_transfer',
        rest: rest('POST', '/transfers/claim', { token: 'svcxfer_doesnotexist' }),
        sdk: (c) => c.claimTransfer('svcxfer_doesnotexist'),
        cli: ['transfers', 'claim', 'svcxfer_doesnotexist'],
        mcp: ['claim_transfer', { token: 'svcxfer_doesnotexist' }],
      }),
      (value) => value,
    );

    await row('create_transfer (accept-to-unlock)', agent, createOf('accept'), transferShape);
    const acceptIds = await ids('accept');
    const acceptTokens = new Map<SurfaceName, string>();
    for (const [i, surface] of SURFACES.entries()) {
      const reply = await call(stack.url, 'POST', `/v1/transfers/${acceptIds[i]}/offer`, { key: agent.key, body: { confirm: true } });
      assert.equal(reply.status, 200, reply.text);
      acceptTokens.set(surface, reply.body.recipients[0].token);
    }
    await row(
      'accept_transfer',
      stranger,
      async (surface) => {
        const token = acceptTokens.get(surface)!;
        return {
          name: 'accept_transfer',
          rest: rest('POST', '/transfers/accept', { token }),
          sdk: (c) => c.acceptTransfer(token),
          cli: ['transfers', 'accept', token],
          mcp: ['accept_transfer', { token }],
        };
      },
      (claim) => Object.keys(claim).sort(),
    );
    for (const id of acceptIds) {
      const transfer = await call(stack.url, 'GET', `/v1/transfers/${id}`, { key: agent.key });
      assert.equal(transfer.body.status, 'released', 'every surface’s accept released its transfer');
    }
  });
  it('the other tools: templates, create and send a document, contacts, propose, accept and decline offers, cancel, download, upload_file', async () => {
    const { nda } = await seedSamples(stack, agent);
    await row(
      'list_templates',
      agent,
      fixed({
        name: 'list_templates',
        rest: rest('GET', '/templates?limit=100'),
        sdk: (c) => c.listTemplates({ limit: 100 }),
        cli: ['templates', 'list', '--limit', '100'],
        mcp: ['list_templates', { limit: 100 }],
      }),
      (list) => list.data.map((template: { template_id: string }) => template.template_id).sort(),
    );
    const signers = [
      { name: 'Ann Able', email: 'ann-parity@example.test' },
      { name: 'Bob Baker', email: 'bob-parity@example.test' },
    ];
    const drafts = new Map<SurfaceName, string>();
    await row(
      'create_document',
      agent,
      async (surface) => {
        const body = { template_id: nda.id, name: `Parity draft ${surface}`, signers };
        const remember = (document: { document_id: string }) => {
          drafts.set(surface, document.document_id);
          return document;
        };
        return {
          name: 'create_document',
          rest: async (key) => {
            const outcome = await rest('POST', '/documents', body)(key);
            if (outcome.ok) remember(outcome.value);
            return outcome;
          },
          sdk: async (c) => remember(await c.createDocument(body)),
          cli: [
            'docs',
            'create',
            '--name',
            body.name,
            '--template',
            nda.id,
            ...signers.flatMap((signer) => ['--signer', `${signer.name} <${signer.email}>`]),
          ],
          mcp: ['create_document', body],
        };
      },
      (document) => ({ status: document.status, signers: document.signers.map((signer: { email: string }) => signer.email) }),
    );
    // The CLI's and MCP's drafts are found by name.
    const listed = await call(stack.url, 'GET', '/v1/documents?limit=100', { key: agent.key });
    for (const surface of SURFACES)
      drafts.set(surface, listed.body.data.find((document: { name: string }) => document.name === `Parity draft ${surface}`).document_id);
    await row(
      'send_document',
      agent,
      async (surface) => {
        const id = drafts.get(surface)!;
        return {
          name: 'send_document',
          rest: rest('POST', `/documents/${id}/send`, { confirm: true }),
          sdk: (c) => c.sendDocument(id),
          cli: ['docs', 'send', id],
          mcp: ['send_document', { document_id: id }],
        };
      },
      (document) => document.status,
    );

    // Offers between two principals with an active contact; the counterparty signs within its L2 mandate.
    const { account: other } = await mandatedAccount(stack, { level: 'L2', name: 'Otto Offeree' });
    const { fromContact } = await connect(stack, agent, other, { name: 'Otto Offeree' });
    await row(
      'list_contacts',
      agent,
      fixed({
        name: 'list_contacts',
        rest: rest('GET', '/contacts?limit=100'),
        sdk: (c) => c.listContacts({ limit: 100 }),
        cli: ['contacts', 'list', '--limit', '100'],
        mcp: ['list_contacts', { limit: 100 }],
      }),
      (list) => list.data.map((contact: { contact_id: string; status: string }) => `${contact.contact_id} ${contact.status}`).sort(),
    );
    const offerDocs = async (label: string) => {
      const documents = new Map<SurfaceName, string>();
      for (const surface of SURFACES)
        documents.set(
          surface,
          (await sentNda(stack, agent, nda, { name: 'Otto Offeree', email: other.email }, { name: `${label} ${surface}` })).document_id,
        );
      return documents;
    };
    const propose = async (documents: Map<SurfaceName, string>) => {
      await row(
        'propose_contract',
        agent,
        async (surface) => {
          const id = documents.get(surface)!;
          const body = { contact_id: fromContact, terms: 'Net 30' };
          return {
            name: 'propose_contract',
            rest: rest('POST', `/documents/${id}/offers`, body),
            sdk: (c) => c.proposeContract(id, body),
            cli: ['offers', 'propose', id, '--contact', fromContact, '--terms', 'Net 30'],
            mcp: ['propose_contract', { document_id: id, ...body }],
          };
        },
        (offer) => ({ status: offer.status, human: offer.human_signature_required, hashed: /^[0-9a-f]{64}$/.test(offer.pre_sign_hash) }),
      );
      const offers = new Map<SurfaceName, string>();
      const inbound = await call(stack.url, 'GET', '/v1/offers?direction=inbound&limit=100', { key: other.key });
      for (const surface of SURFACES)
        offers.set(
          surface,
          inbound.body.data.find((offer: { document_id: string }) => offer.document_id === documents.get(surface)).offer_id,
        );
      return offers;
    };
    const toAccept = await propose(await offerDocs('Parity offer'));
    await row(
      'get_offer',
      other,
      async (surface) => {
        const id = toAccept.get(surface)!;
        return {
          name: 'get_offer',
          rest: rest('GET', `/offers/${id}`),
          sdk: (c) => c.getOffer(id),
          cli: ['offers', 'get', id],
          mcp: ['get_offer', { offer_id: id }],
        };
      },
      (offer) => ({ status: offer.status, terms: offer.terms }),
    );
    await row(
      'list_offers',
      other,
      fixed({
        name: 'list_offers',
        rest: rest('GET', '/offers?direction=inbound&limit=100'),
        sdk: (c) => c.listOffers({ direction: 'inbound', limit: 100 }),
        cli: ['offers', 'list', '--direction', 'inbound', '--limit', '100'],
        mcp: ['list_offers', { direction: 'inbound', limit: 100 }],
      }),
      (list) => list.data.map((offer: { offer_id: string }) => offer.offer_id).sort(),
    );
    await row(
      'accept_offer (L2)',
      other,
      async (surface) => {
        const id = toAccept.get(surface)!;
        return {
          name: 'accept_offer',
          rest: rest('POST', `/offers/${id}/accept`, {}),
          sdk: (c) => c.acceptOffer(id),
          cli: ['offers', 'accept', id],
          mcp: ['accept_offer', { offer_id: id }],
        };
      },
      (offer) => ({ status: offer.status, level: offer.confirmation_level, hashed: /^[0-9a-f]{64}$/.test(offer.document_hash) }),
    );
    const toDecline = await propose(await offerDocs('Parity decline'));
    await row(
      'decline_offer',
      other,
      async (surface) => {
        const id = toDecline.get(surface)!;
        return {
          name: 'decline_offer',
          rest: rest('POST', `/offers/${id}/decline`, {}),
          sdk: (c) => c.declineOffer(id),
          cli: ['offers', 'decline', id],
          mcp: ['decline_offer', { offer_id: id }],
        };
      },
      (offer) => offer.status,
    );

    // Transfers: cancel one per surface; download a released one (MCP over HTTP answers URLs with the SHA-256).
    const upload = await fetch(`${stack.url}/v1/assets?filename=parity.pdf`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.key}`, 'content-type': 'application/pdf' },
      body: pdf.bytes,
    });
    const driveId = ((await upload.json()) as { drive_file_id: string }).drive_file_id;
    const transferOf = async (label: string, offer: boolean) => {
      const made = await call(stack.url, 'POST', '/v1/transfers', {
        key: agent.key,
        body: {
          name: label,
          drive_file_ids: [driveId],
          recipients: [{ name: 'Dee', email: `dee-${label.replace(/\W/g, '')}@example.test` }],
        },
      });
      if (!offer) return { id: made.body.transfer_id as string, token: '' };
      const offered = await call(stack.url, 'POST', `/v1/transfers/${made.body.transfer_id}/offer`, {
        key: agent.key,
        body: { confirm: true },
      });
      return { id: made.body.transfer_id as string, token: offered.body.recipients[0].token as string };
    };
    const cancels = new Map<SurfaceName, string>();
    for (const surface of SURFACES) cancels.set(surface, (await transferOf(`cancel ${surface}`, false)).id);
    await row(
      'cancel_transfer',
      agent,
      async (surface) => {
        const id = cancels.get(surface)!;
        return {
          name: 'cancel_transfer',
          rest: rest('POST', `/transfers/${id}/cancel`, {}),
          sdk: (c) => c.cancelTransfer(id),
          cli: ['transfers', 'cancel', id],
          mcp: ['cancel_transfer', { transfer_id: id }],
        };
      },
      (transfer) => transfer.status,
    );
    const released = await transferOf('download', true);
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-parity-download-'));
    await row(
      'download_transfer',
      stranger,
      async (surface) => ({
        name: 'download_transfer',
        rest: rest('POST', `/public/transfers/${released.token}/downloads`, {}),
        sdk: (c) => c.downloadTransfer(released.token, path.join(folder, 'sdk')),
        cli: ['transfers', 'download', released.token, '--out', path.join(folder, 'cli')],
        mcp: ['download_transfer', { token: released.token, ...(surface === 'MCP stdio' ? { directory: path.join(folder, 'mcp') } : {}) }],
      }),
      (value) => (Array.isArray(value) ? value : value.files).map((file: { sha256: string }) => file.sha256),
    );
    for (const saved of ['sdk', 'cli', 'mcp'])
      assert.ok(fs.readFileSync(path.join(folder, saved, 'parity.pdf')).equals(pdf.bytes), `${saved} wrote the same bytes`);

    await row(
      'upload_file (PDF)',
      agent,
      fixed({
        name: 'upload_file',
        rest: async (key) => {
          const reply = await fetch(`${stack.url}/v1/assets?filename=parity.pdf`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/pdf' },
            body: pdf.bytes,
          });
          return restOutcome({ status: reply.status, body: await reply.json() });
        },
        sdk: (c) => c.uploadAsset({ bytes: pdf.bytes, filename: 'parity.pdf' }),
        cli: ['assets', 'upload', pdf.file],
        mcp: ['upload_file', { content_base64: pdf.bytes.toString('base64'), filename: 'parity.pdf' }],
      }),
      (value) => {
        const file = Array.isArray(value) ? value[0] : value;
        return { kind: file.kind, sha256: file.sha256 };
      },
    );
  });

  it('verify_pdf: a completed PDF the service issued, and a file that is not a PDF', async () => {
    const completed = await completedPdf(stack, 'Parity verify');
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-parity-verify-'));
    const files = { signed: path.join(folder, 'signed.pdf'), text: path.join(folder, 'notes.txt') };
    fs.writeFileSync(files.signed, completed.pdf);
    const text = Buffer.from('not a PDF at all\n');
    fs.writeFileSync(files.text, text);
    const verify = (bytes: Buffer, file: string): Operation => ({
      name: 'verify_pdf',
      // No key: anyone may verify a PDF.
      rest: async () =>
        restOutcome(await call(stack.url, 'POST', '/v1/verify', { raw: bytes, headers: { 'content-type': 'application/pdf' } })),
      sdk: (c) => c.verifyPdf(bytes),
      cli: ['verify', file],
      mcp: ['verify_pdf', { content_base64: bytes.toString('base64') }],
    });
    const results = await row('verify_pdf', agent, fixed(verify(completed.pdf, files.signed)), (report) => ({
      valid: report.valid,
      issued: report.issued_by_this_service,
      document: report.document_id,
      revision: report.revision,
      sha256: report.sha256,
      signatures: report.signatures.map((signature: { kind: string; valid: boolean }) => [signature.kind, signature.valid]),
      signers: report.signers.map((signer: { email: string; how: string; level: string | null }) => [
        signer.email,
        signer.how,
        signer.level,
      ]),
    }));
    assert.equal((results.REST as { document: string }).document, completed.documentId);
    await row('verify_pdf (not a PDF)', agent, fixed(verify(text, files.text)), (value) => value);
    fs.rmSync(folder, { recursive: true, force: true });
  });
});
