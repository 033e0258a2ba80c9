import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tenants', (t) => {
    t.text('id').primary();
    t.text('name');
    t.text('plan').notNullable().defaultTo('business');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table tenants add constraint tenants_plan_check check (plan in ('free', 'pro', 'business', 'enterprise'))`);

  await knex.schema.createTable('principals', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['tenant_id']);
  });
  // One principal per e-mail across the service: the e-mail is how a principal logs in to the app.
  await knex.raw('create unique index principals_email_unique on principals (lower(email))');

  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('principal_id').notNullable().references('principals.id').onDelete('CASCADE');
    t.text('label').notNullable();
    t.text('prefix').notNullable();
    t.text('key_hash').notNullable().unique();
    t.jsonb('scopes').notNullable().defaultTo('[]');
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['tenant_id']);
    t.index(['principal_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('principals');
  await knex.schema.dropTable('tenants');
}
