// The signing load of a reliability run (worker-kill.test.ts): documents both principals' agents sign
// on the L2 path, sign-to-unlock packages released by their signatures, and the check that every apply
// landed exactly once whatever happened to the processes meanwhile.
import assert from 'node:assert/strict';
import { createTemplate } from '../../activities/templates/templates';
import { Apply, AuditEvent, DocumentRevision, Event, type Template } from '../../db/models';
import { buildSampleNda } from '../../lib/pdf/samples';
import { downloadPdf } from '../documents';
import type { Account } from '../factories';
import { zipOf } from '../files';
import { call } from '../http';
import type { Stack } from '../stack';

/** The NDA without its required text field: both roles are then filled by the stored appearance alone (L2). */
export async function l2Template(stack: Stack, author: Account): Promise<Template> {
  const sample = await buildSampleNda();
  return createTemplate(stack.deps, {
    tenantId: author.tenantId,
    pdf: sample.pdf,
    definition: { name: 'Reliability NDA', roles: sample.roles, widgets: sample.widgets.filter((w) => w.id !== 'receiving-title') },
    createdBy: 'test',
  });
}

/** `count` documents from `author` on `template`, sent to `signers` (its two roles). */
export async function sentDocuments(
  stack: Stack,
  template: Template,
  author: Account,
  signers: Array<{ name: string; email: string }>,
  count: number,
): Promise<string[]> {
  const documents: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const created = await call(stack.url, 'POST', '/v1/documents', {
      key: author.key,
      body: {
        template_id: template.id,
        name: `Reliability NDA ${index + 1}`,
        signers,
        send: true,
      },
    });
    assert.equal(created.status, 201, created.text);
    documents.push(created.body.document_id);
  }
  return documents;
}

/** One sign-to-unlock package on each of `documents`, offered: released once the document is signed. */
export async function unlockPackages(stack: Stack, author: Account, documents: string[], seed: number): Promise<string[]> {
  const transfers: string[] = [];
  for (const [index, documentId] of documents.entries()) {
    const upload = await call(stack.url, 'POST', `/v1/assets?filename=pack-${index}.zip`, {
      key: author.key,
      raw: zipOf([[`note-${index}.txt`, `package ${index} of seed ${seed}`]]),
      headers: { 'content-type': 'application/zip' },
    });
    assert.equal(upload.status, 201, upload.text);
    const created = await call(stack.url, 'POST', '/v1/transfers', {
      key: author.key,
      body: {
        name: `Unlock pack ${index + 1}`,
        drive_file_ids: [upload.body.drive_file_id],
        recipients: [{ email: `unlock-${index}-${seed}@example.test`, name: 'Una Unlock' }],
        document_id: documentId,
      },
    });
    assert.equal(created.status, 201, created.text);
    const offered = await call(stack.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, {
      key: author.key,
      body: { confirm: true },
    });
    assert.equal(offered.status, 200, offered.text);
    assert.equal(offered.body.can_release, false);
    transfers.push(created.body.transfer_id);
  }
  return transfers;
}

/**
 * Every apply on `documents` landed once: one applied row per signer, nothing rejected, one revision per
 * apply and then the certificate, one audit line each, document.signed and document.completed once to
 * each tenant concerned. Answers the sealed PDFs (each revision's and the download) for pdfsig.
 */
export async function signedOnce(stack: Stack, documents: string[], author: Account, counterpart: Account): Promise<Buffer[]> {
  const rows = await Apply.query(stack.deps.db).whereIn('document_id', documents);
  assert.equal(rows.length, documents.length * 2, 'one apply per signer: no call started a second one');
  assert.ok(
    rows.every((row) => row.status === 'applied'),
    'every apply applied',
  );
  assert.equal(new Set(rows.map((row) => row.signer_id)).size, documents.length * 2);
  const pdfs: Buffer[] = [];
  for (const documentId of documents) {
    const revisions = await DocumentRevision.query(stack.deps.db).where({ document_id: documentId }).orderBy('revision');
    assert.deepEqual(
      revisions.map((revision) => revision.kind),
      ['original', 'apply', 'apply', 'completion'],
      `${documentId}: one signed revision per signer, then the certificate`,
    );
    const applyIds = rows.filter((row) => row.document_id === documentId).map((row) => row.id);
    assert.deepEqual(
      revisions
        .filter((r) => r.kind === 'apply')
        .map((r) => r.apply_id)
        .sort(),
      applyIds.sort(),
    );
    const audit = await AuditEvent.query(stack.deps.db).where({ document_id: documentId });
    assert.equal(audit.filter((line) => line.action === 'document.signed').length, 2, `${documentId}: two signatures in the audit trail`);
    assert.equal(audit.filter((line) => line.action === 'document.completed').length, 1, `${documentId}: completed once`);
    const events = await Event.query(stack.deps.db).whereRaw(`data->>'document_id' = ?`, [documentId]);
    // document.signed goes to the sender's tenant for each apply, and to the counterpart's for theirs.
    const signed = events.filter((event) => event.event === 'document.signed').map((event) => `${event.tenant_id} ${event.data.signer_id}`);
    assert.equal(signed.length, 3, `${documentId}: document.signed for each apply, to each tenant concerned`);
    assert.equal(new Set(signed).size, 3, `${documentId}: no document.signed twice`);
    const completed = events.filter((event) => event.event === 'document.completed').map((event) => event.tenant_id);
    assert.deepEqual(
      completed.sort(),
      [author.tenantId, counterpart.tenantId].sort(),
      `${documentId}: document.completed once to each tenant`,
    );
    for (const revision of revisions.slice(1)) pdfs.push(await stack.deps.blobs.get(revision.sealed_sha256));
    pdfs.push(await downloadPdf(stack, author.key, documentId));
  }
  return pdfs;
}
