// Twenty hostile verifies from twenty addresses (fifty signatures over an 8 MiB file; a hundred
// thousand objects with fifteen revisions after a signature) while a tenant creates and L2-signs
// documents: every tenant request succeeds, every verify is answered (a verdict, 422, or a refusal
// with Retry-After the client honours), and the API process serving both (`npm run api`, a process of
// its own; the worker is this one's) stays under a stated RSS bound, read from the kernel's peak.
// The latencies are figures for the benchmark (npm run bench -- verify-load), not asserted here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Template } from '../../db/models';
import { seedSamples, sentNda } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { giveAppearance, grantMandate, principalOf } from '../../test/principal';
import { ServiceProcess } from '../../test/reliability/replica-helpers';
import { type Stack, startStack } from '../../test/stack';
import { manyRevisions, manySignatures } from '../../test/verify-corpus/hostile';
import { type CorpusKeys, corpusKeys } from '../../test/verify-corpus/keys';
import { waitFor } from '../../test/wait';

/**
 * The API process's peak RSS bound with the default settings, whatever the number of strangers: an
 * idle API (about 350 MiB), its two tenant PDF threads while they seal (about 250 MiB), the one verify
 * thread at its heap limit (SVC_PDF_MEMORY_MB, 512 MiB) with what it may hold outside it (the file and
 * at most 64 MiB decoded), four admitted uploads of at most 25 MiB, and the garbage of refused uploads
 * read and dropped. Measured here: about 1.1 GiB.
 */
const RSS_BOUND_BYTES = 1536 * 1024 * 1024;
const MIB = 1024 * 1024;

describe('twenty hostile verifies while a tenant creates and L2-signs documents', () => {
  let stack: Stack;
  let keys: CorpusKeys;
  let hostile: Buffer[];
  let account: Account;
  let nda: Template;
  let api: ServiceProcess;

  before(async () => {
    stack = await startStack();
    // The API as `npm run api` runs it, on the stack's database, task queue and data dir (blobs, seal).
    api = await ServiceProcess.start('api', 'api', { ...stack.env, SVC_TRUST_PROXY: 'true', LOG_LEVEL: 'warn' }, '', {
      dataDir: stack.env.SVC_DATA_DIR,
    });
    await waitFor(
      'the API process to answer /v1/health',
      async () => (await call(api.url, 'GET', '/v1/health').catch(() => undefined))?.status,
      90_000,
    );
    keys = await corpusKeys();
    hostile = [
      await manySignatures(keys.foreign, { count: 50, paddingBytes: 8 * MIB }),
      await manyRevisions(keys.foreign, { objects: 100_000, revisions: 15 }),
    ];
    account = await createAccount(stack.deps.db);
    await giveAppearance(stack, account);
    await grantMandate(stack, account, { level: 'L2' });
    ({ nda } = await seedSamples(stack, account));
  });
  after(async () => {
    await api?.stop();
    await keys?.close();
    await stack?.close();
  });

  /** The API process's resident size now and at its peak (the kernel's VmRSS and VmHWM). */
  const memory = () => {
    const status = fs.readFileSync(`/proc/${api.pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
    return { rss: kib('VmRSS'), peak: kib('VmHWM') };
  };

  /** One stranger's verify, sent again after each refusal's Retry-After, until it is answered. */
  async function stranger(index: number): Promise<{ status: number; verdict?: string; refusals: number }> {
    const address = `198.51.100.${index + 1}`;
    for (let refusals = 0; ; refusals++) {
      const reply = await call(api.url, 'POST', '/v1/verify', {
        raw: hostile[index % hostile.length],
        headers: { 'content-type': 'application/pdf', 'x-forwarded-for': address },
      });
      if (reply.status !== 429 && reply.status !== 503) return { status: reply.status, verdict: reply.body?.verdict, refusals };
      assert.ok(Number(reply.headers.get('retry-after')) >= 1, 'a refusal says when to come back');
      if (refusals > 100) throw new Error(`${address} was refused ${refusals} times`);
      await new Promise((resolve) => setTimeout(resolve, Number(reply.headers.get('retry-after')) * 1000));
    }
  }

  it('answers every tenant request, answers every verify (never valid, never a 500), and the API process stays under the RSS bound', async () => {
    const idle = memory();
    const principal = await principalOf(stack, account);
    const tenant: number[] = [];
    try {
      const strangers = Promise.all(Array.from({ length: 20 }, (_, index) => stranger(index)));
      // The tenant's work meanwhile: revision 0 sealed on the tenant's PDF threads, then an apply by the worker.
      for (let round = 0; round < 4; round++) {
        const document = await sentNda({ ...stack, url: api.url }, account, nda, principal, { name: `Under load ${round}` });
        tenant.push(201);
        const signed = await call(api.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
          key: account.key,
          body: { reason: 'As agreed' },
        });
        tenant.push(signed.status);
      }
      const answers = await strangers;
      assert.deepEqual(
        answers.map((answer) => answer.status).filter((status) => status !== 200 && status !== 422),
        [],
        'each verify got a verdict or 422',
      );
      for (const answer of answers) if (answer.status === 200) assert.notEqual(answer.verdict, 'valid');
      assert.ok(
        answers.some((answer) => answer.refusals > 0),
        'the lane was full at times: some strangers were told to come back',
      );
    } finally {
      // The figures, whatever happened: the kernel kept the peak.
      const { peak } = memory();
      console.log(
        `API process RSS: idle ${(idle.rss / MIB).toFixed(0)} MiB, peak ${(peak / MIB).toFixed(0)} MiB (bound ${(RSS_BOUND_BYTES / MIB).toFixed(0)} MiB)`,
      );
    }
    assert.ok(
      tenant.every((status) => status === 201 || status === 200 || status === 202),
      `tenant requests: ${tenant.join(', ')}`,
    );
    const { peak } = memory();
    assert.ok(peak < RSS_BOUND_BYTES, `the API process's peak RSS ${(peak / MIB).toFixed(0)} MiB\n${api.output().slice(-2000)}`);
  });
});
