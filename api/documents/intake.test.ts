import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { DocumentRevision } from '../../db/models';
import { deeplyNested, hostileFeatures, layered, manyPages, objectStreamBomb } from '../../lib/pdf/intake/hostile-pdfs';
import { buildSampleNda } from '../../lib/pdf/samples';
import { type Account, createAccount } from '../../test/factories';
import { call, type Reply } from '../../test/http';
import { run, tempDir } from '../../test/pdf-tools';
import { type Stack, startStack } from '../../test/stack';

// Every PDF that enters through the API (a Drive upload used for a document, a template upload)
// passes the safe intake on a PDF thread: hostile files are refused within seconds while other
// requests are served, and active content never reaches revision 0.

describe('the safe intake of uploaded PDFs, through the API', () => {
  let stack: Stack;
  let owner: Account;
  let widgets: unknown[];

  before(async () => {
    stack = await startStack();
    owner = await createAccount(stack.deps.db);
    const nda = await buildSampleNda();
    // One signer role, on the first page: fits any of the files below.
    widgets = nda.widgets.filter((widget) => widget.role === 'Disclosing Party' && widget.type === 'signature');
  });
  after(() => stack?.close());

  async function upload(bytes: Uint8Array, filename: string): Promise<string> {
    const uploaded = await call(stack.url, 'POST', `/v1/assets?filename=${filename}`, {
      key: owner.key,
      raw: Buffer.from(bytes),
      headers: { 'content-type': 'application/pdf' },
    });
    assert.equal(uploaded.status, 201, uploaded.text);
    return uploaded.body.drive_file_id;
  }

  function documentFrom(driveFileId: string): Promise<Reply> {
    return call(stack.url, 'POST', '/v1/documents', {
      key: owner.key,
      body: {
        drive_file_id: driveFileId,
        widgets: widgets.map((widget) => ({ ...(widget as object), x: 40, y: 40 })),
        name: 'From the Drive',
        signers: [{ name: 'Ann Lee', email: 'ann@example.test' }],
      },
    });
  }

  /**
   * The request's answer, and how many /v1/health calls were answered while it was in flight (asked
   * one after another, 25 ms apart). A check that held this process's event loop would let one through
   * at most, at its edges; one on a PDF thread lets them keep coming.
   */
  async function whileHealthIsAsked(request: () => Promise<Reply>) {
    let inFlight = true;
    let answered = 0;
    const asking = (async () => {
      while (inFlight) {
        const health = await fetch(`${stack.url}/v1/health`);
        await health.arrayBuffer();
        if (inFlight) answered += 1;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    const reply = await request();
    inFlight = false;
    await asking;
    return { reply, answered };
  }

  it('refuses an object-stream bomb (2.2 MB, 300 MiB per stream) with 422 invalid_pdf, while /v1/health keeps answering', async () => {
    const bomb = await upload(objectStreamBomb(7, 300), 'bomb.pdf');
    const { reply, answered } = await whileHealthIsAsked(() => documentFrom(bomb));
    assert.equal(reply.status, 422, reply.text);
    assert.equal(reply.body.error.code, 'invalid_pdf');
    assert.match(reply.body.error.message, /inflates to more than/);
    assert.ok(answered >= 3, `health answered ${answered} times while the PDF was checked`);
  });

  it('refuses deep nesting and a page tree of a million pages with 422 invalid_pdf', async () => {
    for (const [name, bytes, message] of [
      ['nested.pdf', deeplyNested(100_000), /objects that cannot be read|not a readable PDF|nested/],
      ['pages.pdf', manyPages(3, 1_000_000), /more than 2000 pages|page tree/],
    ] as const) {
      const id = await upload(bytes, name);
      const { reply } = await whileHealthIsAsked(() => documentFrom(id));
      assert.equal(reply.status, 422, `${name}: ${reply.text}`);
      assert.match(reply.body.error.message, message);
    }
  });

  it('cleans OpenAction JavaScript, XFA, embedded files and actions out of revision 0, and keeps the pages', async () => {
    const id = await upload(await hostileFeatures(), 'hostile.pdf');
    const created = await documentFrom(id);
    assert.equal(created.status, 201, created.text);
    const revision = (await DocumentRevision.query(stack.deps.db).findById([created.body.document_id, 0]))!;
    for (const sha of [revision.unsealed_sha256, revision.sealed_sha256]) {
      const bytes = await stack.deps.blobs.get(sha);
      const doc = await PDFDocument.load(bytes);
      assert.equal(doc.getPageCount(), 2);
      assert.equal(doc.catalog.has(PDFName.of('OpenAction')), false, 'no OpenAction');
      const names = doc.catalog.lookupMaybe(PDFName.of('Names'), PDFDict);
      assert.equal(names?.has(PDFName.of('JavaScript')) ?? false, false, 'no document JavaScript');
      assert.equal(names?.has(PDFName.of('EmbeddedFiles')) ?? false, false, 'no embedded file');
      assert.equal(doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict)?.has(PDFName.of('XFA')) ?? false, false, 'no XFA');
      assert.equal(doc.getPage(0).node.has(PDFName.of('AA')), false, 'no page action');
      const raw = Buffer.from(bytes).toString('latin1');
      for (const word of ['/JavaScript', '/JS ', '/Launch', 'payload.exe', 'app.alert']) assert.ok(!raw.includes(word), `no ${word} left`);
    }
  });

  it('refuses an off-by-default optional-content layer, and an encrypted PDF, with 422 naming why', async () => {
    const hidden = await upload(layered('/D << /OFF [5 0 R] >>'), 'layer.pdf');
    const layer = await documentFrom(hidden);
    assert.equal(layer.status, 422, layer.text);
    assert.equal(layer.body.error.code, 'invalid_pdf');
    assert.match(layer.body.error.message, /optional content/i);

    const directory = await tempDir();
    const plain = path.join(directory, 'plain.pdf');
    await fs.writeFile(plain, (await buildSampleNda()).pdf);
    const encrypted = path.join(directory, 'encrypted.pdf');
    const qpdf = await run('qpdf', ['--encrypt', '', 'owner-secret', '256', '--', plain, encrypted]);
    assert.equal(qpdf.code, 0, qpdf.stderr);
    const locked = await documentFrom(await upload(await fs.readFile(encrypted), 'encrypted.pdf'));
    assert.equal(locked.status, 422, locked.text);
    assert.match(locked.body.error.message, /encrypted/);
  });
});
