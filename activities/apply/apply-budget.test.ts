// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Apply, DocumentRevision, Event, type Principal, type Template } from '../../db/models';
import { loadConfig } from '../../lib/config/config';
import { loadSealCertificate } from '../../lib/pdf/seal-certificate';
import { closeServices, createServices } from '../../runtime/services';
import { applyRuns } from '../../test/applies';
import { downloadPdf, latestMail, seedSamples, sentNda } from '../../test/documents';
import type { Account } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { pdfsig } from '../../test/pdf-tools';
import { mandatedAccount } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';
import { type RunningWorker, startWorker } from '../../worker/worker';
import type { Services } from '../services';
import { l2AppliesToday } from './cap';

describe('an apply always ends: bounded attempts, typed rejections, a seal that loads again', () => {
  let stack: Stack;
  let workerDeps: Services;
  let worker: RunningWorker;
  let p12Path: string;
  let goodP12: Buffer;
  let account: Account;
  let principal: Principal;
  let nda: Template;

  before(async () => {
    // Three attempts, a tenth of a second apart: a failing apply ends within a second or two.
    stack = await startStack({
      worker: false,
      env: { SVC_APPLY_WAIT_MS: '60000', SVC_APPLY_ATTEMPTS: '3', SVC_RETRY_INITIAL_MS: '100', SVC_RETRY_MAX_MS: '200' },
    });
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-seal-'));
    const good = await loadSealCertificate({ dataDir: scratch });
    goodP12 = good.p12;
    p12Path = path.join(scratch, 'worker-seal.p12');
    await fs.writeFile(p12Path, 'not a PKCS#12 file');
    // The worker seals with SVC_SIGNING_P12, which is broken until a test mends it.
    workerDeps = createServices(loadConfig({ ...stack.env, SVC_SIGNING_P12: p12Path, SVC_SIGNING_P12_PASSPHRASE: good.passphrase }), {
      log: stack.deps.log,
      sharedDb: stack.sharedDb,
    });
    worker = await startWorker(workerDeps);
    ({ account, principal } = await mandatedAccount(stack, { level: 'L2', name: 'Bea Budget' }));
    ({ nda } = await seedSamples(stack, account));
  });
  after(async () => {
    await worker.stop();
    await closeServices(workerDeps);
    await stack.close();
  });

  const ownNda = async (): Promise<string> =>
    (await sentNda(stack, account, nda, principal, { name: 'Budget NDA', other: { name: 'Cy' } })).document_id;
  const sign = (documentId: string) =>
    call(stack.url, 'POST', `/v1/documents/${documentId}/sign`, { key: account.key, body: { reason: 'budget' } });
  const mandateId = async () => (await Apply.query(stack.deps.db).whereNotNull('mandate_id').first())?.mandate_id;

  it('loads a seal certificate again after a failed load instead of caching the failure', async () => {
    const documentId = await ownNda();
    assertErrorCode(await sign(documentId), 502, 'sign_failed');
    await fs.writeFile(p12Path, goodP12);
    const retried = await sign(documentId);
    assert.equal(retried.status, 200, retried.text);
    assert.ok((await pdfsig(await downloadPdf(stack, account.key, documentId))).valid);
  });

  it('ends an apply that keeps failing as rejected with sign_failed after its attempts, gives its L2 slot back, and lets the signer retry', async () => {
    const documentId = await ownNda();
    const slotsBefore = await l2AppliesToday(stack.deps.db, (await mandateId())!);
    // The document's current PDF goes missing from the blob store: every attempt fails the same way.
    const revision = (await DocumentRevision.query(stack.deps.db).findById([documentId, 0]))!;
    const blob = path.join(stack.config.dataDir, 'blobs', revision.unsealed_sha256.slice(0, 2), revision.unsealed_sha256);
    await fs.rename(blob, `${blob}.away`);
    try {
      const failed = await sign(documentId);
      assertErrorCode(failed, 502, 'sign_failed');
      assert.doesNotMatch(failed.body.error.message, /ENOENT|blobs/, 'no internals in the answer');
    } finally {
      await fs.rename(`${blob}.away`, blob);
    }
    const rejected = await Apply.query(stack.deps.db).where({ document_id: documentId }).first();
    assert.equal(rejected?.status, 'rejected');
    assert.equal(rejected?.error_code, 'sign_failed');
    assert.equal(await l2AppliesToday(stack.deps.db, rejected!.mandate_id!), slotsBefore, 'the slot is given back');
    const retried = await sign(documentId);
    assert.equal(retried.status, 200, retried.text);
  });

  it('gives the L2 slot back when the apply is rejected after the caller stopped waiting (202)', async () => {
    const documentId = await ownNda();
    const mandate = (await mandateId())!;
    const slotsBefore = await l2AppliesToday(stack.deps.db, mandate);
    const impatient = await stack.withEnv({ SVC_APPLY_WAIT_MS: '0' });
    const revision = (await DocumentRevision.query(stack.deps.db).findById([documentId, 0]))!;
    const blob = path.join(stack.config.dataDir, 'blobs', revision.unsealed_sha256.slice(0, 2), revision.unsealed_sha256);
    await fs.rename(blob, `${blob}.away`);
    try {
      const accepted = await call(impatient.url, 'POST', `/v1/documents/${documentId}/sign`, {
        key: account.key,
        body: { reason: 'no wait' },
      });
      assert.equal(accepted.status, 202, accepted.text);
      assert.equal(accepted.body.status, 'processing');
      assert.equal(await l2AppliesToday(stack.deps.db, mandate), slotsBefore + 1, 'the slot is held while the apply runs');
      // The agent that got the 202 learns the outcome: the document shows the apply, then why it was rejected.
      const ownRow = (document: { signers: Array<{ email: string; apply: unknown }> }) =>
        document.signers.find((signer) => signer.email === principal.email)!.apply as { status: string; error: { code: string } | null };
      const during = await call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: account.key });
      assert.ok(['processing', 'rejected'].includes(ownRow(during.body).status), during.text);
      const rejected = await waitFor('the apply to end rejected', async () => {
        const seen = await call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: account.key });
        return ownRow(seen.body).status === 'rejected' && ownRow(seen.body);
      });
      assert.equal(rejected.error?.code, 'sign_failed');
    } finally {
      await fs.rename(`${blob}.away`, blob);
      await impatient.close();
    }
    assert.equal(await l2AppliesToday(stack.deps.db, mandate), slotsBefore, 'the rejection gave the slot back');
    // …and by its webhooks (document.sign_failed, written with the rejection), and the principal by mail.
    const event = await Event.query(stack.deps.db)
      .where({ tenant_id: account.tenantId, event: 'document.sign_failed' })
      .orderBy('created_at', 'desc')
      .first();
    assert.equal(event?.data.document_id, documentId);
    assert.equal(event?.data.code, 'sign_failed');
    assert.equal(event?.data.mandate_id, mandate);
    assert.equal(event?.data.confirmation_level, 'l2');
    const mail = await waitFor('the principal to be told', async () => {
      const latest = await latestMail(stack, principal.email, 'apply-rejected');
      return latest?.text.includes(documentId) && latest;
    });
    assert.match(mail.text, new RegExp(`could not be applied to "Budget NDA" \\(${documentId}\\) under your L2 mandate`));
    assert.match(mail.text, /Nothing was signed/);
  });

  it('fails a rule’s refusal at once as a non-retryable failure typed by its code, and later applies still run', async () => {
    const documentId = await ownNda();
    await stack.deps.workflows.apply({ id: 'apl_doesnotexist00000000', document_id: documentId, tenant_id: 'ten_unknown' }, {});
    const signed = await sign(documentId);
    assert.equal(signed.status, 200, signed.text);
    // The apply runs as a local activity: its marker in the history records the failure and the attempt that ended it.
    const failures = (await applyRuns(stack, documentId)).filter((run) => run.failure);
    assert.equal(failures.length, 1, 'one failed run');
    assert.equal(failures[0].attempt, 1, 'one attempt, no retries');
    const failure = failures[0].failure!;
    assert.equal(failure.applicationFailureInfo?.type, 'not_found');
    assert.equal(failure.applicationFailureInfo?.nonRetryable, true);
    // The rule's own words, in the history where an operator reads them.
    assert.equal(failure.message, 'No apply apl_doesnotexist00000000.');
  });
});
