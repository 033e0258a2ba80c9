import type { Knex } from 'knex';

/** The channel an API process listens on to drop the callers it cached (lib/key-cache.ts). */
export const KEY_CHANGES_CHANNEL = 'key_changes';

/**
 * Every change to what authenticating a key reads (the key, its principal, its tenant: revocation,
 * scopes a mandate adds or removes, plan, flags) is announced on `key_changes` as `key:<id>`,
 * `principal:<id>` or `tenant:<id>`, whichever process or tool wrote it. PostgreSQL delivers the
 * notice when the writer commits. A key's last_used_at (written in batches) and updated_at alone
 * announce nothing, so using a key never empties the caches.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function notify_key_change() returns trigger language plpgsql as $$
    declare
      changed record;
    begin
      if tg_op = 'DELETE' then
        changed := old;
      elsif (to_jsonb(new) - 'last_used_at' - 'updated_at') = (to_jsonb(old) - 'last_used_at' - 'updated_at') then
        return null;
      else
        changed := new;
      end if;
      perform pg_notify('${KEY_CHANGES_CHANNEL}', case tg_table_name
        when 'api_keys' then 'key:' when 'principals' then 'principal:' else 'tenant:' end || changed.id);
      return null;
    end $$`);
  for (const table of ['api_keys', 'principals', 'tenants']) {
    await knex.raw(`create trigger ${table}_key_change after update or delete on ${table}
      for each row execute function notify_key_change()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['api_keys', 'principals', 'tenants']) await knex.raw(`drop trigger ${table}_key_change on ${table}`);
  await knex.raw('drop function notify_key_change()');
}
