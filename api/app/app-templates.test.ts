import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { account, csrf, ndaPdf, page, postMultipart, stack, useAppStack } from '../../test/fixtures/app';
import { call } from '../../test/http';

useAppStack();

describe('templates', () => {
  const widgets = [
    { id: 'buyer-sign', type: 'signature', role: 'Buyer', page: 1, x: 72, y: 650, width: 200, height: 40 },
    { id: 'buyer-date', type: 'date', role: 'Buyer', page: 1, x: 300, y: 660, width: 120, height: 20, required: false },
  ];

  it('shows a bad widget’s error next to the form, keeping what was typed', async () => {
    const token = await csrf();
    const typed = JSON.stringify([
      { ...widgets[0], type: 'stamp' },
      { ...widgets[1], page: 9 },
    ]);
    const refused = await postMultipart(
      '/templates',
      { _csrf: token, name: 'Broken <one>', widgets: typed },
      { pdf: { name: 'nda.pdf', type: 'application/pdf', bytes: ndaPdf } },
    );
    assert.equal(refused.status, 400);
    const html = await refused.text();
    assert.match(html, /data-testid="form-errors"[\s\S]*Widget 1 \(“buyer-sign”\), “type”: /);
    assert.match(html, /value="Broken &lt;one&gt;"/);
    assert.ok(html.includes(`>${typed.replace(/"/g, '&quot;')}</textarea>`), 'the JSON is kept');

    const pageOut = await postMultipart(
      '/templates',
      { _csrf: token, name: 'Off page', widgets: JSON.stringify([{ ...widgets[0], page: 3 }]) },
      { pdf: { name: 'nda.pdf', type: 'application/pdf', bytes: ndaPdf } },
    );
    assert.match(await pageOut.text(), /Widget 1 \(“buyer-sign”\), “page”: the PDF has 1 page/);
    const notJson = await postMultipart(
      '/templates',
      { _csrf: token, name: 'x', widgets: '[{ id: 1 ' },
      { pdf: { name: 'nda.pdf', type: 'application/pdf', bytes: ndaPdf } },
    );
    assert.match(await notJson.text(), /Not valid JSON/);
    const notPdf = await postMultipart(
      '/templates',
      { _csrf: token, name: 'x', widgets: JSON.stringify(widgets) },
      { pdf: { name: 'nda.pdf', type: 'application/pdf', bytes: Buffer.from('hello') } },
    );
    // The safe intake refuses it (422 invalid_pdf), on a PDF thread.
    assert.equal(notPdf.status, 422);
    assert.match(await notPdf.text(), /The file is not a readable PDF/);
  });

  it('adds a good template, lists it, and the API sees it', async () => {
    const created = await postMultipart(
      '/templates',
      { _csrf: await csrf(), name: 'Purchase order', roles: 'Buyer', widgets: JSON.stringify(widgets) },
      { pdf: { name: 'po.pdf', type: 'application/pdf', bytes: ndaPdf } },
    );
    assert.equal(created.status, 302);
    const html = (await page('/templates?done=created')).html;
    assert.match(
      html,
      /<th scope="row">Purchase order<\/th><td data-label="Pages">1<\/td><td data-label="Signer roles">Buyer<\/td><td data-label="Fields">2<\/td>/,
    );
    const listed = await call(stack.url, 'GET', '/v1/templates', { key: account.key });
    assert.equal(listed.status, 200, listed.text);
    const template = listed.body.data.find((candidate: { name: string }) => candidate.name === 'Purchase order');
    assert.ok(template, listed.text);
    assert.deepEqual(template.roles, ['Buyer']);
  });
});
