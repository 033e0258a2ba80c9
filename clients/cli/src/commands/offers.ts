// svc offers: offers of sent documents between contacts.
import type { CommandKit } from './kit';

export function offerCommands({ root, act, list, paging }: CommandKit): void {
  const offers = root.command('offers').description('offers of sent documents between contacts');
  paging(offers.command('list').description('offers to and from you'))
    .option('--direction <inbound|outbound>', 'only offers made to you (inbound) or by you (outbound)')
    .option('--status <status>', 'only offers in this state')
    .action(
      act(async ({ client, out }, options: { limit?: number; cursor?: string; direction?: 'inbound' | 'outbound'; status?: never }) =>
        list(out, await client.listOffers(options), ['offer_id', 'direction', 'document_name', 'status', 'expires_at']),
      ),
    );
  offers
    .command('get <id>')
    .description('one offer')
    .action(act(async ({ client, out }, id: string) => out.result(await client.getOffer(id))));
  offers
    .command('propose <document-id>')
    .description('offer a sent document to a contact’s principal')
    .requiredOption('--contact <id>', 'your contact id (ct_…)')
    .requiredOption('--terms <text>', 'the terms')
    .option('--human', 'require the principal’s own confirmation (human_signature_required)')
    .action(
      act(async ({ client, out }, documentId: string, options: { contact: string; terms: string; human?: boolean }) => {
        const offer = await client.proposeContract(documentId, {
          contact_id: options.contact,
          terms: options.terms,
          human_signature_required: options.human,
        });
        out.result(offer, () => `${offer.offer_id} ${offer.status} (pre_sign_hash ${offer.pre_sign_hash})`);
      }),
    );
  for (const [verb, call, help] of [
    ['ack', 'ackOffer', 'acknowledge an offer made to you'],
    ['accept', 'acceptOffer', 'accept: signs within an L2 mandate, or escalates to your principal'],
    ['decline', 'declineOffer', 'decline an offer made to you'],
    ['escalate', 'escalateOffer', 'ask your principal to confirm in the app'],
  ] as const) {
    offers
      .command(`${verb} <id>`)
      .description(help)
      .action(
        act(async ({ client, out }, id: string) => {
          // accept waits (up to 5 minutes) for a signature still being applied, as docs sign does.
          const offer = await client[call](id);
          out.result(
            offer,
            () => `${offer.offer_id} ${offer.status}${offer.confirm_url ? `: your principal confirms at ${offer.confirm_url}` : ''}`,
          );
        }),
      );
  }
}
