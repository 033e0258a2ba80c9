import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { call } from '../../test/http';
import { type Stack, startStack } from '../../test/stack';

/** Every endpoint of SPEC.md (its Endpoints tables), as method and path. */
const SPEC_ENDPOINTS = `
GET /me
GET /flags
GET /mandates
GET /mandates/:id
POST /documents/:id/sign
POST /documents/:id/sign-requests
GET /documents/:id/sign-requests
GET /sign-requests/:id
GET /contacts
POST /contacts
GET /contacts/:id
POST /contacts/:id/accept
POST /contacts/accept
POST /contacts/:id/revoke
GET /offers
GET /offers/:id
POST /documents/:id/offers
POST /offers/:id/ack
POST /offers/:id/accept
POST /offers/:id/decline
POST /offers/:id/escalate
GET /templates
GET /templates/:id
POST /documents
GET /documents
GET /documents/:id
POST /documents/:id/signers
POST /documents/:id/send
GET /documents/:id/download
GET /webhooks
POST /webhooks
DELETE /webhooks/:id
POST /assets
GET /drive
POST /transfers
GET /transfers
GET /transfers/:id
POST /transfers/:id/offer
POST /transfers/claim
POST /transfers/accept
POST /transfers/:id/downloads
POST /transfers/:id/cancel
GET /public/transfers/:token
POST /public/transfers/:token/accept
POST /public/transfers/:token/downloads
POST /public/transfers/:token/bind
`
  .trim()
  .split('\n');

const SPEC_PATH =
  process.env.SVC_SPEC_PATH ??
  path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '../../../shared/SPEC.md');

function oasPath(specPath: string): string {
  return `/v1${specPath}`.replace(/:(\w+)/g, '{$1}');
}

describe('GET /v1/openapi.json', () => {
  let stack: Stack;
  let document: any;

  before(async () => {
    stack = await startStack({ worker: false });
    const reply = await call(stack.url, 'GET', '/v1/openapi.json');
    assert.equal(reply.status, 200);
    document = reply.body;
  });
  after(() => stack.close());

  it('is a valid OpenAPI 3.1 document under an independent validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    assert.deepEqual(result.errors ?? [], []);
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
  });

  it('carries a schema for each request, response and parameter that compiles as JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    let compiled = 0;
    for (const [route, operations] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        const schemas = [
          operation.requestBody?.content?.['application/json']?.schema,
          ...Object.values<any>(operation.responses).map((response) => response.content?.['application/json']?.schema),
          ...(operation.parameters ?? []).map((parameter: any) => parameter.schema),
        ].filter((schema) => schema && !schema.$ref);
        for (const schema of schemas) {
          assert.doesNotThrow(() => ajv.compile(schema), `${method} ${route}`);
          compiled += 1;
        }
      }
    }
    assert.ok(compiled > 50, `only ${compiled} schemas`);
  });

  it('lists every endpoint of SPEC.md, including those not implemented yet', () => {
    for (const line of SPEC_ENDPOINTS) {
      const [method, specPath] = line.split(' ');
      const operation = document.paths[oasPath(specPath)]?.[method.toLowerCase()];
      assert.ok(operation, `${line} is missing from the OpenAPI document`);
      assert.ok(operation.operationId, `${line} has no operationId`);
    }
  });

  it('keeps its endpoint list equal to SPEC.md’s tables', (t) => {
    if (!fs.existsSync(SPEC_PATH)) {
      t.skip(`SPEC.md is not at ${SPEC_PATH} (set SVC_SPEC_PATH)`);
      return;
    }
    const spec = fs.readFileSync(SPEC_PATH, 'utf8');
    const endpoints = [...spec.matchAll(/^\|\s*(GET|POST|DELETE|PUT|PATCH)\s*\|\s*(\/[^\s|]+)\s*\|/gm)].map(
      (match) => `${match[1]} ${match[2]}`,
    );
    assert.deepEqual([...endpoints].sort(), [...SPEC_ENDPOINTS].sort());
  });

  it('marks operations that answer 501 until their issue lands', () => {
    const counter = document.paths['/v1/offers/{id}/counter'].post;
    assert.equal(counter['x-implemented'], false);
    assert.ok(counter.responses['501']);
    const me = document.paths['/v1/me'].get;
    assert.equal(me['x-implemented'], undefined);
    assert.equal(me.responses['501'], undefined);
  });

  it('documents bearer authentication, and no key for health, OpenAPI and public claim links', () => {
    assert.deepEqual(document.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      description: document.components.securitySchemes.bearerAuth.description,
    });
    assert.deepEqual(document.paths['/v1/me'].get.security, [{ bearerAuth: [] }]);
    for (const open of ['/v1/health', '/v1/openapi.json', '/v1/public/transfers/{token}']) {
      assert.deepEqual(document.paths[open].get.security, [], open);
    }
  });

  it('describes requests exactly as the API validates them', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const createDocument = ajv.compile(document.paths['/v1/documents'].post.requestBody.content['application/json'].schema);
    const valid = { template_id: 'tpl_1', name: 'NDA', signers: [{ name: 'Ann', email: 'ann@example.test' }], send: true };
    const invalid = [
      { ...valid, extra: 1 },
      { ...valid, signers: [] },
      { ...valid, signers: [{ name: 'Ann', email: 'nope' }] },
      { name: 'NDA', signers: valid.signers },
      { ...valid, send: 'yes' },
      { ...valid, drive_file_id: 'drv_1' },
      { ...valid, widgets: [] },
      { name: 'NDA', signers: valid.signers, drive_file_id: 'drv_1' },
    ];
    assert.equal(createDocument(valid), true, JSON.stringify(createDocument.errors));
    for (const body of invalid) assert.equal(createDocument(body), false, JSON.stringify(body));

    // The same bodies through the API: the valid one passes validation (501 until documents land), the others 400.
    const { createAccount } = await import('../../test/factories');
    const account = await createAccount(stack.deps.db);
    const accepted = await call(stack.url, 'POST', '/v1/documents', { key: account.key, body: valid });
    assert.notEqual(accepted.status, 400, accepted.text);
    for (const body of invalid) {
      assert.equal((await call(stack.url, 'POST', '/v1/documents', { key: account.key, body })).status, 400, JSON.stringify(body));
    }
  });
});
