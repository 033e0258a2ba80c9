import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { connect } from '../test/contacts';
import { seedSamples, sentNda } from '../test/documents';
import {
  agent,
  fixed,
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
import { mandatedAccount } from '../test/principal';

// Contacts, offers and the other tools on every surface (the harness: test/fixtures/parity.ts).
describe('every surface does the same for the same operation', () => {
  useParityStack();

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
    await row(
      'remind_signers',
      agent,
      async (surface) => {
        const id = drafts.get(surface)!;
        return {
          name: 'remind_signers',
          rest: rest('POST', `/documents/${id}/remind`),
          sdk: (c) => c.remindSigners(id),
          cli: ['docs', 'remind', id],
          mcp: ['remind_signers', { document_id: id }],
        };
      },
      (result) => result.reminded.length,
    );
    await row(
      'void_document',
      agent,
      async (surface) => {
        const id = drafts.get(surface)!;
        return {
          name: 'void_document',
          rest: rest('POST', `/documents/${id}/void`, { reason: 'Parity' }),
          sdk: (c) => c.voidDocument(id, 'Parity'),
          cli: ['docs', 'void', id, '--reason', 'Parity'],
          mcp: ['void_document', { document_id: id, reason: 'Parity' }],
        };
      },
      (document) => `${document.status} ${document.void_reason}`,
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
});
