import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { agent, pdf, rest, row, SURFACES, type SurfaceName, stack, stranger, useParityStack } from '../test/fixtures/parity';
import { call } from '../test/http';

// Templates made, changed and deleted on every surface (the harness: test/fixtures/parity.ts).
describe('every surface does the same for the same operation', () => {
  useParityStack();

  it('templates: create_template from a Drive PDF, update_template, delete_template, and another tenant’s template', async () => {
    const uploaded = await call(stack.url, 'POST', '/v1/assets?filename=parity.pdf', {
      key: agent.key,
      raw: pdf.bytes,
      headers: { 'content-type': 'application/pdf' },
    });
    assert.equal(uploaded.status, 201, uploaded.text);
    const driveFileId: string = uploaded.body.drive_file_id;
    const widgets = [
      { id: 'seller-sign', type: 'signature' as const, role: 'Seller', page: 1, x: 72, y: 600, width: 180, height: 40, required: true },
      { id: 'buyer-sign', type: 'signature' as const, role: 'Buyer', page: 1, x: 300, y: 600, width: 180, height: 40, required: true },
    ];
    const widgetsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-parity-')), 'widgets.json');
    fs.writeFileSync(widgetsFile, JSON.stringify(widgets));

    const made = new Map<SurfaceName, string>();
    await row(
      'create_template',
      agent,
      async (surface) => {
        const body = { drive_file_id: driveFileId, name: `Parity template ${surface}`, roles: ['Seller', 'Buyer'], widgets };
        return {
          name: 'create_template',
          rest: rest('POST', '/templates', body),
          sdk: (c) => c.createTemplate(body),
          cli: ['templates', 'create', '--name', body.name, '--file', driveFileId, '--widgets', widgetsFile, '--roles', 'Seller, Buyer'],
          mcp: ['create_template', body],
        };
      },
      (template) => ({ roles: template.roles, widgets: template.widgets, pages: template.page_count, deleted: template.deleted_at }),
    );
    const listed = await call(stack.url, 'GET', '/v1/templates?limit=100', { key: agent.key });
    for (const surface of SURFACES)
      made.set(surface, listed.body.data.find((template: { name: string }) => template.name === `Parity template ${surface}`).template_id);

    await row(
      'get_template',
      agent,
      async (surface) => {
        const id = made.get(surface)!;
        return {
          name: 'get_template',
          rest: rest('GET', `/templates/${id}`),
          sdk: (c) => c.getTemplate(id),
          cli: ['templates', 'get', id],
          mcp: ['get_template', { template_id: id }],
        };
      },
      (template) => template.widgets.map((widget: { id: string; type: string; role: string }) => [widget.id, widget.type, widget.role]),
    );
    await row(
      'update_template',
      agent,
      async (surface) => {
        const id = made.get(surface)!;
        return {
          name: 'update_template',
          rest: rest('PATCH', `/templates/${id}`, { name: 'Renamed', roles: ['Buyer', 'Seller'] }),
          sdk: (c) => c.updateTemplate(id, { name: 'Renamed', roles: ['Buyer', 'Seller'] }),
          cli: ['templates', 'update', id, '--name', 'Renamed', '--roles', 'Buyer,Seller'],
          mcp: ['update_template', { template_id: id, name: 'Renamed', roles: ['Buyer', 'Seller'] }],
        };
      },
      (template) => ({ name: template.name, roles: template.roles, updated: Boolean(template.updated_at) }),
    );
    await row(
      'update_template (another tenant)',
      stranger,
      async (surface) => {
        const id = made.get(surface)!;
        return {
          name: 'update_template',
          rest: rest('PATCH', `/templates/${id}`, { name: 'Stolen' }),
          sdk: (c) => c.updateTemplate(id, { name: 'Stolen' }),
          cli: ['templates', 'update', id, '--name', 'Stolen'],
          mcp: ['update_template', { template_id: id, name: 'Stolen' }],
        };
      },
      (value) => value,
    );
    const deleted = await row(
      'delete_template',
      agent,
      async (surface) => {
        const id = made.get(surface)!;
        return {
          name: 'delete_template',
          rest: rest('DELETE', `/templates/${id}`),
          sdk: (c) => c.deleteTemplate(id),
          cli: ['templates', 'delete', id],
          mcp: ['delete_template', { template_id: id }],
        };
      },
      (template) => ({ name: template.name, deleted: Boolean(template.deleted_at) }),
    );
    assert.deepEqual(deleted.REST, { name: 'Renamed', deleted: true });
    const after = await call(stack.url, 'GET', '/v1/templates?limit=100', { key: agent.key });
    assert.ok(!after.body.data.some((template: { name: string }) => template.name === 'Renamed'), 'deleted templates are not listed');
  });
});
