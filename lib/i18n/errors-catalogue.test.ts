import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { outsideCatalogue, PSEUDO_HEADERS } from '../../test/catalogue';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { type Stack, startStack } from '../../test/stack';
import errorMessages from './en/errors.json';

/**
 * The rules' error messages come from the catalogue (errors area, lib/i18n/en/errors.json): in the
 * pseudo-locale each refusal's `message` is a catalogue message wrapped in ⟦ ⟧, with only the
 * request's own data (ids, the path, a plan name) around or inside it.
 */
describe('error messages from the catalogue', () => {
  let stack: Stack;
  let business: Account;
  let free: Account;

  before(async () => {
    stack = await startStack({ worker: false });
    business = await createAccount(stack.deps.db);
    free = await createAccount(stack.deps.db, { plan: 'free' });
  });
  after(() => stack.close());

  const refusals: Array<{
    name: string;
    code: string;
    method: string;
    path: string;
    key?: 'business' | 'free';
    options?: object;
    data?: string[];
  }> = [
    { name: 'no API key', code: 'unauthorized', method: 'GET', path: '/v1/me' },
    {
      name: 'an unknown key',
      code: 'unauthorized',
      method: 'GET',
      path: '/v1/me',
      options: { headers: { authorization: 'Bearer not-a-key' } },
    },
    {
      name: 'no such endpoint',
      code: 'not_found',
      method: 'GET',
      path: '/v1/no-such-thing',
      key: 'business',
      data: ['GET', '/v1/no-such-thing'],
    },
    {
      name: 'a method the path does not take',
      code: 'method_not_allowed',
      method: 'DELETE',
      path: '/v1/me',
      key: 'business',
      data: ['GET'],
    },
    { name: 'no such document', code: 'not_found', method: 'GET', path: '/v1/documents/doc_0000000000000000000000', key: 'business' },
    {
      name: 'a cursor the API did not give',
      code: 'invalid_request',
      method: 'GET',
      path: '/v1/documents?cursor=not-a-cursor',
      key: 'business',
    },
    { name: 'the plan', code: 'plan_required', method: 'GET', path: '/v1/documents', key: 'free', data: ['free'] },
    {
      name: 'a body that is not JSON',
      code: 'unsupported_media_type',
      method: 'POST',
      path: '/v1/documents',
      key: 'business',
      options: { raw: 'x', headers: { 'content-type': 'text/plain' } },
    },
    {
      name: 'a bad Idempotency-Key',
      code: 'invalid_request',
      method: 'POST',
      path: '/v1/documents',
      key: 'business',
      options: { body: {}, headers: { 'idempotency-key': 'ü' } },
    },
  ];

  for (const refusal of refusals) {
    it(`words ${refusal.name} from the catalogue`, async () => {
      const key = refusal.key === 'business' ? business.key : refusal.key === 'free' ? free.key : undefined;
      const options = refusal.options as { headers?: Record<string, string> } | undefined;
      const reply = await call(stack.url, refusal.method, refusal.path, {
        key,
        ...options,
        headers: { ...PSEUDO_HEADERS, ...options?.headers },
      });
      assert.equal(reply.body?.error?.code, refusal.code, reply.text);
      const message: string = reply.body.error.message;
      assert.deepEqual(outsideCatalogue(message, refusal.data), [], `${reply.status} ${reply.body.error.code}: ${message}`);
      assert.match(message, /^⟦[\s\S]*⟧$/);
    });
  }

  it('answers in plain English without the pseudo-locale (the catalogue’s text, unchanged)', async () => {
    const reply = await call(stack.url, 'GET', '/v1/documents/doc_0000000000000000000000', { key: business.key });
    assert.equal(reply.body.error.message, 'No such document.');
    assert.equal(errorMessages['documents.no_such_document'], 'No such document.');
  });
});

describe('the errors area of the catalogue', () => {
  it('has no key that no source file uses', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const sources: string[] = [];
    const walk = (directory: string) => {
      for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
        if (['node_modules', '.git', '.data', 'tmp'].includes(entry.name)) continue;
        const full = path.join(directory, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) sources.push(fs.readFileSync(full, 'utf8'));
      }
    };
    for (const directory of ['activities', 'api', 'lib', 'workflows', 'worker', 'runtime']) walk(path.join(root, directory));
    const all = sources.join('\n');
    const unused = Object.keys(errorMessages).filter((key) => !all.includes(`'errors.${key}'`));
    assert.deepEqual(unused, []);
  });
});
