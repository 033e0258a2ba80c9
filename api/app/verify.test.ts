import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildSampleNda } from '../../lib/pdf/samples';
import { developmentSealer } from '../../lib/pdf/sealer';
import { createAccount } from '../../test/factories';
import { tempDir } from '../../test/pdf-tools';
import { AppClient } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { type CompletedPdf, completedPdf, tampered } from '../../test/verify';
import { APP_CSP } from './layout';

const LIMIT = 2 * 1024 * 1024;

let stack: Stack;
let completed: CompletedPdf;
let appPath: string;

before(async () => {
  stack = await startStack({ env: { SVC_VERIFY_LIMIT_BYTES: String(LIMIT) } });
  completed = await completedPdf(stack);
  appPath = new URL(stack.config.appUrl).pathname.replace(/\/$/, '');
});
after(() => stack?.close());

/** The page's form posted as a browser posts it: multipart, the file in `pdf`, from the app's own origin. */
async function upload(
  file: { name: string; bytes: Uint8Array; type?: string } | undefined,
  options: { headers?: Record<string, string>; fields?: Record<string, string> } = {},
): Promise<{ status: number; html: string; headers: Headers }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  if (file) form.append('pdf', new Blob([file.bytes], { type: file.type ?? 'application/pdf' }), file.name);
  const response = await fetch(`${stack.url}${appPath}/verify`, {
    method: 'POST',
    body: form,
    headers: { origin: new URL(stack.config.appUrl).origin, ...options.headers },
    redirect: 'manual',
  });
  return { status: response.status, html: await response.text(), headers: response.headers };
}

const text = (markup: string) =>
  markup
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
/** The text of the element with this data-testid ('' when the page has none). */
const byTestId = (html: string, testid: string, tag = '[a-z0-9]+') =>
  text(new RegExp(`<(${tag})[^>]*data-testid="${testid}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html)?.[2] ?? '');
/** The cells of every row of a table, as text. */
const rows = (html: string, testid: string) =>
  [...(new RegExp(`data-testid="${testid}">[\\s\\S]*?</table>`).exec(html)?.[0] ?? '').matchAll(/<tbody>[\s\S]*?<\/tbody>/g)]
    .flatMap(([body]) => [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)])
    .map(([, row]) => [...row.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, cell]) => text(cell)));
const notice = (html: string) => byTestId(html, 'notice', 'p');

describe('the app’s verify page (public)', () => {
  it('is open to a visitor who is not signed in, under the app’s strict CSP, with a multipart upload form; linked for guests and principals', async () => {
    const response = await fetch(`${stack.url}${appPath}/verify`, { redirect: 'manual' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-security-policy'), APP_CSP);
    const html = await response.text();
    assert.match(html, /<h1>Verify a PDF<\/h1>/);
    assert.match(html, new RegExp(`<form method="post" action="${appPath}/verify" enctype="multipart/form-data"`));
    assert.match(html, /<input id="verify-pdf" type="file" name="pdf" accept="application\/pdf,\.pdf" required/);
    assert.match(html, /Up to 2\.0 MB|up to 2\.0 MB/);
    assert.match(html, /<script type="module" src="\/static\/verify\.js"><\/script>/);
    assert.doesNotMatch(html, /<script>|style="/, 'no inline script or style');
    assert.match(html, new RegExp(`<nav aria-label="Public"><a href="${appPath}/verify" aria-current="page">Verify a PDF</a></nav>`));
    const login = await (await fetch(`${stack.url}${appPath}/login`)).text();
    assert.match(login, new RegExp(`<a href="${appPath}/verify">Verify a PDF</a>`), 'guests find it from any page');

    const account = await createAccount(stack.deps.db, { name: 'Nora Navigator' });
    const app = await new AppClient(stack, account.email).login();
    const signedIn = await (await app.get(`${appPath}/`)).text();
    const nav = /<nav aria-label="App">[\s\S]*?<\/nav>/.exec(signedIn)?.[0] ?? '';
    assert.match(nav, new RegExp(`<a href="${appPath}/verify">Verify a PDF</a>`));
    const own = await (await app.get(`${appPath}/verify`)).text();
    assert.match(own, /<nav aria-label="App">[\s\S]*aria-current="page">Verify a PDF</, 'a principal sees it in their navigation');
    // A signed-in principal's form carries their session's form token, like every form of theirs.
    const token = /name="_csrf" value="([^"]*)"/.exec(own)?.[1];
    assert.ok(token, 'the form has the session’s token');
    const file = { name: 'mine.pdf', bytes: completed.pdf };
    const mine = await upload(file, { headers: { cookie: app.cookie }, fields: { _csrf: token } });
    assert.equal(mine.status, 200, notice(mine.html));
    assert.match(byTestId(mine.html, 'verdict', 'section'), /^Valid/);
    assert.match(mine.html, /<nav aria-label="App">/);
    const forged = await upload(file, { headers: { cookie: app.cookie }, fields: { _csrf: 'forged' } });
    assert.equal(forged.status, 400);
    assert.match(notice(forged.html), /This form has expired or did not come from this app/);
  });

  it('reports a completed PDF the service issued as valid: its document, revision, and who signed it and how', async () => {
    const { status, html } = await upload({ name: 'signed NDA.pdf', bytes: completed.pdf });
    assert.equal(status, 200, notice(html));
    assert.equal(
      byTestId(html, 'verdict', 'section'),
      'Valid Every signature and timestamp passed on a trusted chain, and nothing after them changed the document beyond what they permit.',
    );
    assert.ok(html.indexOf('data-testid="verdict"') < html.indexOf('data-testid="origin"'), 'the verdict comes first');
    assert.equal(byTestId(html, 'filename'), 'signed NDA.pdf');
    assert.equal(byTestId(html, 'issued'), 'Yes');
    assert.equal(byTestId(html, 'document-id'), completed.documentId);
    assert.equal(byTestId(html, 'revision'), '3');
    assert.match(byTestId(html, 'completed'), /^Yes/);
    const signers = rows(html, 'verify-signers');
    assert.deepEqual(
      signers.map(([name, email, how, mandate, level]) => [name, email, how, mandate.split(/\s/)[0], level]),
      [
        [
          completed.signers[0].name,
          completed.signers[0].email,
          'By an agent within the principal’s mandate (L2)',
          completed.mandate.id,
          'L2',
        ],
        [completed.signers[1].name, completed.signers[1].email, 'In the browser, at their sign link', '—', '—'],
      ],
    );
    // The mandate's cell: in force when it signed, its limits (none here) and its status now.
    assert.match(
      signers[0][3],
      /In force when it signed, and within its limits: no limits beyond its level, mode and expiry\.\s*Still in force now\./,
    );
    for (const [, , , , , signedAt] of signers) assert.match(signedAt, /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    const signatures = rows(html, 'verify-signatures');
    assert.deepEqual(
      signatures.map(([kind, , , chain, level, changes, result]) => [kind, chain.replace(/:.*/, ''), level, changes, result]),
      [
        [
          '1. Certification Seal',
          'Trusted',
          'B-LTA',
          'Allowed: revision 2, validation data (a DSS) was added Allowed: revision 3, a document timestamp was added',
          'Passed',
        ],
        ['2. Document timestamp Archive timestamp', 'Trusted', '—', 'None', 'Passed'],
      ],
    );
    assert.match(signatures[0][1], /Document seal \(development\)/, 'the sealing certificate is named');
    assert.match(signatures[1][1], /^CN=Timestamp authority \(development\)/, 'the document timestamp names its authority');
    assert.match(signatures[0][2], /^\d{4}-\d\d-\d\d \d\d:\d\d UTC its timestamp$/, 'the trusted time, and what proves it');
    assert.match(signatures[0][3], /development CA/, 'the anchor its chain ends at');
  });

  it('says "Not valid", with why, for a PDF changed after it was signed, and names no document or signer', async () => {
    const { status, html } = await upload({ name: 'changed.pdf', bytes: tampered(completed.pdf) });
    assert.equal(status, 200, notice(html));
    assert.match(byTestId(html, 'verdict', 'section'), /^Not valid /);
    assert.match(byTestId(html, 'problems', 'ul'), /changed after it was signed|changed since it was timestamped/);
    assert.equal(byTestId(html, 'issued'), 'No');
    assert.doesNotMatch(html, /data-testid="verify-signers"|data-testid="document-id"/);
    assert.doesNotMatch(html, new RegExp(completed.signers[0].email.replace(/[.]/g, '\\.')));
    assert.equal(rows(html, 'verify-signatures')[0][6], 'Failed HASH_FAILURE');

    const appended = await upload({ name: 'appended.pdf', bytes: Buffer.concat([completed.pdf, Buffer.from('\n% appended\n')]) });
    assert.match(byTestId(appended.html, 'problems', 'ul'), /bytes follow the last revision/);
    const unsigned = await upload({ name: 'unsigned.pdf', bytes: (await buildSampleNda()).pdf });
    assert.equal(byTestId(unsigned.html, 'problems', 'ul'), 'The PDF carries no digital signature.');
    assert.match(unsigned.html, /data-testid="no-signatures"/);
  });

  it('says "Cannot be confirmed" for another deployment’s seal: nothing failed, but its chain ends at no anchor this service trusts', async () => {
    const other = await (await developmentSealer(await tempDir())).seal((await buildSampleNda()).pdf, { reason: 'Elsewhere' });
    const { status, html } = await upload({ name: 'elsewhere.pdf', bytes: other });
    assert.equal(status, 200, notice(html));
    assert.match(html, /data-verdict="indeterminate"/);
    assert.match(byTestId(html, 'verdict', 'section'), /^Cannot be confirmed Nothing failed/);
    assert.match(byTestId(html, 'problems', 'ul'), /does not chain to a trusted anchor/);
    const [row] = rows(html, 'verify-signatures');
    assert.deepEqual([row[3], row[6]], ['No trusted anchor', 'Indeterminate NO_CERTIFICATE_CHAIN_FOUND']);
  });

  it('shows a refused file as a message on the page with the API’s status: not a PDF (422), none chosen (400), too large (413)', async () => {
    const notPdf = await upload({ name: 'notes.txt', bytes: Buffer.from('just some notes, not a PDF\n'), type: 'text/plain' });
    assert.equal(notPdf.status, 422);
    assert.match(notPdf.headers.get('content-type') ?? '', /text\/html/);
    assert.ok(notice(notPdf.html).length > 10, notPdf.html);
    assert.doesNotMatch(notPdf.html, /data-testid="verdict"/);
    assert.match(notPdf.html, /data-testid="verify-form"/, 'the form is there to try another file');
    const broken = await upload({ name: 'broken.pdf', bytes: Buffer.from('%PDF-1.7\nnot really') });
    assert.equal(broken.status, 422, notice(broken.html));

    const none = await upload(undefined);
    assert.equal(none.status, 400);
    assert.equal(notice(none.html), 'Choose a PDF file to verify.');

    const justOver = await upload({ name: 'big.pdf', bytes: Buffer.alloc(LIMIT + 10, 0x41) });
    assert.equal(justOver.status, 413);
    assert.equal(notice(justOver.html), 'The PDF is larger than 2.0 MB.');
    const farOver = await upload({ name: 'huge.pdf', bytes: Buffer.alloc(3 * LIMIT, 0x41) });
    assert.equal(farOver.status, 413);
    assert.equal(notice(farOver.html), 'The PDF is larger than 2.0 MB.');
  });

  it('refuses a post from another site’s page (400), and escapes the file name it shows', async () => {
    const crossSite = await upload({ name: 'a.pdf', bytes: completed.pdf }, { headers: { origin: 'https://evil.example' } });
    assert.equal(crossSite.status, 400);
    assert.match(notice(crossSite.html), /did not come from this app/);
    const named = await upload({ name: '<img src=x onerror=alert(1)>.pdf', bytes: completed.pdf });
    assert.equal(named.status, 200);
    assert.doesNotMatch(named.html, /<img src=x/);
    assert.match(named.html, /&lt;img src=x onerror=alert\(1\)&gt;\.pdf/);
  });
});
