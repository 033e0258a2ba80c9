import type { Routes } from '../http/route';
import { IdParamsSchema, ReasonSchema } from '../shared/schema';

export function signingRoutes(routes: Routes): void {
  routes.add({
    method: 'post',
    path: '/documents/:id/sign',
    operationId: 'signAsPrincipal',
    summary: 'L2: apply the principal’s stored appearance now, within the key’s mandate',
    description: 'An L1 key gets 403 `confirmation_required`. At most 25 L2 applies per mandate per UTC day. The principal is notified by e-mail.',
    tag: 'Signing',
    params: IdParamsSchema,
    body: ReasonSchema,
    errors: ['not_found', 'feature_disabled', 'confirmation_required', 'mandate_required', 'mandate_inactive', 'principal_not_signer', 'mandate_scope', 'missing_appearance', 'missing_signature_fields', 'unfilled_fields', 'already_signed', 'strict_order', 'invalid_state', 'rate_limited', 'sign_failed'],
  });
  routes.add({
    method: 'post',
    path: '/documents/:id/sign-requests',
    operationId: 'requestSign',
    summary: 'L1: ask the principal to confirm an apply; returns confirm_url, also e-mailed',
    tag: 'Signing',
    flag: 'l1_signing',
    params: IdParamsSchema,
    body: ReasonSchema,
    status: 201,
    errors: ['not_found', 'pending_exists', 'mandate_required', 'mandate_inactive', 'principal_not_signer', 'mandate_scope', 'invalid_state'],
  });
  routes.add({ method: 'get', path: '/documents/:id/sign-requests', operationId: 'listSignRequests', summary: 'Sign requests of this key on the document', tag: 'Signing', flag: 'l1_signing', params: IdParamsSchema, errors: ['not_found'] });
  routes.add({ method: 'get', path: '/sign-requests/:id', operationId: 'getSignRequest', summary: 'Status of one sign request', tag: 'Signing', flag: 'l1_signing', params: IdParamsSchema, errors: ['not_found'] });
}
