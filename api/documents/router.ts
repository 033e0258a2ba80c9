import type { Routes } from '../http/route';
import { ConfirmSchema, IdParamsSchema, ListQuerySchema } from '../shared/schema';
import { DocumentCreateSchema, DocumentSignersAddSchema } from './schema';

export function documentRoutes(routes: Routes): void {
  const base = { tag: 'Documents' } as const;
  routes.add({ ...base, method: 'post', path: '/documents', operationId: 'createDocument', summary: 'Create a document from a template; `send: true` also sends it', body: DocumentCreateSchema, status: 201, errors: ['not_found'] });
  routes.add({ ...base, method: 'get', path: '/documents', operationId: 'listDocuments', summary: 'Documents of this account, newest first', query: ListQuerySchema });
  routes.add({ ...base, method: 'get', path: '/documents/:id', operationId: 'getDocument', summary: 'Status and sign links (owned, or inbound where the principal signs)', params: IdParamsSchema, errors: ['not_found'] });
  routes.add({ ...base, method: 'post', path: '/documents/:id/signers', operationId: 'addSigners', summary: 'Add signers (draft only)', params: IdParamsSchema, body: DocumentSignersAddSchema, errors: ['not_found', 'invalid_state'] });
  routes.add({ ...base, method: 'post', path: '/documents/:id/send', operationId: 'sendDocument', summary: 'Send a draft to its signers', params: IdParamsSchema, body: ConfirmSchema, errors: ['not_found', 'invalid_state'] });
  routes.add({ ...base, method: 'get', path: '/documents/:id/download', operationId: 'downloadDocument', summary: 'A short-lived signed URL of the current sealed PDF', params: IdParamsSchema, errors: ['not_found'] });
}
