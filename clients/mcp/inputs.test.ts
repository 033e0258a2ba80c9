import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { currentOpenApi, operationInputs } from '../../runtime/sdk-types';
import { SvcClient } from '../sdk/src/index';
import { createMcpServer, TOOL_NAMES } from './src/server';

type Json = { type?: unknown; enum?: unknown; const?: unknown; properties?: Record<string, Json>; required?: string[] };

/** Each tool that is one REST operation: the operation, its path parameters under the tool's names, and what the tool fills itself. */
const TOOL_OPERATIONS: Record<string, { operation: string; path?: Record<string, string>; omit?: string[] }> = {
  me: { operation: 'getMe' },
  list_templates: { operation: 'listTemplates' },
  list_documents: { operation: 'listDocuments' },
  get_document: { operation: 'getDocument', path: { id: 'document_id' } },
  list_contacts: { operation: 'listContacts' },
  list_offers: { operation: 'listOffers' },
  get_offer: { operation: 'getOffer', path: { id: 'offer_id' } },
  get_template: { operation: 'getTemplate', path: { id: 'template_id' } },
  list_drive: { operation: 'listDrive' },
  list_transfers: { operation: 'listTransfers' },
  get_transfer: { operation: 'getTransfer', path: { id: 'transfer_id' } },
  list_sign_requests: { operation: 'listSignRequests', path: { id: 'document_id' } },
  get_document_audit: { operation: 'getDocumentAudit', path: { id: 'document_id' } },
  create_document: { operation: 'createDocument' },
  send_document: { operation: 'sendDocument', path: { id: 'document_id' }, omit: ['confirm'] },
  bulk_send: { operation: 'bulkSend' },
  get_bulk: { operation: 'getBulk', path: { id: 'bulk_id' } },
  create_template: { operation: 'createTemplate' },
  update_template: { operation: 'updateTemplate', path: { id: 'template_id' } },
  delete_template: { operation: 'deleteTemplate', path: { id: 'template_id' } },
  void_document: { operation: 'voidDocument', path: { id: 'document_id' } },
  remind_signers: { operation: 'remindSigners', path: { id: 'document_id' } },
  invite_contact: { operation: 'inviteContact' },
  propose_contract: { operation: 'proposeContract', path: { id: 'document_id' } },
  accept_offer: { operation: 'acceptOffer', path: { id: 'offer_id' } },
  decline_offer: { operation: 'declineOffer', path: { id: 'offer_id' } },
  request_sign: { operation: 'requestSign', path: { id: 'document_id' } },
  sign_as_principal: { operation: 'signAsPrincipal', path: { id: 'document_id' } },
  create_transfer: { operation: 'createTransfer' },
  offer_transfer: { operation: 'offerTransfer', path: { id: 'transfer_id' }, omit: ['confirm'] },
  claim_transfer: { operation: 'claimTransfer' },
  accept_transfer: { operation: 'acceptTransfer' },
  cancel_transfer: { operation: 'cancelTransfer', path: { id: 'transfer_id' } },
};
/** Tools about files (bytes or paths on the agent's machine), which no JSON operation takes as such. */
const FILE_TOOLS = ['upload_file', 'upload_asset', 'download_transfer', 'verify_pdf'];

/** What must agree field by field: the JSON type, the enum and the constant (bounds and formats come along with them). */
const essence = (schema: Json | undefined) => ({ type: schema?.type, enum: schema?.enum, const: schema?.const });

describe('MCP tool inputs are the REST operations’ inputs', () => {
  it('each tool that is one operation takes exactly its fields, with the same types, enums and required ones', async () => {
    const inputs = operationInputs(await currentOpenApi());
    const server = createMcpServer(new SvcClient({ baseUrl: 'http://127.0.0.1:9', apiKey: `svc_${'a'.repeat(32)}` }), {
      localFiles: false,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'inputs', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [...TOOL_NAMES].sort(), 'the tools listed are the server’s tool names');
      assert.deepEqual([...Object.keys(TOOL_OPERATIONS), ...FILE_TOOLS].sort(), [...TOOL_NAMES].sort(), 'every tool is accounted for');
      for (const tool of tools) {
        const mapping = TOOL_OPERATIONS[tool.name];
        if (!mapping) continue;
        const input = inputs[mapping.operation];
        assert.ok(input, `${tool.name}: operation ${mapping.operation} exists`);
        const body = (input.body ?? {}) as Json;
        const expected: Record<string, Json> = {};
        const required: string[] = [];
        for (const [name, schema] of Object.entries(input.path)) {
          expected[mapping.path?.[name] ?? name] = schema as Json;
          required.push(mapping.path?.[name] ?? name);
        }
        for (const [name, { required: needed, ...schema }] of Object.entries(input.query)) {
          expected[name] = schema as Json;
          if (needed) required.push(name);
        }
        for (const [name, schema] of Object.entries(body.properties ?? {})) {
          expected[name] = schema;
          if (body.required?.includes(name)) required.push(name);
        }
        for (const name of mapping.omit ?? []) {
          delete expected[name];
          required.splice(required.indexOf(name), 1);
        }
        const actual = (tool.inputSchema.properties ?? {}) as Record<string, Json>;
        assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${tool.name}: the fields of ${mapping.operation}`);
        assert.deepEqual([...(tool.inputSchema.required ?? [])].sort(), required.sort(), `${tool.name}: the required fields`);
        for (const name of Object.keys(expected))
          assert.deepEqual(essence(actual[name]), essence(expected[name]), `${tool.name}.${name}: type, enum and constant`);
      }
    } finally {
      await client.close();
      await server.close();
    }
  });
});
