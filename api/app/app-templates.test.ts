import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { account, app, csrf, ndaPdf, page, path, postMultipart, stack, useAppStack } from '../../test/fixtures/app';
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

describe('the visual editor’s form', () => {
  const widgets = [{ id: 'sign', type: 'signature', role: 'Buyer', page: 1, x: 72, y: 650, width: 200, height: 40 }];

  it('refuses fields off the PDF’s page beside the editor, keeping what was placed, and saves good ones as the template’s widgets', async () => {
    const created = await postMultipart(
      '/templates/new',
      { _csrf: await csrf(), name: 'Editor made', roles: 'Buyer', widgets: JSON.stringify(widgets) },
      { pdf: { name: 'po.pdf', type: 'application/pdf', bytes: ndaPdf } },
    );
    assert.equal(created.status, 302, await created.text());
    const id = /templates\/(tpl_\w+)\/edit/.exec(created.headers.get('location') ?? '')?.[1];
    assert.ok(id);

    const offPage = JSON.stringify([{ ...widgets[0], y: 5000 }]);
    const refused = await app.post(
      path(`/templates/${id}/edit`),
      { name: 'Editor made', roles: 'Buyer', widgets: offPage },
      path(`/templates/${id}/edit`),
    );
    assert.equal(refused.status, 400);
    const html = await refused.text();
    assert.match(html, /data-testid="form-errors"[\s\S]*Field “sign”/);
    assert.ok(html.includes(`value="${offPage.replace(/"/g, '&quot;')}"`), 'the placed fields are kept');

    const moved = JSON.stringify([{ ...widgets[0], x: 100, y: 100 }]);
    const saved = await app.post(
      path(`/templates/${id}/edit`),
      { name: 'Editor made 2', roles: 'Buyer', widgets: moved },
      path(`/templates/${id}/edit`),
    );
    assert.equal(saved.status, 302);
    const read = await call(stack.url, 'GET', `/v1/templates/${id}`, { key: account.key });
    assert.equal(read.body.name, 'Editor made 2');
    assert.deepEqual([read.body.widgets[0].x, read.body.widgets[0].y], [100, 100]);

    const deleted = await app.post(path(`/templates/${id}/delete`), {}, path(`/templates/${id}/edit`));
    assert.equal(deleted.status, 302);
    assert.equal((await call(stack.url, 'GET', `/v1/templates/${id}`, { key: account.key })).body.deleted_at !== null, true);
    assert.equal((await page(`/templates/${id}/edit`)).status, 404, 'a deleted template is not edited');
    assert.ok(!(await page('/templates')).html.includes(id), 'nor listed');
  });

  it('asks for the PDF of a new template', async () => {
    const form = new FormData();
    form.append('_csrf', await csrf());
    form.append('name', 'No PDF');
    form.append('widgets', JSON.stringify(widgets));
    const response = await fetch(`${stack.url}${path('/templates/new')}`, { method: 'POST', body: form, headers: { cookie: app.cookie } });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /Choose the PDF of the template/);
  });
});
