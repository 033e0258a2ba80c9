import { createKey, revokeKey } from '../../activities/accounts/accounts';
import { startGrant } from '../../activities/mandates/mandates';
import { createTemplate } from '../../activities/templates/templates';
import { mandateDeps } from '../../api/app/pages/common';
import type { Template } from '../../db/models';
import { buildSampleNda } from '../../lib/pdf/samples';
import { SignerSession, seedSamples } from '../documents';
import { type Account, createAccount } from '../factories';
import { call } from '../http';
import { blankPng, signaturePng } from '../images';
import { AppClient, giveAppearance, grantMandate, principalOf } from '../principal';
import type { Stack } from '../stack';

/** Real resources for the fuzzer to aim at, so its requests get past auth and lookups into the handlers. */
export interface FuzzMaterial {
  appPath: string;
  origin: string;
  nda: Template;
  keys: { business: string; l1: string; free: string; revoked: string };
  /** Resource ids of every kind: the fuzzing key's own and another tenant's. */
  ids: string[];
  keyIds: string[];
  mandateIds: string[];
  signerIds: string[];
  widgetIds: string[];
  emails: string[];
  /** Sign links (verified signer first), confirm links, a download: the token parts of their URLs. */
  signTokens: string[];
  confirmTokens: string[];
  download: { file: string; token: string };
  /** App sessions of the L1 principal: `main` stays signed in; `spare` is the one the fuzzer may sign out. */
  app: { main: { cookie: string; csrf: string }; spare: { cookie: string; csrf: string } };
  signer: { id: string; cookie: string };
  images: { png: Buffer; bomb: Buffer; pdf: Buffer };
}

async function formToken(client: AppClient): Promise<string> {
  return /name="_csrf" value="([^"]*)"/.exec(await (await client.get(`${client.appPath}/keys`)).text())![1];
}

function lastSegment(url: string): string {
  return new URL(url).pathname.split('/').pop()!;
}

/** A PNG whose header claims 100000 × 100000 pixels (the image-bomb check reads the header alone). */
function bombPng(): Buffer {
  const png = Buffer.from(blankPng(8, 8));
  png.writeUInt32BE(100_000, 16);
  png.writeUInt32BE(100_000, 20);
  return png;
}

export async function buildMaterial(stack: Stack): Promise<FuzzMaterial> {
  const { db } = stack.deps;
  const ok = <T extends { status: number; text: string }>(reply: T, what: string): T => {
    if (reply.status >= 300) throw new Error(`${what}: ${reply.status} ${reply.text}`);
    return reply;
  };
  // The fuzzing key: Business plan, stored appearance, an L2 mandate.
  const main = await createAccount(db, { name: 'Maya Main', label: 'fuzz agent' });
  const { nda } = await seedSamples(stack, main);
  await giveAppearance(stack, main);
  const mainMandate = await grantMandate(stack, main, { level: 'L2' });
  // Another tenant: the principal signed in to the app, with an L1 key and the resources foreign to the fuzzing key.
  const other: Account = await createAccount(db, { name: 'Lena One', label: 'l1 agent' });
  await giveAppearance(stack, other);
  const l1Mandate = await grantMandate(stack, other, { level: 'L1' });
  const spareKey = await createKey(db, { principalId: other.principalId, label: 'spare' });
  const spareMandate = await grantMandate(stack, { ...other, keyId: spareKey.apiKey.id }, { level: 'L2', name: 'spare' });
  const otherPrincipal = await principalOf(stack, other);
  const pending = await startGrant(
    mandateDeps(stack.deps),
    otherPrincipal,
    { apiKeyId: spareKey.apiKey.id, name: 'pending', level: 'L1', mode: 'both', consentAccepted: true },
    { type: 'principal', id: other.principalId, ip: '127.0.0.1' },
  );
  const sample = await buildSampleNda();
  const foreignTemplate = await createTemplate(stack.deps, {
    tenantId: other.tenantId,
    pdf: sample.pdf,
    definition: { name: sample.name, roles: sample.roles, widgets: sample.widgets },
    createdBy: 'test',
  });
  const free = await createAccount(db, { plan: 'free' });
  const revoked = await createAccount(db);
  const mainPrincipal = await principalOf(stack, main);

  const create = async (key: string, templateId: string, signers: Array<{ name: string; email: string }>, send: boolean) =>
    ok(
      await call(stack.url, 'POST', '/v1/documents', { key, body: { template_id: templateId, name: 'Fuzz NDA', signers, send } }),
      'create document',
    ).body;
  // L2 target: the fuzzing key's principal signs it.
  const toSign = await create(
    main.key,
    nda.id,
    [
      { name: mainPrincipal.name, email: mainPrincipal.email },
      { name: 'Ext One', email: 'ext1@example.test' },
    ],
    true,
  );
  // Inbound to the app's principal, with an open L1 sign request: its confirm link.
  const inbound = await create(
    main.key,
    nda.id,
    [
      { name: otherPrincipal.name, email: otherPrincipal.email },
      { name: 'Ext Two', email: 'ext2@example.test' },
    ],
    true,
  );
  const request = ok(
    await call(stack.url, 'POST', `/v1/documents/${inbound.document_id}/sign-requests`, { key: other.key, body: { reason: 'fuzz' } }),
    'sign request',
  ).body;
  const ownRequest = ok(
    await call(stack.url, 'POST', `/v1/documents/${toSign.document_id}/sign-requests`, { key: main.key, body: { reason: 'fuzz' } }),
    'own sign request',
  ).body;
  // A browser signer's document, and their verified session on its sign page.
  const forSigner = await create(
    main.key,
    nda.id,
    [
      { name: 'Ext Three', email: 'ext3@example.test' },
      { name: 'Ext Four', email: 'ext4@example.test' },
    ],
    true,
  );
  const session = await new SignerSession(stack, forSigner.signers[0].sign_url, 'ext3@example.test').verify();
  const draft = await create(main.key, nda.id, [{ name: 'Ext Five', email: 'ext5@example.test' }], false);
  const foreignDraft = await create(other.key, foreignTemplate.id, [{ name: 'Ext Six', email: 'ext6@example.test' }], false);
  const webhook = async (key: string) =>
    ok(
      await call(stack.url, 'POST', '/v1/webhooks', { key, body: { url: 'https://127.0.0.1:9/hook', events: ['transfer.released'] } }),
      'webhook',
    ).body.webhook_id;
  const webhooks = [await webhook(main.key), await webhook(other.key)];
  const download = ok(await call(stack.url, 'GET', `/v1/documents/${toSign.document_id}/download`, { key: main.key }), 'download').body;

  const app = await new AppClient(stack, other.email).login();
  const spare = await new AppClient(stack, other.email).login();
  await revokeKey(db, revoked.keyId);

  const documents = [toSign, inbound, forSigner, draft, foreignDraft];
  const signerIds = documents.flatMap((document) => document.signers.map((signer: { signer_id: string }) => signer.signer_id));
  const downloadUrl = new URL(download.url);
  return {
    appPath: app.appPath,
    origin: new URL(stack.url).origin,
    nda,
    keys: { business: main.key, l1: other.key, free: free.key, revoked: revoked.key },
    ids: [
      ...documents.map((document) => document.document_id),
      nda.id,
      foreignTemplate.id,
      request.sign_request_id,
      ownRequest.sign_request_id,
      mainMandate.id,
      l1Mandate.id,
      spareMandate.id,
      pending.id,
      ...webhooks,
      main.keyId,
      other.keyId,
      spareKey.apiKey.id,
      main.principalId,
      other.principalId,
      main.tenantId,
      other.tenantId,
      ...signerIds.slice(0, 3),
    ],
    keyIds: [spareKey.apiKey.id, main.keyId, free.keyId, revoked.keyId],
    mandateIds: [spareMandate.id, pending.id, mainMandate.id, l1Mandate.id],
    signerIds,
    widgetIds: nda.widgets.map((widget) => widget.id),
    emails: [
      mainPrincipal.email,
      otherPrincipal.email,
      free.email,
      'ext1@example.test',
      'ext3@example.test',
      'new-signer@example.test',
      'Upper.Case@Example.TEST',
    ],
    signTokens: [
      lastSegment(forSigner.signers[0].sign_url),
      lastSegment(toSign.signers[1].sign_url),
      ...draft.signers.map((signer: { sign_url: string }) => lastSegment(signer.sign_url)),
    ],
    confirmTokens: [lastSegment(request.confirm_url), lastSegment(ownRequest.confirm_url)],
    download: { file: downloadUrl.pathname.split('/').pop()!, token: downloadUrl.searchParams.get('token')! },
    app: { main: { cookie: app.cookie, csrf: await formToken(app) }, spare: { cookie: spare.cookie, csrf: await formToken(spare) } },
    signer: { id: forSigner.signers[0].signer_id, cookie: session.cookie },
    images: { png: signaturePng(), bomb: bombPng(), pdf: Buffer.from(sample.pdf) },
  };
}
