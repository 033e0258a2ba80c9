import type { Offer } from '@svc-agents/sdk';
import { IRREVERSIBLE, inputOf, MCP_APPLY_WAIT_MS, NOT_INTENT, type ToolKit, WRITE } from './kit';

export function offerTools({ tool, client }: ToolKit): void {
  tool(
    'invite_contact',
    'Invite another principal by e-mail to become agent contacts (they accept in the app or through their agent). Accepting signs nothing.',
    inputOf('inviteContact'),
    WRITE,
    (input) => client.inviteContact(input),
  );
  tool(
    'propose_contract',
    'Offer a sent document of this account to an active contact’s principal (a signer of it), bound to the SHA-256 of its current PDF. Proposing signs nothing.',
    inputOf('proposeContract', {
      path: { id: 'document_id' },
      describe: { document_id: 'doc_…', contact_id: 'ct_…, your side of the contact' },
    }),
    WRITE,
    ({ document_id, ...body }) => client.proposeContract(document_id, body),
  );
  tool(
    'accept_offer',
    `Accept an offer made to this principal. With an L2 mandate covering the document (in policy, no human signature required) the principal's stored signature is applied now (irreversible); otherwise the offer is escalated: the principal is e-mailed a confirm_url (also in the result, and shown by your client where it takes URL elicitation) and you must wait for their decision in the app (ask for a task and poll it, or poll get_offer). ${NOT_INTENT}`,
    inputOf('acceptOffer', { path: { id: 'offer_id' }, describe: { offer_id: 'ofr_…' } }),
    IRREVERSIBLE,
    (input) => client.acceptOffer(input.offer_id, { waitMs: MCP_APPLY_WAIT_MS }),
    {
      confirm: (offer: Offer) =>
        offer.status === 'escalated' && offer.confirm_url && offer.sign_request_id
          ? {
              url: offer.confirm_url,
              message: `Nothing is signed yet: the offer needs the principal's own confirmation. They must open ${offer.confirm_url} and confirm (or decline), signed in to the app; the link was also e-mailed to them.`,
              signRequestId: offer.sign_request_id,
            }
          : undefined,
      task: (offer: Offer) => offer.offer_id,
    },
  );
  tool(
    'decline_offer',
    'Decline an offer made to this principal; nothing is signed, and the offer cannot be accepted afterwards.',
    inputOf('declineOffer', { path: { id: 'offer_id' }, describe: { offer_id: 'ofr_…' } }),
    {
      ...WRITE,
      destructiveHint: true,
    },
    (input) => client.declineOffer(input.offer_id),
  );
}
