import { heartbeat } from '@temporalio/activity';
import { recordAudit } from '../audit/audit';
import { Mandate, Principal, SignRequest, type SignRequestStatus } from '../../db/models';
import type { Deps } from '../../worker/deps';
import { recordApply, rejectionOf } from '../documents/apply';
import { signersOf } from '../documents/documents';
import { signalApply, waitForApply } from '../documents/orchestration';
import { ServiceError } from '../errors';
import { Document } from '../../db/models';
import { confirmUrl, storedAppearance } from './signing';

async function settle(deps: Deps, id: string, status: SignRequestStatus, error?: ServiceError): Promise<void> {
  await SignRequest.query(deps.db).findById(id).whereIn('status', ['open', 'confirming']).patch({ status, error_code: error?.code ?? null, error_message: error?.message ?? null });
}

/** The sign request workflow's activities; each is safe to run twice. */
export function createSignRequestActivities(deps: Deps) {
  return {
    async emailSignRequest(id: string): Promise<void> {
      const request = await SignRequest.query(deps.db).findById(id);
      if (!request) return;
      const [principal, document] = await Promise.all([Principal.query(deps.db).findById(request.principal_id), Document.query(deps.db).findById(request.document_id)]);
      await deps.mailer.send({
        to: principal!.email,
        subject: `Confirm your signature on "${document!.name}"`,
        text: [
          `Hello ${principal!.name},`,
          '',
          `Your agent asks you to confirm applying your signature to "${document!.name}".`,
          `Its reason: ${request.reason}`,
          '',
          `Review and confirm or decline (sign in to the app first): ${confirmUrl(deps.config.appUrl, deps.secret, id)}`,
          `The request expires at ${request.expires_at.toISOString()}. Nothing is signed unless you confirm.`,
        ].join('\n'),
        purpose: 'sign-request',
        tenantId: request.tenant_id,
        dedupeKey: `sign-request:${id}`,
      });
    },

    /** Open → expired; answers the status it found or left (a confirm already under way stays). */
    async expireSignRequest(id: string): Promise<SignRequestStatus> {
      const expired = await SignRequest.query(deps.db).findById(id).where({ status: 'open' }).patch({ status: 'expired', decided_at: new Date() });
      const request = (await SignRequest.query(deps.db).findById(id))!;
      if (expired) await recordAudit(deps.db, { tenantId: request.tenant_id, actor: { type: 'system' }, action: 'sign_request.expired', data: { sign_request_id: id, document_id: request.document_id } });
      return request.status;
    },

    async declineSignRequest(id: string, ip?: string): Promise<SignRequestStatus> {
      const declined = await SignRequest.query(deps.db).findById(id).whereIn('status', ['open', 'confirming']).patch({ status: 'declined', decided_at: new Date(), decided_ip: ip ?? null });
      const request = (await SignRequest.query(deps.db).findById(id))!;
      if (declined) await recordAudit(deps.db, { tenantId: request.tenant_id, actor: { type: 'principal', id: request.principal_id, ip }, action: 'sign_request.declined', data: { sign_request_id: id, document_id: request.document_id } });
      return request.status;
    },

    /**
     * The principal confirmed: the apply procedure runs through the document's workflow, with the
     * mandate re-checked now (a revoke since the request stops it). Idempotent by the recorded apply.
     */
    async confirmSignRequest(id: string): Promise<SignRequestStatus> {
      let request = (await SignRequest.query(deps.db).findById(id))!;
      if (!['open', 'confirming'].includes(request.status)) return request.status;
      if (!request.apply_id) {
        try {
          const mandate = await Mandate.query(deps.db).findById(request.mandate_id);
          if (!mandate?.isInForce()) throw new ServiceError('mandate_inactive', 'The mandate was revoked or expired before the confirmation.');
          const signer = (await signersOf(deps.db, request.document_id)).find((s) => s.id === request.signer_id)!;
          const apply = await recordApply(deps, {
            signer,
            kind: 'mandate',
            input: { values: {}, appearance: 'stored', reason: request.reason },
            signatureImage: await storedAppearance(deps, request.principal_id),
            mandateId: mandate.id,
            confirmationLevel: 'l1',
            apiKeyId: request.api_key_id,
            actor: { type: 'principal', id: request.principal_id, ip: request.decided_ip },
          });
          request = await request.$query(deps.db).patchAndFetch({ apply_id: apply.id });
        } catch (error) {
          if (!(error instanceof ServiceError)) throw error;
          await settle(deps, id, 'failed', error);
          return 'failed';
        }
      }
      await signalApply(deps.temporal, deps.config, request.document_id, request.apply_id!);
      for (;;) {
        heartbeat();
        const outcome = await waitForApply(deps.db, request.apply_id!, 1000);
        if (outcome.status === 'pending') continue;
        const error = outcome.status === 'rejected' ? rejectionOf(outcome) : undefined;
        await settle(deps, id, error ? 'failed' : 'applied', error);
        if (!error) await recordAudit(deps.db, { tenantId: request.tenant_id, actor: { type: 'principal', id: request.principal_id, ip: request.decided_ip }, action: 'sign_request.applied', data: { sign_request_id: id, apply_id: request.apply_id } });
        return error ? 'failed' : 'applied';
      }
    },
  };
}
export type SignRequestActivities = ReturnType<typeof createSignRequestActivities>;
