// Signing: L1 asks the principal to confirm; L2 signs within a mandate the principal granted. No tool signs on a key alone.
import type { SignRequest } from '@svc-agents/sdk';
import { IRREVERSIBLE, inputOf, MCP_APPLY_WAIT_MS, NOT_INTENT, REASON, type ToolKit, WRITE } from './kit';

export function signingTools({ tool, client }: ToolKit): void {
  tool(
    'request_sign',
    `L1: ask this key's principal to confirm applying their signature to a sent document where they are a signer. Answers a confirm_url that is also e-mailed to the principal (and shown by your client where it takes URL elicitation); only the principal, signed in to the app, can confirm or decline. You must wait for them (ask for a task and poll it, or poll list_sign_requests or get_document): nothing is signed until they confirm. ${NOT_INTENT}`,
    inputOf('requestSign', { path: { id: 'document_id' }, describe: { document_id: 'doc_…', reason: REASON } }),
    WRITE,
    (input) => client.requestSign(input.document_id, input.reason),
    {
      confirm: (request: SignRequest) => ({
        url: request.confirm_url,
        message: `Nothing is signed yet: the principal must open ${request.confirm_url} and confirm (or decline), signed in to the app. The link was also e-mailed to them; it expires at ${request.expires_at}.`,
        signRequestId: request.sign_request_id,
      }),
      task: (request: SignRequest) => request.sign_request_id,
    },
  );
  tool(
    'sign_as_principal',
    `L2: apply the principal's stored signature to a sent document now. Works only inside an L2 mandate the principal granted to this key in the app (else refused: mandate_required with the app's page where the principal can grant one, confirmation_required for an L1 mandate, mandate_scope …), at most 25 a day. It is a legally meaningful signature by the principal and cannot be undone: use it only when the principal's mandate covers exactly this. Never assume a mandate: check me first. Answers status applied; status processing means the signature is still being applied (call get_document: the signer's apply turns applied, or rejected with why). ${NOT_INTENT}`,
    inputOf('signAsPrincipal', { path: { id: 'document_id' }, describe: { document_id: 'doc_…', reason: REASON } }),
    IRREVERSIBLE,
    (input) => client.signAsPrincipal(input.document_id, input.reason, { waitMs: MCP_APPLY_WAIT_MS }),
  );
}
