// svc contacts: agent contacts between principals.
import type { CommandKit } from './kit';

export function contactCommands({ root, act, list, paging }: CommandKit): void {
  const contacts = root.command('contacts').description('agent contacts between principals');
  paging(contacts.command('list').description('your contacts and invitations')).action(
    act(async ({ client, out }, options: { limit?: number; cursor?: string }) =>
      list(out, await client.listContacts(options), ['contact_id', 'counterparty_email', 'direction', 'status']),
    ),
  );
  contacts
    .command('get <id>')
    .description('one contact')
    .action(act(async ({ client, out }, id: string) => out.result(await client.getContact(id))));
  contacts
    .command('invite')
    .description('invite another principal by e-mail')
    .requiredOption('--email <email>', 'their e-mail')
    .requiredOption('--name <name>', 'their name')
    .option('--inbox-url <url>', 'https URL for this relationship’s events')
    .action(
      act(async ({ client, out }, options: { email: string; name: string; inboxUrl?: string }) => {
        const contact = await client.inviteContact({ email: options.email, name: options.name, inbox_url: options.inboxUrl });
        out.result(contact, () => `${contact.contact_id} invited; they accept at ${contact.accept_url}`);
      }),
    );
  contacts
    .command('accept <id-or-token>')
    .description('accept an invitation (your contact id, or the token of its accept_url)')
    .action(
      act(async ({ client, out }, value: string) => {
        const contact = value.startsWith('ct_') ? await client.acceptContact(value) : await client.acceptContactByToken(value);
        out.result(contact, () => `${contact.contact_id} ${contact.status}`);
      }),
    );
  contacts
    .command('revoke <id>')
    .description('revoke a contact on both sides')
    .action(act(async ({ client, out }, id: string) => out.result(await client.revokeContact(id), () => `${id} revoked`)));
}
