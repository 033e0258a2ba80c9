import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  agent,
  fixed,
  type Operation,
  pdf,
  rest,
  restOutcome,
  row,
  SURFACES,
  type SurfaceName,
  stack,
  stranger,
  useParityStack,
} from '../test/fixtures/parity';
import { call } from '../test/http';

// Drive and transfers on every surface (the harness: test/fixtures/parity.ts).
describe('every surface does the same for the same operation', () => {
  useParityStack();

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
});
