import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Apply, Document, DocumentSigner, type Mandate, type MandatePolicy, Principal } from '../../db/models';
import { type ErrorDetail, errors, type ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { DAILY_L2_CAP } from './limits';

/** The constraints a policy may set, each checked on its own and named when it refuses. */
export const POLICY_CONSTRAINTS = ['counterparties', 'documents', 'daily_cap', 'per_counterparty', 'hours'] as const;
export type PolicyConstraint = (typeof POLICY_CONSTRAINTS)[number];

const PERIOD_MS = { day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 } as const;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DOMAIN = /^(?!-)[a-z0-9-]+(\.[a-z0-9-]+)+$/;
const HASH = /^[0-9a-f]{64}$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * A policy as a grant gives it, checked and normalised (e-mail addresses and domains lower-cased, a
 * leading `@` of a domain dropped, duplicates gone); every problem a 400 naming `policy.<field>`.
 * Undefined when nothing is constrained.
 */
export function checkPolicy(input: MandatePolicy | undefined): MandatePolicy | undefined {
  if (!input) return undefined;
  const details: ErrorDetail[] = [];
  const problem = (path: string, message: string) => details.push({ path: `policy.${path}`, message });
  const policy: MandatePolicy = {};
  const list = (values: string[] | undefined, path: string, valid: (value: string) => boolean, normal = (value: string) => value) => {
    if (!values || values.length === 0) return undefined;
    const kept = [...new Set(values.map((value) => normal(value.trim())))];
    for (const value of kept) if (!valid(value)) problem(path, t('errors.policy.not_valid', { value }));
    if (kept.length > 100) problem(path, t('errors.policy.too_many', { max: 100 }));
    return kept;
  };
  policy.counterparties = list(
    input.counterparties,
    'counterparties',
    (value) => EMAIL.test(value) || DOMAIN.test(value),
    (value) => value.toLowerCase().replace(/^@/, ''),
  );
  policy.templates = list(input.templates, 'templates', (value) => /^tpl_[A-Za-z0-9]{1,64}$/.test(value));
  policy.document_hashes = list(
    input.document_hashes,
    'document_hashes',
    (value) => HASH.test(value),
    (value) => value.toLowerCase(),
  );
  if (input.daily_cap !== undefined) {
    if (!Number.isInteger(input.daily_cap) || input.daily_cap < 1 || input.daily_cap >= DAILY_L2_CAP)
      problem('daily_cap', t('errors.policy.daily_cap', { max: DAILY_L2_CAP - 1, cap: DAILY_L2_CAP }));
    policy.daily_cap = input.daily_cap;
  }
  if (input.per_counterparty) {
    const { max, period } = input.per_counterparty;
    if (!Number.isInteger(max) || max < 1 || max > 1000) problem('per_counterparty.max', t('errors.policy.per_counterparty_max'));
    if (!(period in PERIOD_MS)) problem('per_counterparty.period', t('errors.policy.period'));
    policy.per_counterparty = { max, period };
  }
  if (input.hours) {
    const { from, to, time_zone } = input.hours;
    if (!TIME.test(from)) problem('hours.from', t('errors.policy.time'));
    if (!TIME.test(to) || to === from) problem('hours.to', t('errors.policy.time'));
    if (!knownTimeZone(time_zone)) problem('hours.time_zone', t('errors.policy.time_zone', { zone: String(time_zone) }));
    policy.hours = { from, to, time_zone };
  }
  if (details.length > 0) throw errors.invalidRequest(t('errors.policy.refused'), details);
  const kept = Object.fromEntries(Object.entries(policy).filter(([, value]) => value !== undefined)) as MandatePolicy;
  return Object.keys(kept).length > 0 ? kept : undefined;
}

function knownTimeZone(zone: unknown): boolean {
  if (typeof zone !== 'string' || zone === '') return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The day's L2 applies a mandate may make: its policy's cap, under the service's. */
export function dailyCapOf(mandate: Pick<Mandate, 'policy'>): number {
  return Math.min(DAILY_L2_CAP, mandate.policy?.daily_cap ?? DAILY_L2_CAP);
}

/** The refusal of an apply out of policy: 403 mandate_scope naming the constraint, in the message and in `details`. */
export function outOfPolicy(constraint: PolicyConstraint, message: string): ServiceError {
  return errors.mandateScope(t('errors.policy.out_of_policy', { constraint, why: message }), [{ path: `policy.${constraint}`, message }]);
}

/**
 * The people a document binds the principal to: its other signers and, when someone else sent it,
 * its sender (`senders`: the e-mail of each sender by principal id, read once for all documents).
 */
function counterpartiesOf(
  document: Pick<Document, 'owner_principal_id'>,
  signers: Array<Pick<DocumentSigner, 'email'>>,
  principal: Pick<Principal, 'id' | 'email'>,
  senders: Map<string, string>,
): string[] {
  const me = principal.email.toLowerCase();
  const emails = new Set(signers.map((signer) => signer.email.toLowerCase()));
  const sender = document.owner_principal_id !== principal.id ? senders.get(document.owner_principal_id) : undefined;
  if (sender) emails.add(sender.toLowerCase());
  emails.delete(me);
  return [...emails];
}

/** The e-mail of the sender of each of these documents that someone else sent (by principal id), in one query. */
async function sendersOf(
  db: Db | Knex.Transaction,
  documents: Array<Pick<Document, 'owner_principal_id'>>,
  principal: Pick<Principal, 'id'>,
): Promise<Map<string, string>> {
  const ids = [...new Set(documents.map((document) => document.owner_principal_id))].filter((id) => id !== principal.id);
  const rows = ids.length ? await Principal.query(db).whereIn('id', ids).select('id', 'email') : [];
  return new Map(rows.map((row) => [row.id, row.email]));
}

const covers = (entry: string, email: string) => (entry.includes('@') ? entry === email : email.endsWith(`@${entry}`));

/** Minutes since midnight at `now` in `zone`. */
function minutesIn(zone: string, now: Date): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(
    now,
  );
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part('hour') * 60 + part('minute');
}
const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/**
 * Checks an L2 apply by `mandate` against its policy, in the apply's transaction (the caller holds the
 * mandate's row lock, so two applies never both take the last place); throws `outOfPolicy` for the
 * first constraint it breaks and answers the constraints it was checked against. The daily cap is
 * taken with the day's slot (cap.ts reserveL2 with dailyCapOf).
 */
export async function enforcePolicy(
  db: Db | Knex.Transaction,
  mandate: Mandate,
  apply: { document: Document; signers: DocumentSigner[]; principal: Pick<Principal, 'id' | 'email'> },
  now = new Date(),
): Promise<PolicyConstraint[]> {
  const policy = mandate.policy;
  if (!policy) return [];
  const checked: PolicyConstraint[] = [];
  const { document } = apply;
  // Whom it binds the principal to, read only for the constraints that ask.
  const parties =
    policy.counterparties || policy.per_counterparty
      ? counterpartiesOf(document, apply.signers, apply.principal, await sendersOf(db, [document], apply.principal))
      : [];
  if (policy.counterparties) {
    const outside = parties.filter((email) => !policy.counterparties!.some((entry) => covers(entry, email)));
    if (outside.length > 0)
      throw outOfPolicy(
        'counterparties',
        t('errors.policy.counterparty_outside', { emails: outside.join(', '), allowed: policy.counterparties.join(', ') }),
      );
    checked.push('counterparties');
  }
  if (policy.templates || policy.document_hashes) {
    const byTemplate = Boolean(document.template_id && policy.templates?.includes(document.template_id));
    const byHash = Boolean(policy.document_hashes?.includes(document.current_sha256));
    if (!byTemplate && !byHash) throw outOfPolicy('documents', t('errors.policy.document_outside'));
    checked.push('documents');
  }
  if (policy.hours) {
    const { from, to, time_zone } = policy.hours;
    const at = minutesIn(time_zone, now);
    const [start, end] = [minutesOf(from), minutesOf(to)];
    const inside = start < end ? at >= start && at < end : at >= start || at < end;
    if (!inside) throw outOfPolicy('hours', t('errors.policy.hours_outside', { from, to, zone: time_zone }));
    checked.push('hours');
  }
  if (policy.per_counterparty) {
    const { max, period } = policy.per_counterparty;
    const since = new Date(now.getTime() - PERIOD_MS[period]);
    const earlier = await Apply.query(db)
      .where({ mandate_id: mandate.id })
      .whereIn('status', ['pending', 'applied'])
      .where('created_at', '>', since)
      // This document's own earlier apply is the one a retry joins, not another signature.
      .whereNot('document_id', document.id)
      .select('document_id');
    // The earlier documents, their signers and their senders: three reads, however many there were.
    const ids = [...new Set(earlier.map((row) => row.document_id))];
    const others = ids.length ? await Document.query(db).whereIn('id', ids) : [];
    const signersOf = new Map<string, DocumentSigner[]>();
    for (const signer of ids.length ? await DocumentSigner.query(db).whereIn('document_id', ids) : [])
      signersOf.set(signer.document_id, [...(signersOf.get(signer.document_id) ?? []), signer]);
    const senders = await sendersOf(db, others, apply.principal);
    const counts = new Map<string, number>();
    for (const other of others)
      for (const email of counterpartiesOf(other, signersOf.get(other.id) ?? [], apply.principal, senders))
        counts.set(email, (counts.get(email) ?? 0) + 1);
    const full = parties.filter((email) => (counts.get(email) ?? 0) >= max);
    if (full.length > 0)
      throw outOfPolicy('per_counterparty', t('errors.policy.per_counterparty_full', { emails: full.join(', '), max, period }));
    checked.push('per_counterparty');
  }
  if (policy.daily_cap !== undefined) checked.push('daily_cap');
  return checked;
}

/**
 * Whether an L2 apply by `mandate` would be in policy now, read outside the apply's transaction (an
 * offer's accept decides by it whether to apply or to escalate; the apply's own check still runs):
 * the refusal naming the constraint, or undefined.
 */
export async function policyRefusal(
  db: Db,
  mandate: Mandate,
  apply: { document: Document; signers: DocumentSigner[]; principal: Pick<Principal, 'id' | 'email'> },
  appliesToday: number,
): Promise<ServiceError | undefined> {
  try {
    await enforcePolicy(db, mandate, apply);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'mandate_scope') return error as ServiceError;
    throw error;
  }
  const cap = dailyCapOf(mandate);
  if (cap < DAILY_L2_CAP && appliesToday >= cap) return outOfPolicy('daily_cap', t('errors.policy.daily_cap_reached', { cap }));
  return undefined;
}

/**
 * The policy in plain words, one sentence per constraint (the grant form's summary, the mandate's
 * page, the L2 notice mail); `templateName` names a template id where the reader knows it by name.
 */
export function policyWords(policy: MandatePolicy | null | undefined, templateName: (id: string) => string = (id) => id): string[] {
  if (!policy) return [t('common.policy.none')];
  const words: string[] = [];
  if (policy.counterparties) words.push(t('common.policy.counterparties', { list: policy.counterparties.join(', ') }));
  const templates = policy.templates?.map(templateName).join(', ');
  const hashes = policy.document_hashes?.join(', ');
  if (templates && hashes) words.push(t('common.policy.documents', { templates, hashes }));
  else if (templates) words.push(t('common.policy.templates', { templates }));
  else if (hashes) words.push(t('common.policy.hashes', { hashes }));
  if (policy.daily_cap !== undefined) words.push(t('common.policy.daily_cap', { cap: policy.daily_cap }));
  if (policy.per_counterparty) words.push(t('common.policy.per_counterparty', policy.per_counterparty));
  if (policy.hours) words.push(t('common.policy.hours', { from: policy.hours.from, to: policy.hours.to, zone: policy.hours.time_zone }));
  return words;
}
