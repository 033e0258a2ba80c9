import type { Document, DocumentReminders } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { durationMs } from '../../lib/durations';
import { type ErrorDetail, errors } from '../../lib/errors';
import { t } from '../../lib/i18n';

/** What the sender asks of a document's waits (POST /documents): when it expires, and how its signers are reminded. */
export interface WaitsInput {
  expires_at?: string;
  reminders?: { first_after: string; every?: string; max?: number };
}

/** The waits as the document stores them. */
export interface DocumentWaits {
  expiresAt: Date | null;
  reminders: DocumentReminders | null;
}

/** The waits as the document's workflow takes them: durations in milliseconds (workflow inputs). */
export interface WorkflowWaits {
  expiresAtMs?: number;
  reminders?: { firstAfterMs: number; everyMs: number; max: number };
}

type Bounds = Pick<Config['durations'], 'reminderMinMs' | 'expiryMinMs' | 'documentWaitMaxMs'>;

/**
 * The waits checked against the deployment's bounds (SVC_REMINDER_MIN_MS, SVC_EXPIRY_MIN_MS,
 * SVC_DOCUMENT_WAIT_MAX_MS): a past or too near `expires_at`, or a reminder interval out of bounds,
 * is a 400 naming the field.
 */
export function checkWaits(bounds: Bounds, input: WaitsInput, now = new Date()): DocumentWaits {
  const problems: ErrorDetail[] = [];
  let expiresAt: Date | null = null;
  if (input.expires_at !== undefined) {
    expiresAt = new Date(input.expires_at);
    const ahead = expiresAt.getTime() - now.getTime();
    if (ahead <= 0) problems.push({ path: 'expires_at', message: 'must be in the future' });
    else if (ahead < bounds.expiryMinMs)
      problems.push({ path: 'expires_at', message: `must be at least ${bounds.expiryMinMs / 1000} s ahead` });
    else if (ahead > bounds.documentWaitMaxMs)
      problems.push({ path: 'expires_at', message: `must be at most ${bounds.documentWaitMaxMs / 1000} s ahead` });
  }
  let reminders: DocumentReminders | null = null;
  if (input.reminders) {
    const every = input.reminders.every ?? input.reminders.first_after;
    for (const [field, value] of [
      ['first_after', input.reminders.first_after],
      ['every', every],
    ] as const) {
      const ms = durationMs(value);
      if (ms === null)
        problems.push({ path: `reminders.${field}`, message: 'an ISO 8601 duration of weeks, days, hours, minutes, seconds (PT30S, P2D)' });
      else if (ms < bounds.reminderMinMs)
        problems.push({ path: `reminders.${field}`, message: `at least ${bounds.reminderMinMs / 1000} s` });
      else if (ms > bounds.documentWaitMaxMs)
        problems.push({ path: `reminders.${field}`, message: `at most ${bounds.documentWaitMaxMs / 1000} s` });
    }
    reminders = { first_after: input.reminders.first_after, every, max: input.reminders.max ?? 1 };
  }
  if (problems.length > 0)
    throw errors.invalidRequest(
      t('errors.documents.document_waits_not_valid', { problems: problems.map((p) => `${p.path} ${p.message}`).join('; ') }),
      problems,
    );
  return { expiresAt, reminders };
}

/** The document's waits as its workflow's input (undefined when it has none). */
export function workflowWaits(document: Pick<Document, 'expires_at' | 'reminders'>): WorkflowWaits | undefined {
  if (!document.expires_at && !document.reminders) return undefined;
  return {
    ...(document.expires_at ? { expiresAtMs: document.expires_at.getTime() } : {}),
    ...(document.reminders
      ? {
          reminders: {
            firstAfterMs: durationMs(document.reminders.first_after)!,
            everyMs: durationMs(document.reminders.every)!,
            max: document.reminders.max,
          },
        }
      : {}),
  };
}
