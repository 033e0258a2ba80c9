import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDocument, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { AppClient, grantMandate } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

// Text that would run a script or add an event handler if any page placed it unescaped.
const HOSTILE = `<script>alert(1)</script>" onmouseover="alert(2)' x='`;
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;alert(2)&#39; x=&#39;';

let stack: Stack;
let agent: Account;
let app: AppClient;
let mandateId: string;
let confirmPath: string;
let signPath: string;

before(async () => {
  stack = await startStack();
  // The sender's name (and so their tenant's) is hostile too: the sign page names them.
  const sender = await createAccount(stack.deps.db, { name: HOSTILE });
  const { nda } = await seedSamples(stack, sender);
  agent = await createAccount(stack.deps.db, { name: HOSTILE, label: HOSTILE });
  app = await new AppClient(stack, agent.email).login();
  mandateId = (await grantMandate(stack, agent, { level: 'L1', mode: 'inbound', name: HOSTILE })).id;
  const created = await createDocument(stack, sender, {
    template_id: nda.id,
    name: HOSTILE,
    send: true,
    signers: [
      { name: HOSTILE, email: agent.email },
      { name: 'Rey', email: `rey-${Date.now()}@example.test` },
    ],
  });
  assert.equal(created.status, 201, created.text);
  signPath = new URL(created.body.signers[0].sign_url).pathname;
  const request = await call(stack.url, 'POST', `/v1/documents/${created.body.document_id}/sign-requests`, {
    key: agent.key,
    body: { reason: HOSTILE },
  });
  assert.equal(request.status, 201, request.text);
  confirmPath = new URL(request.body.confirm_url).pathname;
});
after(() => stack?.close());

/** The hostile value is on the page, escaped `times` times at least, and nowhere as markup. */
function assertInert(html: string, where: string, times = 1): void {
  assert.ok(!html.includes('<script>alert'), `${where}: a script tag came through`);
  assert.ok(!/onmouseover\s*=\s*"/.test(html), `${where}: an event handler came through`);
  assert.ok(html.split(ESCAPED).length - 1 >= times, `${where}: the value is not shown escaped ${times} time(s)\n${html}`);
}

async function page(path: string): Promise<string> {
  const response = await app.get(path);
  assert.equal(response.status, 200, path);
  return response.text();
}

describe('hostile names on the pages that show them', () => {
  it('the overview shows the principal, key, mandate, document and reason as text', async () => {
    // The header's name, the request's document and reason and key, the key list, the mandate list (name and key).
    assertInert(await page(`${app.appPath}/`), 'overview', 7);
  });

  it('the key pages show the label as text, in the table and on the revoke page', async () => {
    assertInert(await page(`${app.appPath}/keys`), 'keys', 2);
    assertInert(await page(`${app.appPath}/keys/${agent.keyId}/revoke`), 'revoke key', 2);
  });

  it('the mandate pages show its name and key label as text', async () => {
    assertInert(await page(`${app.appPath}/mandates`), 'mandates', 3);
    assertInert(await page(`${app.appPath}/mandates?done=granted&mandate=${mandateId}`), 'granted notice', 5);
    assertInert(await page(`${app.appPath}/mandates/${mandateId}/revoke`), 'revoke mandate', 2);
    assertInert(await page(`${app.appPath}/mandates/${mandateId}/confirm`), 'mandate facts', 3);
    assertInert(await page(`${app.appPath}/mandates/new`), 'grant form (key option)', 2);
  });

  it('the confirm page of a sign request shows document, key, reason and mandate as text', async () => {
    assertInert(await page(confirmPath), 'sign request', 5);
  });

  it('the sign page shows the document, the signer and the sender (principal and tenant) as text, in the title too', async () => {
    const response = await fetch(`${stack.url}${signPath}`);
    assert.equal(response.status, 200);
    // Title, heading, signer, and the sender line with the principal's and the tenant's name.
    assertInert(await response.text(), 'sign page', 5);
  });

  it('typed values echoed into form fields stay inside their attribute', async () => {
    const visitor = new AppClient(stack, agent.email);
    const login = await visitor.post(`${visitor.appPath}/login`, { email: HOSTILE });
    assert.equal(login.status, 400);
    const echoed = await login.text();
    assertInert(echoed, 'sign-in form');
    assert.ok(echoed.includes(`value="${ESCAPED}"`), echoed);

    const templates = await app.post(
      `${app.appPath}/templates`,
      { name: HOSTILE, roles: HOSTILE, widgets: HOSTILE },
      `${app.appPath}/templates`,
    );
    assert.equal(templates.status, 400);
    assertInert(await templates.text(), 'template form', 4);
  });
});
