import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Document } from '../db/models';
import { seedSamples, sentNda } from '../test/documents';
import type { Account } from '../test/factories';
import {
  agent,
  fixed,
  l1,
  type Operation,
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
import { completedPdf } from '../test/verify';

// Reading, signing and verifying documents on every surface (the harness: test/fixtures/parity.ts).
describe('every surface does the same for the same operation', () => {
  useParityStack();

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
      'get_document_audit',
      agent,
      fixed({
        name: 'get_document_audit',
        rest: rest('GET', `/documents/${mine.document_id}/audit?limit=100`),
        sdk: (c) => c.getDocumentAudit(mine.document_id, { limit: 100 }),
        cli: ['docs', 'audit', mine.document_id, '--limit', '100'],
        mcp: ['get_document_audit', { document_id: mine.document_id, limit: 100 }],
      }),
      // The steps up to the send: the invitations' mail lines arrive in their own time.
      (trail) => trail.data.map((line: { action: string }) => line.action).filter((action: string) => action.startsWith('document.')),
    );
    await row(
      'get_document_audit (another principal’s)',
      stranger,
      fixed({
        name: 'get_document_audit',
        rest: rest('GET', `/documents/${mine.document_id}/audit`),
        sdk: (c) => c.getDocumentAudit(mine.document_id),
        cli: ['docs', 'audit', mine.document_id],
        mcp: ['get_document_audit', { document_id: mine.document_id }],
      }),
      (value) => value,
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

  it('create_document with values: every surface prefills the same fields by name, and refuses a wrong one naming it', async () => {
    const { nda } = await seedSamples(stack, agent);
    const signers = [
      { name: 'Ann Able', email: 'ann-values@example.test' },
      { name: 'Bob Baker', email: 'bob-values@example.test' },
    ];
    const create = (values: Record<string, string | boolean>, name: string): Operation => ({
      name: 'create_document',
      rest: rest('POST', '/documents', { template_id: nda.id, name, signers, values }),
      sdk: (c) => c.createDocument({ template_id: nda.id, name, signers, values }),
      cli: [
        'docs',
        'create',
        '--name',
        name,
        '--template',
        nda.id,
        ...signers.flatMap((signer) => ['--signer', `${signer.name} <${signer.email}>`]),
        ...Object.entries(values).flatMap(([field, value]) => ['--value', `${field}=${value}`]),
      ],
      mcp: ['create_document', { template_id: nda.id, name, signers, values }],
    });
    const made = await row(
      'create_document (values)',
      agent,
      fixed(create({ 'receiving-title': 'Parity', 'receiving-copy': true }, 'Parity values')),
      (document) => document.status,
    );
    assert.ok(Object.values(made).every((status) => status === 'draft'));
    const drafts = await Document.query(stack.deps.db).where({ tenant_id: agent.tenantId, name: 'Parity values' });
    assert.equal(drafts.length, Object.keys(made).length);
    for (const draft of drafts)
      assert.deepEqual(
        Object.fromEntries(draft.widgets.filter((widget) => widget.prefill).map((widget) => [widget.id, widget.prefill!.value])),
        { 'receiving-title': 'Parity', 'receiving-copy': true },
      );
    await row('create_document (a wrong value)', agent, fixed(create({ 'receiving-term': 'forever' }, 'Parity wrong')), (value) => value);
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
