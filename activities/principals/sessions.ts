import type { Db } from '../../db/connect';
import { AppSession, Principal } from '../../db/models';
import { type CodeLimits, codeClient } from '../../lib/code-limits';
import { newId } from '../../lib/ids';
import type { Mailer } from '../../lib/mail';
import { normalizeEmail } from '../accounts/accounts';
import { type Actor, recordAudit, recordObservation } from '../audit/audit';
import { codeMinutes, lockedWhat, loginCodeMail } from '../codes/mails';
import { codeRefusal, decoyChallenge, issueCode, LONG_CODE_DIGITS, useCodeLink, verifyCode } from '../codes/one-time-codes';
import { sendNow } from '../mail/send';

export interface LoginDeps {
  db: Db;
  secret: Buffer;
  mailer: Mailer;
  codeLimits: CodeLimits;
  codeTtlMs: number;
  /** SVC_APP_URL: the code mail's sign-in link points there. */
  appUrl: string;
}

/** Login codes and their wrong-code budget belong to the address typed, so one without an account locks alike. */
const loginSubject = (email: string) => ({ purpose: 'login', subject: normalizeEmail(email) });

/**
 * Sends a sign-in code when the e-mail belongs to a principal, and answers the code's challenge for
 * the page that asked (a decoy when there is no such principal, so the login form does not reveal who
 * has an account). Asking is counted per address and client alike either way. The mail also carries
 * a one-use link that signs in only where `binding` (the nonce of the asking browser's cookie) is.
 */
export async function requestLoginCode(deps: LoginDeps, email: string, actor: Actor, binding: string): Promise<string> {
  const client = codeClient(actor.ip);
  const principal = await Principal.query(deps.db)
    .whereRaw('lower(email) = ?', [normalizeEmail(email)])
    .first();
  if (!principal) {
    await deps.codeLimits.consumeIssue('login', normalizeEmail(email), client, 5, deps.codeTtlMs);
    return decoyChallenge(deps.secret);
  }
  const { code, challenge, link } = await issueCode(deps, {
    ...loginSubject(email),
    client,
    ttlMs: deps.codeTtlMs,
    digits: LONG_CODE_DIGITS,
    binding,
  });
  const url = `${deps.appUrl}/login/link?token=${encodeURIComponent(link!)}`;
  await sendNow(deps, {
    to: principal.email,
    ...loginCodeMail({ code, minutes: codeMinutes(deps.codeTtlMs), linkUrl: url }),
    purpose: 'login-code',
    tenantId: principal.tenant_id,
    secrets: [code, link!],
  });
  await recordObservation(deps.db, {
    tenantId: principal.tenant_id,
    actor: { ...actor, type: 'principal', id: principal.id },
    action: 'login.code_sent',
    data: {},
  });
  return challenge;
}

/** Checks the code (with the challenge of the page that asked for it) and opens an app session; one refusal whether the e-mail or the code is wrong. */
export async function signIn(
  deps: LoginDeps & { sessionTtlMs: number },
  input: { email: string; code: string; challenge?: string },
  actor: Actor,
): Promise<{ principal: Principal; session: AppSession }> {
  const { email, code, challenge } = input;
  const principal = await Principal.query(deps.db)
    .whereRaw('lower(email) = ?', [normalizeEmail(email)])
    .first();
  const owner = principal && { email: principal.email, tenantId: principal.tenant_id, what: lockedWhat.signIn() };
  // The budget is the typed address's, account or not, so its refusal tells nothing about who has one.
  const budget = normalizeEmail(email);
  await verifyCode(deps, { ...loginSubject(email), code, challenge, client: codeClient(actor.ip), owner, budget });
  if (!principal) throw codeRefusal('invalid');
  return { principal, session: await openSession(deps, principal, actor, 'code') };
}

/**
 * Spends a sign-in link from a code mail, opened in the browser that asked for the code (`binding`:
 * its cookie's nonce), and opens an app session; undefined for any link that does not work.
 */
export async function signInWithLink(
  deps: LoginDeps & { sessionTtlMs: number },
  input: { link: string; binding: string | undefined },
  actor: Actor,
): Promise<{ principal: Principal; session: AppSession } | undefined> {
  const email = await useCodeLink(deps.db, deps.secret, { purpose: 'login', ...input });
  if (!email) return undefined;
  const principal = await Principal.query(deps.db).whereRaw('lower(email) = ?', [email]).first();
  if (!principal) return undefined;
  return { principal, session: await openSession(deps, principal, actor, 'link') };
}

async function openSession(deps: LoginDeps & { sessionTtlMs: number }, principal: Principal, actor: Actor, via: 'code' | 'link') {
  return deps.db.transaction(async (trx) => {
    const opened = await AppSession.query(trx).insertAndFetch({
      id: newId('ses'),
      principal_id: principal.id,
      ip: actor.ip ?? null,
      user_agent: actor.userAgent?.slice(0, 500) ?? null,
      expires_at: new Date(Date.now() + deps.sessionTtlMs),
    });
    await recordAudit(trx, {
      tenantId: principal.tenant_id,
      actor: { ...actor, type: 'principal', id: principal.id },
      action: 'login.succeeded',
      data: { session_id: opened.id, via },
    });
    return opened;
  });
}

/** The principal of a live session (not expired, not signed out). */
export async function sessionPrincipal(db: Db, sessionId: string): Promise<Principal | undefined> {
  const session = await AppSession.query(db).findById(sessionId).whereNull('revoked_at').where('expires_at', '>', new Date());
  return session ? Principal.query(db).findById(session.principal_id) : undefined;
}

export async function signOut(db: Db, sessionId: string): Promise<void> {
  await AppSession.query(db).findById(sessionId).whereNull('revoked_at').patch({ revoked_at: new Date() });
}
